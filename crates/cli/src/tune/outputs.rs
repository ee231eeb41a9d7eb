//! `tune --csv` (one row per setting: each figure's likely, min and max); `tune --json` is
//! surface-reports' document (docs/tune.md).

use super::sweep::Sweep;
use crate::csv_out::{Cell, CsvWriter};
use surface_analysis::policy::tune::{Span, pruner_name};

/// The CSV: one row per setting (the baseline first, its settings empty).
pub fn csv(s: &Sweep) -> anyhow::Result<Vec<u8>> {
    let names: Vec<String> = s
        .baseline
        .totals
        .named()
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
        for (_, span) in row.totals.named() {
            for end in [|x: Span| x.likely, |x: Span| x.min, |x: Span| x.max] {
                cells.push(span.map(end).into());
            }
        }
        out.row(&cells)?;
    }
    Ok(out.into_inner())
}
