//! The compaction brackets of a whole log (`compactions::scan_compactions`) scanned on one core while
//! the surface and the meter are built on the others: the cost ledger's parts
//! (docs/cost.md), the policy input and the audit all read them, and none of them needs the brackets
//! before the meter is done.

use surface_analysis::cost::{CacheBreaks, LedgerParts, cache_breaks, parts_with};
use surface_engine::compactions::{Scan, scan_compactions};
use surface_engine::{EventLog, Meter, Surface};

use super::meter_threads::{meter_of, surface_and_meter_of};

/// The surface of `log` at its end and its meter (as [`surface_and_meter_of`]), and its
/// compaction brackets (`scan_compactions(log, overflow)`) scanned beside them.
pub fn surface_meter_and_scan_of(log: &EventLog, overflow: bool) -> (Surface, Meter, Scan) {
    let (scan, (surface, meter)) = rayon::join(
        || scan_compactions(log, overflow),
        || surface_and_meter_of(log),
    );
    (surface, meter, scan)
}

/// The meter of `log` (as [`meter_of`]) and its compaction brackets
/// (`scan_compactions(log, overflow)`) scanned beside it, for a caller that has the surface.
pub fn meter_and_scan_of(log: &EventLog, surface: &Surface, overflow: bool) -> (Meter, Scan) {
    let (scan, meter) = rayon::join(
        || scan_compactions(log, overflow),
        || meter_of(log, surface),
    );
    (meter, scan)
}

/// The ledger's parts of `log` from the log alone (as [`surface_and_meter_of`] then
/// `cost::parts_of`): the brackets the parts need are scanned beside the meter's build, not
/// after it.
pub fn ledger_parts_of(log: &EventLog) -> LedgerParts {
    let (surface, meter, scan) = surface_meter_and_scan_of(log, false);
    parts_with(log, &surface, &meter, &scan)
}

/// The ledger's parts of `log` and every request's first change (as [`ledger_parts_of`] then
/// `cost::cache_breaks`).
pub fn ledger_parts_and_breaks_of(log: &EventLog) -> (LedgerParts, CacheBreaks) {
    let (surface, meter, scan) = surface_meter_and_scan_of(log, false);
    let parts = parts_with(log, &surface, &meter, &scan);
    let breaks = cache_breaks(log, &surface, &meter, &parts);
    (parts, breaks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::synth_log;
    use surface_analysis::cost::{Ledger, parts_of};

    #[test]
    fn the_parts_equal_the_serial_ones_on_1_and_2_workers() {
        let log = synth_log(30_000);
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let serial = Ledger::build(&parts_of(&log, &surface, &meter), None);
        assert!(!serial.calls.is_empty() && !serial.compactions.is_empty());
        for workers in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let parts = pool.install(|| ledger_parts_of(&log));
            assert_eq!(Ledger::build(&parts, None), serial, "{workers} workers");
        }
    }
}
