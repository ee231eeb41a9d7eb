//! `cost`'s document: the file, the price file, then the ledger (per turn and in total, the
//! cache hit rate, every compaction's balance); the price file read for every priced
//! document.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use surface_analysis::cost::{
    BreakTotals, CacheBreaks, Ledger, LedgerParts, PriceTable, RequestChange,
};

use crate::{ReportError, Source};

/// Reads and parses a price file; a file that cannot be read or is not a price file is one
/// sentence naming it.
pub fn read_prices(path: &Path) -> Result<PriceTable, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ReportError::Prices(format!(
            "cannot read the price file {}: {e}",
            path.display()
        ))
    })?;
    PriceTable::parse(&text).map_err(|e| ReportError::Prices(format!("{}: {e}", path.display())))
}

/// The members `--requests` adds: every request's first change against the previous agent
/// request, and the session's totals.
#[derive(Serialize)]
pub struct RequestsPart<'a> {
    /// One per call.
    pub requests: &'a [RequestChange],
    /// Their sums, and their money with a price file.
    #[serde(flatten)]
    pub totals: BreakTotals,
}

impl<'a> RequestsPart<'a> {
    /// The part of `breaks`, priced by `prices` at `parts`' routes.
    pub fn new(breaks: &'a CacheBreaks, parts: &LedgerParts, prices: Option<&PriceTable>) -> Self {
        RequestsPart {
            requests: &breaks.requests,
            totals: BreakTotals::of(breaks, &parts.routes, prices),
        }
    }
}

/// The JSON document: the file, the price file, then the ledger (and the requests).
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    events: usize,
    prices: Option<&'a str>,
    skipped: &'a [surface_engine::Skipped],
    #[serde(flatten)]
    ledger: &'a Ledger,
    #[serde(flatten)]
    requests: Option<&'a RequestsPart<'a>>,
}

/// The `--json` document of `cost` (`prices_file` the price file as named; `requests` with
/// `--requests`).
pub fn document(
    source: &Source<'_>,
    prices_file: Option<&str>,
    ledger: &Ledger,
    requests: Option<&RequestsPart<'_>>,
) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(Document {
        file: source.file,
        events: source.log.len(),
        prices: prices_file,
        skipped: source.skipped,
        ledger,
        requests,
    })?)
}
