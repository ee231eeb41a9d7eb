//! `cost`'s document: the file, the price file, then the ledger (per turn and in total, the
//! cache hit rate, every compaction's balance); the price file read for every priced
//! document.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use surface_engine::cost::{Ledger, PriceTable};

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

/// The JSON document: the file, the price file, then the ledger.
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    events: usize,
    prices: Option<&'a str>,
    #[serde(flatten)]
    ledger: &'a Ledger,
}

/// The ledger of `source`, priced by `prices`.
pub fn ledger_of(source: &Source<'_>, prices: Option<&PriceTable>) -> Ledger {
    Ledger::build(&surface_passes::ledger_parts_of(source.log), prices)
}

/// The `--json` document of `cost` (`prices_file` the price file as named).
pub fn document(
    source: &Source<'_>,
    prices_file: Option<&str>,
    ledger: &Ledger,
) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(Document {
        file: source.file,
        events: source.log.len(),
        prices: prices_file,
        ledger,
    })?)
}
