//! The audit with its texts read one block ahead: while the walk takes in a block of events,
//! the next block's node texts, terms and facts are read beside it (`rayon::join`), so the
//! reading — about half the walk's time on a long log — leaves the walk's core. The audit is
//! [`audit_scanned`]'s, block for block (a test below holds them equal).

#[cfg(test)]
use surface_analysis::audit::audit_scanned;
use surface_analysis::audit::{Audit, AuditReading, AuditWalk, LostTerms};
use surface_engine::compactions::Scan;
use surface_engine::{EventLog, Meter, Surface};

/// [`audit_scanned`] with each block's reading done beside the walk of the block before it.
pub fn audit_read_ahead(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    ratio: f64,
    scan: &Scan,
    terms: LostTerms,
) -> Audit {
    let reading = AuditReading::new(log, surface, scan, terms == LostTerms::Read);
    let mut walk = AuditWalk::new(&reading, meter, ratio, scan);
    let mut block = reading.first();
    while let Some(taken) = block {
        let (next, ()) = rayon::join(|| reading.after(&taken), || walk.take(&taken));
        block = next;
    }
    walk.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::{read, synth_bytes};
    use surface_engine::compactions::scan_compactions;
    use surface_synth::SynthConfig;

    #[test]
    fn the_audit_read_ahead_is_the_audit() {
        // Logs of several blocks (4,096 events at most each), so that replaces and the calls
        // they shadow fall on both sides of a block's end.
        for seed in 0..6 {
            let config = SynthConfig {
                seed,
                ..SynthConfig::with_events(30_000)
            };
            let log = read(synth_bytes(&config));
            let surface = Surface::at_end(&log);
            let meter = Meter::build(&log, &surface);
            let scan = scan_compactions(&log, true);
            for terms in [LostTerms::Read, LostTerms::Skipped] {
                let inline = audit_scanned(&log, &surface, &meter, 0.8, &scan, terms);
                assert!(
                    inline.replaces.len() > 1,
                    "seed {seed}: the log has replaces"
                );
                // One worker runs both halves of each join in turn; two run them side by side.
                for workers in [1, 2] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(workers)
                        .build()
                        .expect("a rayon pool");
                    let ahead = pool
                        .install(|| audit_read_ahead(&log, &surface, &meter, 0.8, &scan, terms));
                    assert_eq!(ahead, inline, "seed {seed}, {terms:?}, {workers} workers");
                }
            }
        }
    }
}
