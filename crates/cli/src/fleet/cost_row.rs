//! One session's row of `cost DIR`: its ledger's sums and its cache breaks' totals (why the
//! cache missed, by cause — docs/cost.md#why-the-cache-missed), both from one read of the log.

use serde::Serialize;

use surface_analysis::cost::parts_of;
use surface_analysis::cost::{BreakTotals, Ledger, LedgerSummary, PriceTable, cache_breaks};
use surface_engine::{EventLog, Surface};

/// A session's figures in `cost DIR`.
#[derive(Debug, Serialize)]
pub struct CostRow {
    /// The ledger's sums, as `cost FILE --json` names them.
    #[serde(flatten)]
    pub ledger: LedgerSummary,
    /// The resent tokens by cause and the provider misses, as `cost FILE --requests --json`.
    #[serde(flatten)]
    pub cache_misses: BreakTotals,
}

impl CostRow {
    /// The row of `log`, priced by `prices`.
    pub fn of(log: &EventLog, prices: Option<&PriceTable>) -> CostRow {
        let surface = Surface::at_end(log);
        let meter = crate::meter_of(log, &surface);
        let parts = parts_of(log, &surface, &meter);
        let breaks = cache_breaks(log, &surface, &meter, &parts);
        CostRow {
            ledger: LedgerSummary::of(&Ledger::build(&parts, prices)),
            cache_misses: BreakTotals::of(&breaks, &parts.routes, prices),
        }
    }
}
