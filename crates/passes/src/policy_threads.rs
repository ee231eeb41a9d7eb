//! The policy lab's whole-log reads spread over two workers. The replay's input
//! ([`PolicyInput::build_with`]) walks the log on one while the ledger's parts ([`parts_with`])
//! are gathered on the other, followed there by what the caller makes of the parts alone
//! (`policy`'s ledger of the log as it ran). Then the replay runs on one worker while the
//! settings the log's compactions bracket ([`PolicyInput::inferred`], read only at the
//! replay's end) are inferred on the other.

use rayon::ThreadPool;
use surface_analysis::cost::{LedgerParts, parts_with};
use surface_analysis::policy::PolicyInput;
use surface_engine::compactions::{Scan, scan_compactions};
use surface_engine::{EventLog, Meter, Surface};

/// `then` of the policy input of `log` (`surface` processed to the end, `meter` built from
/// it), and the ledger's parts, built side by side on rayon's global pool.
pub fn policy_parts_of<R: Send>(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    then: impl FnOnce(&PolicyInput) -> R + Send,
) -> (R, LedgerParts) {
    let scan = scan_compactions(log, false);
    let (result, (), parts) = policy_parts_with(log, surface, meter, &scan, then, |_| ());
    (result, parts)
}

/// [`policy_parts_of`] with the log's compaction brackets already scanned (as
/// [`crate::surface_meter_and_scan_of`] gives them): the input and the parts read the one scan.
/// `beside` gets the parts on the worker that gathered them, while the input is still being
/// built (the longer of the two).
pub fn policy_parts_with<R: Send, S: Send>(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    then: impl FnOnce(&PolicyInput) -> R + Send,
    beside: impl FnOnce(&LedgerParts) -> S + Send,
) -> (R, S, LedgerParts) {
    let (input, parts, made) = policy_input_and_parts(log, surface, meter, scan, beside);
    let (result, ()) = rayon::join(
        || then(&input),
        || {
            input.inferred(log);
        },
    );
    (result, made, parts)
}

/// The policy input of `log` and its ledger parts, built side by side from one scan of its
/// compaction brackets — what every replay of the log (`policy`, each setting of `tune`)
/// starts from — with `beside` of the parts made on the worker that gathered them while the
/// input is still being built.
pub fn policy_input_and_parts<S: Send>(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    beside: impl FnOnce(&LedgerParts) -> S + Send,
) -> (PolicyInput, LedgerParts, S) {
    let (input, (parts, made)) = rayon::join(
        || PolicyInput::build_with(log, surface, meter, scan),
        || {
            let parts = parts_with(log, surface, meter, scan);
            let made = beside(&parts);
            (parts, made)
        },
    );
    (input, parts, made)
}

/// [`policy_parts_of`] on the workers of `pool`.
pub fn policy_parts_of_in<R: Send>(
    pool: &ThreadPool,
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    then: impl FnOnce(&PolicyInput) -> R + Send,
) -> (R, LedgerParts) {
    pool.install(|| policy_parts_of(log, surface, meter, then))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::{read, synth_bytes};
    use surface_analysis::policy::{PolicySettings, ReplayMode, replay};

    fn synth(events: u64) -> EventLog {
        read(synth_bytes(&surface_synth::SynthConfig {
            seed: 7,
            ..surface_synth::SynthConfig::with_events(events)
        }))
    }

    fn fixture(name: &str) -> EventLog {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(name);
        surface_store::read_jsonl(std::fs::read(path).unwrap(), None).unwrap()
    }

    /// On one worker or two, the input is the one built alone, and so are the replay and the
    /// ledger's parts.
    #[test]
    fn the_same_input_and_parts_on_one_worker_or_several() {
        let logs = [
            synth(3_000),
            fixture("policy/p01.jsonl"),
            fixture("policy/p02.jsonl"),
        ];
        for log in &logs {
            let surface = Surface::at_end(log);
            let meter = Meter::build(log, &surface);
            let alone = PolicyInput::build(log, &surface, &meter);
            let settings = PolicySettings::default()
                .validate(meter.window_at(log.len()))
                .unwrap();
            let report = replay(log, &meter, &alone, &settings, ReplayMode::Verify);
            let parts = surface_analysis::cost::parts_of(log, &surface, &meter);
            assert!(
                alone.events() > 0 && !alone.checks().is_empty(),
                "the log has checks"
            );
            // Messages make calls, so a count lost on the way would show.
            assert!(log.indices().any(|i| meter.tool_calls(i) > 0));
            for workers in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .build()
                    .unwrap();
                let ((input, replayed), split) =
                    policy_parts_of_in(&pool, log, &surface, &meter, |input| {
                        let replayed = replay(log, &meter, input, &settings, ReplayMode::Verify);
                        (format!("{input:?}"), replayed)
                    });
                assert_eq!(input, format!("{alone:?}"), "{workers} workers");
                assert_eq!(replayed, report);
                assert_eq!(split.calls, parts.calls);
                assert_eq!(split.compactions, parts.compactions);
                assert_eq!(split.replaces, parts.replaces);
            }
        }
    }
}
