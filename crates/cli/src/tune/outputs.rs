//! `tune --csv` (one row per setting: each figure's likely, min and max); `tune --json` is
//! surface-reports' document (docs/tune.md).

use super::sweep::Sweep;
use crate::csv_out::{Cell, CsvWriter};
use surface_analysis::policy::tune::{Span, TuneRow, pruner_name};

/// The figures of a row, by name, in the order the CSV and the table show them.
pub fn figures(row: &TuneRow) -> [(&'static str, Option<Span>); 14] {
    let t = &row.totals;
    [
        ("cost", t.cost),
        ("agent_prompt", Some(t.agent_prompt)),
        ("agent_calls", Some(t.agent_calls)),
        ("uncached", Some(t.uncached)),
        ("cache_read", t.cache_read),
        ("cache_lost", t.cache_lost),
        ("summarizer_tokens", Some(t.summarizer_tokens)),
        ("fired", Some(t.fired)),
        ("summaries", Some(t.summaries)),
        ("prunes", Some(t.prunes)),
        ("failures", Some(t.failures)),
        ("requests_over_threshold", Some(t.requests_over_threshold)),
        ("requests_over_window", Some(t.requests_over_window)),
        ("peak_fill", Some(t.peak_fill)),
    ]
}

/// The CSV: one row per setting (the baseline first, its settings empty).
pub fn csv(s: &Sweep) -> anyhow::Result<Vec<u8>> {
    let names: Vec<String> = figures(&s.baseline)
        .iter()
        .flat_map(|(n, _)| [n.to_string(), format!("{n}_min"), format!("{n}_max")])
        .collect();
    let mut columns: Vec<&str> = vec![
        "index",
        "threshold_ratio",
        "retain_ratio",
        "retain_tokens",
        "compaction_retries",
        "pruner",
        "summary_tokens",
        "sessions",
        "exact_sessions",
        "frontier",
        "recommended",
    ];
    columns.extend(names.iter().map(String::as_str));
    let mut out = CsvWriter::new(Vec::new(), &columns)?;
    let rows = std::iter::once((None, &s.baseline))
        .chain(s.rows.iter().enumerate().map(|(i, r)| (Some(i), r)));
    for (index, row) in rows {
        let set = row.settings.as_ref();
        let pruner = set.map(|x| pruner_name(x.pruner));
        let mut cells: Vec<Cell<'_>> = vec![
            index.into(),
            set.map(|x| x.threshold_ratio).into(),
            set.and_then(|x| x.retain_ratio).into(),
            set.and_then(|x| x.retain_tokens).into(),
            set.map(|x| u64::from(x.compaction_retries)).into(),
            pruner.as_ref().into(),
            set.and_then(|x| x.summary_tokens).into(),
            row.sessions.into(),
            row.exact_sessions.into(),
            index.map(|i| s.choice.frontier.contains(&i)).into(),
            index.map(|i| s.choice.recommended == Some(i)).into(),
        ];
        for (_, span) in figures(row) {
            for end in [|x: Span| x.likely, |x: Span| x.min, |x: Span| x.max] {
                cells.push(span.map(end).into());
            }
        }
        out.row(&cells)?;
    }
    Ok(out.into_inner())
}
