//! Two runs side by side (docs/compare.md) — typically the same task under two settings, or a
//! fork and its parent: where they first diverged, and per turn and in total what each did
//! and cost (agent calls, prompt, cache read, output, compactions, peak meter total, requests
//! over the threshold, refetches, cost when priced), with B − A and B / A.
//!
//! Each run is [`analyse`]d on its own (the cost ledger, the audit and the meter, reused as
//! they are); [`compare`] then walks both logs once for the first divergence and pairs the
//! turns and steps. Decisions the spec leaves open are written in `docs/compare.md`.

mod alignment;
mod analysed;
mod columns;
mod comparison;
mod divergence;
mod position;
mod row;
mod same_content;
mod upgrade;
mod verdict;

pub use alignment::{CallPair, TurnPair, align};
pub use analysed::{Analysed, CallFigures, analyse, analyse_parts};
pub use columns::{FIGURE_COLUMNS, FigureColumn, MISSING, SUMMARIZER_TOKENS_COLUMN, signed};
pub use comparison::{
    CacheMisses, Cheaper, Comparison, Divergence, Measure, Run, Side, Totals, compare,
    compare_split,
};
pub use divergence::{DivergenceKind, Split, end_split, first_split, first_split_in, shared_len};
pub use position::{Position, Positions};
pub use row::{Difference, Ratio, Row};
pub use same_content::{LEFT_OUT, first_difference, same_content, same_row_content};
pub use upgrade::upgraded;
pub use verdict::{CheaperVerdict, cheaper_line, cheaper_verdict};

#[cfg(test)]
mod tests;
