//! One run of a comparison analysed on two workers: the audit without lost terms and the
//! ledger of model calls need nothing of each other, so they are built side by side and then
//! read into the run's figures ([`analyse_parts`]) — the same [`Analysed`] as
//! [`surface_engine::compare::analyse`].

use surface_engine::audit::audit_without_terms;
use surface_engine::compare::{Analysed, analyse_parts};
use surface_engine::cost::{PriceTable, ledger_of};
use surface_engine::{EventLog, Meter, Surface};

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
    }
}
