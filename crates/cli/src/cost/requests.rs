//! `cost --requests`: every request's first change against the previous agent request
//! (docs/cost.md) — as a table after the report, or as CSV with one row per request (the JSON
//! document's `requests` and totals are surface-reports').

use std::fmt::Write as _;

use crate::csv_out::CsvWriter;
use surface_analysis::cost::{BreakTotals, money};
use surface_reports::cost::RequestsPart;

/// The columns of `cost --requests --csv`.
pub const COLUMNS: [&str; 14] = [
    "seq",
    "kind",
    "against",
    "cause",
    "block",
    "index",
    "at_seq",
    "replace_seq",
    "replace_kind",
    "prefix_tokens",
    "resent_tokens",
    "expected_cache_read",
    "cache_read",
    "provider_miss",
];

/// One CSV row per request.
pub fn csv(part: &RequestsPart<'_>) -> std::io::Result<Vec<u8>> {
    let mut out = CsvWriter::new(Vec::new(), &COLUMNS)?;
    for r in part.requests {
        let c = &r.first_change;
        out.row(&[
            r.seq.into(),
            r.kind.as_str().into(),
            r.against.into(),
            c.cause.as_str().into(),
            c.at.block.as_str().into(),
            c.at.index.into(),
            c.at.seq.into(),
            c.replace_seq.into(),
            c.replace_kind.map(|k| k.as_str()).into(),
            r.prefix_tokens.into(),
            r.resent_tokens.into(),
            r.expected_cache_read.into(),
            r.cache_read.into(),
            r.provider_miss.into(),
        ])?;
    }
    Ok(out.into_inner())
}

/// The table after the report, and the session's totals.
pub fn human(part: &RequestsPart<'_>, currency: Option<&str>) -> String {
    let mut out =
        String::from("\nwhy the cache missed (first change against the previous agent request)\n");
    let _ = writeln!(
        out,
        "{:>8} {:<10} {:<44} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "seq", "kind", "first change", "prefix", "resent", "expected", "read", "miss"
    );
    let dash = |v: Option<u64>| v.map_or("—".to_string(), |v| v.to_string());
    for r in part.requests {
        let _ = writeln!(
            out,
            "{:>8} {:<10} {:<44} {:>9} {:>9} {:>9} {:>9} {:>9}",
            r.seq,
            r.kind.as_str(),
            r.first_change.describe(),
            r.prefix_tokens,
            r.resent_tokens,
            dash(r.expected_cache_read),
            dash(r.cache_read),
            dash(r.provider_miss),
        );
    }
    match resent_line(&part.totals, currency) {
        Some(line) => {
            out.push_str(&line);
            out.push('\n');
        }
        None => out.push_str(
            "the provider reports no cache reads: resent tokens and misses are not shown\n",
        ),
    }
    out
}

/// One line of `totals`: the resent tokens with their causes, the provider misses, and with a
/// currency their money ("unpriced" when a price is missing); `None` when nothing reports cache
/// reads. `cost FILE --requests`, `cost DIR` and `compare` print it.
pub fn resent_line(totals: &BreakTotals, currency: Option<&str>) -> Option<String> {
    let by_cause = totals.resent_by_cause.as_ref()?;
    let costs = totals.costs.resent_cost_by_cause.as_ref();
    let priced = |c: Option<f64>| match (c, currency) {
        (Some(c), Some(cur)) => format!(" ({} {cur})", money(c)),
        (None, Some(_)) => " (unpriced)".to_string(),
        _ => String::new(),
    };
    let causes: Vec<String> = by_cause
        .iter()
        .filter(|&(_, &t)| t > 0)
        .map(|(&k, t)| {
            let cost = costs.and_then(|m| m.get(k).copied().flatten());
            format!("{k} {t}{}", priced(cost))
        })
        .collect();
    Some(format!(
        "resent: {} tokens{} — {}; provider misses: {} tokens{}",
        totals.resent_tokens.unwrap_or_default(),
        priced(totals.costs.resent_cost),
        if causes.is_empty() {
            "none".to_string()
        } else {
            causes.join(", ")
        },
        totals.provider_miss.unwrap_or_default(),
        priced(totals.costs.provider_miss_cost),
    ))
}
