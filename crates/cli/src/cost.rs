//! `cost`: what context cost (docs/cost.md) — the ledger per turn and in total with the
//! cache hit rate, every compaction with its saved tokens, broken cache and (priced) balance,
//! and one line saying what compaction cost and saved in the session; as a report, one JSON
//! document, or CSV with one row per model call.

mod csv;
mod human;
mod prices;
pub mod requests;

use std::io::Write as _;

use super::load::{load, write_context};
use super::{EXIT_OK, Input, print_json};
use surface_analysis::cost::{Ledger, PriceTable};
use surface_reports::cost::RequestsPart;

pub use csv::COLUMNS as CSV_COLUMNS;
pub use human::session_line;
pub use prices::{PriceOptions, read_prices};

/// What `cost` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostFormat {
    /// The readable report.
    Human,
    /// One JSON document (docs/cost.md).
    Json,
    /// CSV, one row per model call.
    Csv,
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
pub fn run(
    input: &Input,
    format: CostFormat,
    options: &PriceOptions,
    with_requests: bool,
) -> anyhow::Result<u8> {
    // A bad price file is refused before the log is read.
    let prices = options.read()?;
    let loaded = load(input, false)?;
    let log = &loaded.log;
    let (parts, breaks) = if with_requests {
        let (parts, breaks) = surface_passes::ledger_parts_and_breaks_of(log);
        (parts, Some(breaks))
    } else {
        (surface_passes::ledger_parts_of(log), None)
    };
    let ledger = Ledger::build(&parts, prices.as_ref());
    let part = breaks
        .as_ref()
        .map(|b| RequestsPart::new(b, &parts, prices.as_ref()));
    let report = CostReport {
        file: input.file.display().to_string(),
        prices_file: options.prices.as_ref().map(|p| p.display().to_string()),
        prices: prices.as_ref(),
        ledger: &ledger,
    };
    match format {
        CostFormat::Json => print_json(&surface_reports::cost::document(
            &loaded.source(&report.file),
            report.prices_file.as_deref(),
            &ledger,
            part.as_ref(),
        )?)?,
        CostFormat::Csv | CostFormat::Human => {
            let text = match (format, &part) {
                (CostFormat::Csv, Some(p)) => requests::csv(p)?,
                (CostFormat::Csv, None) => csv::csv(&ledger)?,
                (_, Some(p)) => {
                    let mut text = human::human(&report);
                    text.push_str(&requests::human(p, ledger.currency.as_deref()));
                    text.into_bytes()
                }
                (_, None) => human::human(&report).into_bytes(),
            };
            let mut out = std::io::stdout().lock();
            write_context(out.write_all(&text))?;
            write_context(out.flush())?;
        }
    }
    Ok(EXIT_OK)
}
