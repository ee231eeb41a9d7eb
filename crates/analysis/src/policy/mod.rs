//! The policy lab (docs/policy.md): the HEAD harness's compaction policy (`compaction-basic`
//! with the tool-result pruner) replayed over a log — *verify* every decision the log holds,
//! *infer* the settings that were in force as intervals, and ask *what if* another setting had
//! run the same session.
//!
//! Pure and cheap enough to recompute on every settings change: [`PolicyInput::build`] reads
//! the log once (O(log), with the [`Surface`](surface_engine::Surface) and
//! [`Meter`](surface_engine::Meter) already built), then [`replay`] walks that input with any
//! [`PolicySettings`] that [`PolicySettings::validate`] accepted ([`ValidSettings`]: a replay
//! cannot be given settings nobody checked) in O(surface changes + checks × surface size at a
//! firing check).
//!
//! ```no_run
//! # use surface_engine::{EventLog, Surface, Meter};
//! # use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};
//! # fn f(log: &EventLog) {
//! let surface = Surface::at_end(log);
//! let meter = Meter::build(log, &surface);
//! let input = PolicyInput::build(log, &surface, &meter); // once per log
//! let window = meter.window_at(log.len());
//! let Ok(settings) = PolicySettings::default().validate(window) else { return };
//! let report = replay(log, &meter, &input, &settings, ReplayMode::Verify);
//! println!("{} checks, {} disagree", report.checks.len(), report.disagreements());
//! // A what-if: the hypothetical curve is report.curve.total_at(&meter, cursor).
//! let other = PolicySettings { threshold_ratio: 0.7, ..*settings };
//! let Ok(other) = other.validate(window) else { return };
//! let what_if = replay(log, &meter, &input, &other, ReplayMode::WhatIf);
//! # }
//! ```

mod decide;
mod facts;
mod infer;
mod inferred;
mod input;
mod ledger;
mod node;
mod range;
mod ranges;
mod replay;
mod report;
mod settings;
mod spread;
mod trace;
pub mod tune;
mod verdict;

pub use decide::{Outcome, PlannedSummary};
pub use facts::{json_string_chars, tool_result_chars};
pub use inferred::Inferred;
pub use input::{CheckKind, CheckPoint, LogCompactions, LogPrune, LogSummary, PolicyInput};
pub use ledger::{EstimateBasis, SummarizerLine, WhatIfLedger, what_if_ledger};
pub use node::{Node, Nodes};
pub use range::{budgets_for, keep_index};
pub use ranges::{CountRange, Ranges, count_ranges};
pub use replay::replay;
pub use report::{
    ActualShown, CANT_JUDGE_NO_WINDOW, CheckVerdict, CurveMark, Divergence, LogRange, PolicyReport,
    ReplayMode, SettingsShown, Totals, WhatIfCurve, four_digits,
};
pub use settings::{
    DEFAULT_POLICY_THRESHOLD, DEFAULT_RETAIN_RATIO, PRUNE_MARKER, PRUNE_MARKER_CHARS,
    PolicySettings, PrunerSettings, Retain, SettingsError, ValidSettings,
};
pub use spread::Spread;
pub use surface_engine::meter::tool_call_blocks;
pub use trace::{HypAttempt, HypCompaction, RequestTail, WhatIfTrace};
pub use verdict::{AS_DECIDED, CompactionVerdict, compaction_verdicts, outcome_phrase};
