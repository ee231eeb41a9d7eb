//! The `tune` table (`export --tune`): one row per session and setting of `tune`'s grid
//! (docs/tune.md), and one for the session as it ran (`setting` null) — each figure with its
//! likely value, its smallest and its largest, the numbers `tune` sums into a fleet's row. A
//! setting the session's window forbids is a row with `allowed` false and no figures, so a query
//! can leave out what `tune` leaves out (docs/export.md's frontier query).

use std::sync::Arc;

use surface_analysis::policy::PolicySettings;
use surface_analysis::policy::tune::{RowSettings, SessionFigures, Span, TuneTotals};
use surface_passes::TunedSession;

use super::table::{Column, Getter, Table, int};
use super::writer::{SessionKey, TableWriter};

/// One session under one setting (or as it ran).
pub struct TuneRow {
    setting: Option<i32>,
    settings: Option<RowSettings>,
    allowed: bool,
    exact: Option<bool>,
    figures: [Option<Span>; TuneTotals::FIGURES],
}

impl TuneRow {
    fn of(setting: Option<i32>, settings: Option<RowSettings>, f: Option<&SessionFigures>) -> Self {
        TuneRow {
            setting,
            settings,
            allowed: f.is_some(),
            exact: f.map(|f| f.exact),
            figures: f.map_or([None; TuneTotals::FIGURES], |f| {
                f.totals.named().map(|(_, span)| span)
            }),
        }
    }

    fn set<T>(&self, get: fn(&RowSettings) -> Option<T>) -> Option<T> {
        self.settings.as_ref().and_then(get)
    }
}

/// A figure's end as a whole number (every figure but `cost` and `peak_fill` counts tokens,
/// requests or checks).
fn whole(r: &TuneRow, figure: usize, end: fn(Span) -> f64) -> Option<i64> {
    r.figures[figure].map(|s| end(s).round() as i64)
}

/// A figure's end as it is (`cost`, `peak_fill`).
fn real(r: &TuneRow, figure: usize, end: fn(Span) -> f64) -> Option<f64> {
    r.figures[figure].map(end)
}

/// The columns `$fixed`, then three for each figure `$i` of [`TuneTotals::named`] — `$name`,
/// `${name}_min`, `${name}_max` — read by `$read` ([`whole`] or [`real`]) as `$getter`.
macro_rules! with_figure_columns {
    ([$($fixed:expr),* $(,)?]; $($i:literal $name:literal $getter:ident $read:ident),* $(,)?) => {
        [
            $($fixed,)*
            $(
                Column::nullable($name, Getter::$getter(|r| $read(r, $i, |s| s.likely))),
                Column::nullable(concat!($name, "_min"), Getter::$getter(|r| $read(r, $i, |s| s.min))),
                Column::nullable(concat!($name, "_max"), Getter::$getter(|r| $read(r, $i, |s| s.max))),
            )*
        ]
    };
}

/// The columns before the figures: the setting and whether the session's window allows it.
const SETTING_COLUMNS: usize = 11;

static COLUMNS: [Column<TuneRow>; SETTING_COLUMNS + 3 * TuneTotals::FIGURES] = with_figure_columns![[
    Column::nullable("setting", Getter::Int32(|r| r.setting)),
    Column::nullable(
        "threshold_ratio",
        Getter::Double(|r| r.set(|s| Some(s.threshold_ratio))),
    ),
    Column::nullable("retain_ratio", Getter::Double(|r| r.set(|s| s.retain_ratio))),
    Column::nullable(
        "retain_tokens",
        Getter::Int64(|r| r.set(|s| s.retain_tokens.map(int))),
    ),
    Column::nullable(
        "compaction_retries",
        Getter::Int32(|r| r.set(|s| i32::try_from(s.compaction_retries).ok())),
    ),
    Column::nullable(
        "prune_threshold_chars",
        Getter::Int64(|r| r.set(|s| s.pruner.map(|p| int(p.threshold_chars)))),
    ),
    Column::nullable(
        "prune_head_chars",
        Getter::Int64(|r| r.set(|s| s.pruner.map(|p| int(p.head_chars)))),
    ),
    Column::nullable(
        "prune_tail_chars",
        Getter::Int64(|r| r.set(|s| s.pruner.map(|p| int(p.tail_chars)))),
    ),
    Column::nullable(
        "summary_tokens",
        Getter::Int64(|r| r.set(|s| s.summary_tokens.map(int))),
    ),
    Column::required("allowed", Getter::Bool(|r| Some(r.allowed))),
    Column::nullable("exact", Getter::Bool(|r| r.exact)),
];
    0 "cost" Double real,
    1 "agent_prompt" Int64 whole,
    2 "agent_calls" Int64 whole,
    3 "uncached" Int64 whole,
    4 "cache_read" Int64 whole,
    5 "cache_lost" Int64 whole,
    6 "summarizer_tokens" Int64 whole,
    7 "fired" Int64 whole,
    8 "summaries" Int64 whole,
    9 "prunes" Int64 whole,
    10 "failures" Int64 whole,
    11 "requests_over_threshold" Int64 whole,
    12 "requests_over_window" Int64 whole,
    13 "peak_fill" Double real,
];

/// The table.
pub static TABLE: Table<TuneRow> = Table {
    name: "tune",
    columns: &COLUMNS,
};

/// Writes the session as it ran, then one row per setting of `settings` (`tuned.settings` in
/// the same order).
pub fn write(
    out: &mut TableWriter<TuneRow>,
    key: &Arc<SessionKey>,
    settings: &[PolicySettings],
    tuned: &TunedSession,
) -> anyhow::Result<()> {
    out.push(key, TuneRow::of(None, None, Some(&tuned.baseline)))?;
    for (i, (s, figures)) in settings.iter().zip(&tuned.settings).enumerate() {
        let setting = i32::try_from(i).unwrap_or(i32::MAX);
        let row = TuneRow::of(Some(setting), Some(RowSettings::of(s)), figures.as_ref());
        out.push(key, row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_columns_follow_the_figures_names() {
        let names: Vec<&str> = COLUMNS[SETTING_COLUMNS..].iter().map(|c| c.name).collect();
        let expected: Vec<String> = TuneTotals::default()
            .named()
            .iter()
            .flat_map(|(n, _)| [n.to_string(), format!("{n}_min"), format!("{n}_max")])
            .collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn a_forbidden_setting_is_a_row_without_figures() {
        let row = TuneRow::of(
            Some(3),
            Some(RowSettings::of(&PolicySettings::default())),
            None,
        );
        assert!(!row.allowed);
        assert_eq!(row.exact, None);
        assert!(row.figures.iter().all(Option::is_none));
        assert_eq!(row.set(|s| Some(s.threshold_ratio)), Some(0.8));
    }
}
