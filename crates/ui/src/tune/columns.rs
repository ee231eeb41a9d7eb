//! The Tune table's model, free of egui: its columns (the setting, then every figure of a row
//! — the objective first, the risk next — with its likely value and range), what each cell
//! says (money unpriced never 0, the fill in per cent), and the rows' order under a sort.

use std::cmp::Ordering;

use surface_analysis::cost::UNPRICED;
use surface_analysis::policy::tune::{Objective, RowSettings, Span, TuneRow};
use surface_reports::tune::Sweep;
use surface_reports::tune::text::{objective_name, span_text};

/// The figures after the objective, in the table's order (the objective's own left out).
const FIGURES: [&str; 14] = [
    "requests_over_window",
    "requests_over_threshold",
    "summaries",
    "prunes",
    "failures",
    "fired",
    "peak_fill",
    "agent_calls",
    "agent_prompt",
    "cost",
    "uncached",
    "cache_read",
    "cache_lost",
    "summarizer_tokens",
];

/// The figures that count tokens or money (their cells are the widest): the last six of
/// [`FIGURES`].
pub fn is_large_figure(name: &str) -> bool {
    FIGURES[FIGURES.len() - 6..].contains(&name)
}

/// A column of the Tune table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneColumn {
    /// The row's index in the sweep (`#` of the command line).
    Index,
    /// The setting.
    Setting,
    /// A figure of [`surface_analysis::policy::tune::TuneTotals::named`], by name.
    Figure(&'static str),
    /// Sessions whose figures are exact.
    Exact,
}

impl TuneColumn {
    /// The columns for `objective`: index, setting, the objective, the other figures, exact.
    pub fn all(objective: Objective) -> Vec<TuneColumn> {
        let own = objective_figure(objective);
        let mut columns = vec![
            TuneColumn::Index,
            TuneColumn::Setting,
            TuneColumn::Figure(own),
        ];
        columns.extend(
            FIGURES
                .iter()
                .filter(|&&f| f != own)
                .map(|&f| TuneColumn::Figure(f)),
        );
        columns.push(TuneColumn::Exact);
        columns
    }

    /// The header's text.
    pub fn label(self, s: &Sweep) -> String {
        match self {
            TuneColumn::Index => "#".to_string(),
            TuneColumn::Setting => "setting".to_string(),
            TuneColumn::Figure(f) if f == objective_figure(s.objective) => objective_name(s),
            TuneColumn::Figure("cost") => match &s.currency {
                Some(c) => format!("cost ({c})"),
                None => "cost".to_string(),
            },
            TuneColumn::Figure(f) => f
                .trim_start_matches("requests_")
                .replace('_', " ")
                .to_string(),
            TuneColumn::Exact => "exact".to_string(),
        }
    }

    /// What the header's hover says.
    pub fn meaning(self) -> &'static str {
        match self {
            TuneColumn::Index => "The setting's index in the sweep (tune --json's settings)",
            TuneColumn::Setting => {
                "T threshold ratio, R retain ratio (or N tokens), retries, pruner"
            }
            TuneColumn::Exact => "Sessions whose figures are exact (no check diverged)",
            TuneColumn::Figure(f) => figure_meaning(f),
        }
    }
}

fn figure_meaning(name: &str) -> &'static str {
    match name {
        "requests_over_window" => "Requests sent over the window: likely (smallest–largest)",
        "requests_over_threshold" => "Requests sent at or over the threshold",
        "summaries" => "Summaries made",
        "prunes" => "Tool results pruned",
        "failures" => "Summaries that failed",
        "fired" => "Checks that compacted or tried to",
        "peak_fill" => "The largest peak meter total ÷ window of any session",
        "agent_calls" => "The agent's model calls",
        "agent_prompt" => "Σ agent prompt tokens (uncached + cache read + cache write)",
        "cost" => "Σ cost of every call (unpriced: some call has no price)",
        "uncached" => "Σ agent uncached input tokens",
        "cache_read" => "Σ agent cache-read tokens (– : no provider reports a cache)",
        "cache_lost" => "Σ cache lost to compactions",
        "summarizer_tokens" => "Σ summarizer prompt + output tokens",
        _ => "",
    }
}

/// The figure an objective ranks by.
pub fn objective_figure(objective: Objective) -> &'static str {
    match objective {
        Objective::Cost => "cost",
        Objective::Prompt => "agent_prompt",
    }
}

/// Figure `name` of `row`.
pub fn figure(row: &TuneRow, name: &str) -> Option<Span> {
    row.totals
        .named()
        .into_iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, span)| span)
}

/// The text of `column` in `row` (`index`: the row's, `None` for the baseline).
pub fn cell_text(s: &Sweep, column: TuneColumn, index: Option<usize>, row: &TuneRow) -> String {
    match column {
        TuneColumn::Index => index.map_or("base".to_string(), |i| i.to_string()),
        TuneColumn::Setting => surface_reports::tune::text::setting_text(row.settings.as_ref()),
        TuneColumn::Exact => format!("{}/{}", row.exact_sessions, row.sessions),
        TuneColumn::Figure(name) => match (figure(row, name), name) {
            (None, "cost") if s.currency.is_some() => UNPRICED.to_string(),
            (None, _) => "–".to_string(),
            (Some(span), "cost") => span_text(&span, true),
            (Some(span), "peak_fill") => percent(&span),
            (Some(span), _) => span_text(&span, false),
        },
    }
}

