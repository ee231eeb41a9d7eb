//! `cost`: what context cost (viewer-spec §11) — the ledger per turn and in total with the
//! cache hit rate, every compaction with its saved tokens, broken cache and (priced) balance,
//! and one line saying what compaction cost and saved in the session; as a report, one JSON
//! document, or CSV with one row per model call.

mod csv;
mod human;
mod prices;

use std::io::Write as _;

use serde::Serialize;

use super::load::{load, write_context};
use super::{EXIT_OK, Input, print_json};
use surface_engine::cost::{Ledger, PriceTable};

pub use csv::COLUMNS as CSV_COLUMNS;
pub use human::session_line;
pub use prices::{PriceOptions, read_prices};

/// What `cost` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostFormat {
    /// The readable report.
    Human,
    /// One JSON document (viewer-spec §11).
    Json,
    /// CSV, one row per model call.
    Csv,
}

/// The JSON document: the file, the price file, then the ledger.
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    events: usize,
    prices: Option<String>,
    #[serde(flatten)]
    ledger: &'a Ledger,
}

/// Everything a rendering of the ledger reads.
pub struct CostReport<'a> {
    /// The file as the user named it.
    pub file: String,
    /// The price file as named, when given.
    pub prices_file: Option<String>,
    /// Its table.
    pub prices: Option<&'a PriceTable>,
    /// The ledger.
    pub ledger: &'a Ledger,
}

/// Runs `cost`.
pub fn run(input: &Input, format: CostFormat, options: &PriceOptions) -> anyhow::Result<u8> {
    // A bad price file is refused before the log is read.
    let prices = options.read()?;
    let loaded = load(input, false)?;
    let log = &loaded.log;
    let parts = surface_passes::ledger_parts_of(log);
    let ledger = Ledger::build(&parts, prices.as_ref());
    let report = CostReport {
        file: input.file.display().to_string(),
        prices_file: options.prices.as_ref().map(|p| p.display().to_string()),
        prices: prices.as_ref(),
        ledger: &ledger,
    };
    match format {
        CostFormat::Json => print_json(&Document {
            file: &report.file,
            events: log.len(),
            prices: report.prices_file.clone(),
            ledger: &ledger,
        })?,
        CostFormat::Csv | CostFormat::Human => {
            let text = if format == CostFormat::Csv {
                csv::csv(&ledger)?
            } else {
                human::human(&report).into_bytes()
            };
            let mut out = std::io::stdout().lock();
            write_context(out.write_all(&text))?;
            write_context(out.flush())?;
        }
    }
    Ok(EXIT_OK)
}
