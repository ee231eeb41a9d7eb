//! One run of a comparison analysed on two workers: the audit without lost terms and the
//! ledger of model calls need nothing of each other, so they are built side by side and then
//! read into the run's figures ([`analyse_parts`]) — the same [`Analysed`] as
//! [`surface_engine::compare::analyse`].

use surface_engine::audit::{LostTerms, Scan, audit_scanned, scan_compactions};
use surface_engine::compare::{Analysed, analyse_parts};
use surface_engine::cost::{Ledger, PriceTable, parts_with};
use surface_engine::{EventLog, Meter, Surface};

use super::ledger_threads::surface_meter_and_scan_of;

/// [`surface_engine::compare::analyse`] with its audit and ledger built side by side on the
/// current rayon pool, from one scan of the compaction brackets.
pub fn analyse_of(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> Analysed {
    let scan = scan_compactions(log, true);
    analyse_scanned(log, surface, meter, &scan, ratio, prices)
}

/// One run of a comparison from its log alone: the surface, the meter and the compaction
/// brackets (with the overflow watch) built side by side, then [`analyse_of`]'s audit and
/// ledger from the one scan.
pub fn analysis_of(log: &EventLog, ratio: f64, prices: Option<&PriceTable>) -> Analysed {
    let (surface, meter, scan) = surface_meter_and_scan_of(log, true);
    analyse_scanned(log, &surface, &meter, &scan, ratio, prices)
}

fn analyse_scanned(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> Analysed {
    let (audit, ledger) = rayon::join(
        || audit_scanned(log, surface, meter, ratio, scan, LostTerms::Skipped),
        || Ledger::build(&parts_with(log, surface, meter, scan), prices),
    );
    analyse_parts(log, meter, &audit, &ledger)
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_synth::{SynthConfig, generate};

    #[test]
    fn side_by_side_gives_the_engines_analysis() {
        let mut bytes = Vec::new();
        generate(&SynthConfig::with_events(30_000), &mut bytes).unwrap();
        let log = surface_store::read_jsonl(bytes, None).unwrap();
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let serial = surface_engine::compare::analyse(&log, &surface, &meter, 0.8, None);
        assert!(serial.total.agent_calls > 0);
        assert_eq!(analyse_of(&log, &surface, &meter, 0.8, None), serial);
        assert_eq!(analysis_of(&log, 0.8, None), serial);
    }
}