fn percent(s: &Span) -> String {
    let p = |x: f64| format!("{:.0}", x * 100.0);
    if p(s.min) == p(s.max) {
        format!("{} %", p(s.likely))
    } else {
        format!("{} % ({}–{} %)", p(s.likely), p(s.min), p(s.max))
    }
}

/// A sort of the table: a column, and which way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TuneSort {
    /// The column.
    pub column: Option<TuneColumn>,
    /// Largest first.
    pub descending: bool,
}

impl Default for TuneSort {
    /// By the objective, lowest first (as the command line lists them).
    fn default() -> Self {
        TuneSort {
            column: None,
            descending: false,
        }
    }
}

impl TuneSort {
    /// The sort after a click on `column`'s header: the other way round when it is already
    /// the sort, else that column from its lowest.
    pub fn clicked(self, column: TuneColumn, objective: Objective) -> TuneSort {
        let current = self
            .column
            .unwrap_or(TuneColumn::Figure(objective_figure(objective)));
        TuneSort {
            column: Some(column),
            descending: current == column && !self.descending,
        }
    }

    /// The column sorted by (the objective when none was clicked).
    pub fn shown(self, objective: Objective) -> TuneColumn {
        self.column
            .unwrap_or(TuneColumn::Figure(objective_figure(objective)))
    }
}

/// The rows' indices under `sort`; a figure not known sorts last either way, ties keep the
/// sweep's order.
pub fn order(s: &Sweep, sort: TuneSort) -> Vec<usize> {
    let column = sort.shown(s.objective);
    let mut rows: Vec<usize> = (0..s.rows.len()).collect();
    let key = |i: usize| -> Option<Vec<f64>> {
        let row = &s.rows[i];
        match column {
            TuneColumn::Index => Some(vec![i as f64]),
            TuneColumn::Setting => Some(setting_key(row.settings.as_ref())),
            TuneColumn::Exact => Some(vec![row.exact_sessions as f64]),
            TuneColumn::Figure(name) => figure(row, name).map(|x| vec![x.likely]),
        }
    };
    let keys: Vec<Option<Vec<f64>>> = rows.iter().map(|&i| key(i)).collect();
    rows.sort_by(|&a, &b| match (&keys[a], &keys[b]) {
        (Some(x), Some(y)) => {
            let o = compare(x, y);
            if sort.descending { o.reverse() } else { o }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    rows
}

fn compare(a: &[f64], b: &[f64]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// T, the retain budget (R, or N tokens), retries, the pruner's threshold (-1: off) and the
/// summary price (-1: the log's own).
fn setting_key(s: Option<&RowSettings>) -> Vec<f64> {
    let Some(s) = s else {
        return Vec::new();
    };
    vec![
        s.threshold_ratio,
        s.retain_ratio
            .or(s.retain_tokens.map(|n| n as f64))
            .unwrap_or(0.0),
        f64::from(s.compaction_retries),
        s.pruner.map_or(-1.0, |p| p.threshold_chars as f64),
        s.summary_tokens.map_or(-1.0, |n| n as f64),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_has_a_column_once_with_the_objective_first() {
        for objective in [Objective::Cost, Objective::Prompt] {
            let columns = TuneColumn::all(objective);
            assert_eq!(columns[2], TuneColumn::Figure(objective_figure(objective)));
            let figures: Vec<&str> = columns
                .iter()
                .filter_map(|c| match c {
                    TuneColumn::Figure(f) => Some(*f),
                    _ => None,
                })
                .collect();
            assert_eq!(figures.len(), 14, "{figures:?}");
            let names = surface_analysis::policy::tune::TuneTotals::default().named();
            for (name, _) in names {
                assert_eq!(figures.iter().filter(|f| **f == name).count(), 1, "{name}");
            }
        }
    }

    #[test]
    fn the_large_figures_are_the_tokens_and_the_money() {
        let large: Vec<&str> = FIGURES.into_iter().filter(|f| is_large_figure(f)).collect();
        let want = [
            "agent_prompt",
            "cost",
            "uncached",
            "cache_read",
            "cache_lost",
        ];
        assert_eq!(large, [&want[..], &["summarizer_tokens"]].concat());
        assert!(!is_large_figure("agent_calls"));
    }

    #[test]
    fn a_second_click_turns_the_sort_round() {
        let sort = TuneSort::default();
        let by_summaries = sort.clicked(TuneColumn::Figure("summaries"), Objective::Prompt);
        assert!(!by_summaries.descending);
        let again = by_summaries.clicked(TuneColumn::Figure("summaries"), Objective::Prompt);
        assert!(again.descending);
        // The objective is the sort at first: its header's first click turns it round.
        let objective = sort.clicked(TuneColumn::Figure("agent_prompt"), Objective::Prompt);
        assert!(objective.descending);
    }

    #[test]
    fn a_fill_reads_in_per_cent() {
        let s = Span {
            likely: 0.62,
            min: 0.6,
            max: 0.654,
        };
        assert_eq!(percent(&s), "62 % (60–65 %)");
        assert_eq!(percent(&Span::exact(0.5)), "50 %");
    }
}
