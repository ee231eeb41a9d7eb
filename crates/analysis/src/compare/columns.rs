//! The compare table's figure columns (docs/compare.md), one definition for every shell: each
//! column's heading and its cell's text on a run's line, on B − A and on B / A.

use super::row::{Difference, Ratio, Row};

/// One figure column of the compare table: its heading and its cell on each kind of line.
#[derive(Clone, Copy, Debug)]
pub struct FigureColumn {
    /// The heading.
    pub label: &'static str,
    /// The cell on a run's line (A or B, a turn or the totals).
    pub row: fn(&Row) -> String,
    /// The cell on a B − A line.
    pub difference: fn(&Difference) -> String,
    /// The cell on the B / A line.
    pub ratio: fn(&Ratio) -> String,
}

/// The text of a figure that is not there (`null`).
pub const MISSING: &str = "–";

/// A column whose figure is a plain count on every line.
macro_rules! count_column {
    ($label:literal, $field:ident) => {
        FigureColumn {
            label: $label,
            row: |r| r.$field.to_string(),
            difference: |d| signed(d.$field),
            ratio: |r| ratio(r.$field),
        }
    };
}

/// The figure columns of both shells' tables, in order: the agent calls with their prompt,
/// cache read and output, the compactions (summaries, prunes, failed), the peak meter total,
/// the requests at or over the threshold and the refetches.
pub const FIGURE_COLUMNS: [FigureColumn; 10] = [
    count_column!("calls", agent_calls),
    count_column!("prompt", prompt),
    FigureColumn {
        label: "cache read",
        row: |r| r.cache_read.map_or_else(missing, |v| v.to_string()),
        difference: |d| d.cache_read.map_or_else(missing, signed),
        ratio: |r| ratio(r.cache_read),
    },
    count_column!("output", output),
    count_column!("summ", summaries),
    count_column!("prune", prunes),
    count_column!("failed", failed),
    count_column!("peak", peak_total),
    count_column!("over", over_threshold),
    count_column!("refetch", refetches),
];

/// The summarizer calls' prompt + output: the column the command line's table adds after
/// [`FIGURE_COLUMNS`].
pub const SUMMARIZER_TOKENS_COLUMN: FigureColumn = count_column!("summ.tokens", summarizer_tokens);

fn missing() -> String {
    MISSING.to_string()
}

/// A difference of counts: `+` before a positive one.
pub fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(missing, |r| format!("{r:.3}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells<T>(line: &T, cell: impl Fn(&FigureColumn) -> fn(&T) -> String) -> Vec<String> {
        FIGURE_COLUMNS
            .iter()
            .chain([&SUMMARIZER_TOKENS_COLUMN])
            .map(|c| cell(c)(line))
            .collect()
    }

    #[test]
    fn each_line_reads_its_own_field_in_its_own_form() {
        let a = Row {
            agent_calls: 2,
            prompt: 1000,
            cache_read: None,
            output: 10,
            summaries: 1,
            peak_total: 700,
            refetches: 3,
            summarizer_tokens: 50,
            ..Row::default()
        };
        let b = Row {
            agent_calls: 3,
            prompt: 800,
            cache_read: Some(5),
            output: 10,
            prunes: 2,
            failed: 1,
            peak_total: 900,
            over_threshold: 4,
            summarizer_tokens: 25,
            ..Row::default()
        };
        assert_eq!(
            cells(&a, |c| c.row),
            ["2", "1000", "–", "10", "1", "0", "0", "700", "0", "3", "50"]
        );
        assert_eq!(
            cells(&Difference::of(&a, &b), |c| c.difference),
            [
                "+1", "-200", "–", "0", "-1", "+2", "+1", "+200", "+4", "-3", "-25"
            ]
        );
        assert_eq!(
            cells(&Ratio::of(&a, &b), |c| c.ratio),
            [
                "1.500", "0.800", "–", "1.000", "0.000", "–", "–", "1.286", "–", "0.000", "0.500"
            ]
        );
    }

    #[test]
    fn the_headings_are_distinct() {
        let mut labels: Vec<_> = FIGURE_COLUMNS
            .iter()
            .chain([&SUMMARIZER_TOKENS_COLUMN])
            .map(|c| c.label)
            .collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), FIGURE_COLUMNS.len() + 1);
    }
}
