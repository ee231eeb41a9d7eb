//! The policy lab's two whole-log reads side by side: the replay's input
//! ([`PolicyInput::build`]) and the ledger's parts ([`parts_of`]) both walk the log once after
//! the meter and need nothing of each other, so `policy` builds them on two workers — and
//! replays on the input's worker while the other still gathers the ledger's parts.

use rayon::ThreadPool;
use surface_engine::audit::Scan;
use surface_engine::cost::{LedgerParts, parts_of, parts_with};
use surface_engine::policy::PolicyInput;
use surface_engine::{EventLog, Meter, Surface};

/// `then` of the policy input of `log` (`surface` processed to the end, `meter` built from
/// it), and the ledger's parts, built side by side on rayon's global pool.
pub fn policy_parts_of<R: Send>(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    then: impl FnOnce(PolicyInput) -> R + Send,
) -> (R, LedgerParts) {
    rayon::join(
        || then(PolicyInput::build(log, surface, meter)),
        || parts_of(log, surface, meter),
    )
}

/// [`policy_parts_of`] with the log's compaction brackets already scanned (as
/// [`crate::surface_meter_and_scan_of`] gives them): the input and the parts read the one scan.
pub fn policy_parts_with<R: Send>(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    then: impl FnOnce(PolicyInput) -> R + Send,
) -> (R, LedgerParts) {
    rayon::join(
        || then(PolicyInput::build_with(log, surface, meter, scan)),
        || parts_with(log, surface, meter, scan),
    )
}

/// [`policy_parts_of`] on the workers of `pool`.
pub fn policy_parts_of_in<R: Send>(
    pool: &ThreadPool,
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    then: impl FnOnce(PolicyInput) -> R + Send,
) -> (R, LedgerParts) {
    pool.install(|| policy_parts_of(log, surface, meter, then))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_parts_on_one_worker_or_several() {
        let mut text = Vec::new();
        surface_synth::generate(
            &surface_synth::SynthConfig {
                seed: 7,
                target_events: 3_000,
                ..surface_synth::SynthConfig::default()
            },
            &mut text,
        )
        .unwrap();
        let log = surface_store::read_jsonl(text, None).unwrap();
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let alone = (
            PolicyInput::build(&log, &surface, &meter),
            parts_of(&log, &surface, &meter),
        );
        for workers in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let (input, parts) = policy_parts_of_in(&pool, &log, &surface, &meter, |i| i);
            assert_eq!(input.checks(), alone.0.checks());
            assert_eq!(input.events(), alone.0.events());
            assert_eq!(parts.calls, alone.1.calls);
            assert_eq!(parts.compactions, alone.1.compactions);
            assert_eq!(parts.replaces, alone.1.replaces);
        }
    }
}
