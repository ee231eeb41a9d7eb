//! One run of a comparison analysed on two workers: the audit without lost terms and the
//! ledger of model calls need nothing of each other, so they are built side by side and then
//! read into the run's figures ([`analyse_parts`]) — the same [`Analysed`] as
//! [`surface_engine::compare::analyse`].

use surface_engine::audit::{LostTerms, Scan, audit_scanned, audit_without_terms};
use surface_engine::compare::{Analysed, analyse_parts};
use surface_engine::cost::{Ledger, PriceTable, ledger_of, parts_with};
use surface_engine::{EventLog, Meter, Surface};

use super::ledger_threads::surface_meter_and_scan_of;

/// [`surface_engine::compare::analyse`] with its audit and ledger built side by side on the
/// current rayon pool.
pub fn analyse_of(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> Analysed {
    let (audit, ledger) = rayon::join(
        || audit_without_terms(log, surface, meter, ratio),
        || ledger_of(log, surface, meter, prices),
    );
    analyse_parts(log, meter, &audit, &ledger)
}

/// One run of a comparison from its log alone: the surface, the meter and the compaction
/// brackets (with the overflow watch) built side by side, then [`analyse_of`]'s audit and
/// ledger from the one scan. Returns the surface and the meter too.
pub fn surface_and_analysis_of(
    log: &EventLog,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> (Surface, Meter, Analysed) {
    let (surface, meter, scan) = surface_meter_and_scan_of(log, true);
    let analysed = analyse_scanned(log, &surface, &meter, &scan, ratio, prices);
    (surface, meter, analysed)
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
        let (_, _, from_the_log) = surface_and_analysis_of(&log, 0.8, None);
        assert_eq!(from_the_log, serial);
    }
}
