//! One run of a comparison analysed on two workers: the audit without lost terms and the
//! ledger of model calls need nothing of each other, so they are built side by side and then
//! read into the run's figures ([`analyse_parts`]) — the same [`Analysed`] as
//! [`surface_analysis::compare::analyse`]. The first divergence of two runs is walked over the
//! pool in ranges ([`first_split_of`]), beside both runs' analyses ([`compared_runs_of`]).

use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use surface_analysis::audit::{LostTerms, audit_scanned};
use surface_analysis::compare::{
    Analysed, Split, analyse_parts, end_split, first_split, first_split_in, shared_len,
};
use surface_analysis::cost::{BreakTotals, Ledger, PriceTable, cache_breaks, parts_with};
use surface_engine::compactions::{Scan, scan_compactions};
use surface_engine::{EventLog, Meter, Surface};

use super::ledger_threads::surface_meter_and_scan_of;

/// [`surface_analysis::compare::analyse`] with its audit and ledger built side by side on the
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

/// Pairs below this are walked on one thread (a task costs more than it saves).
const SPLIT_PARALLEL_FROM: usize = 20_000;

/// Ranges of pairs per thread: the first divergence found early stops the later ranges, and
/// the ranges walked meanwhile stay short.
const SPLIT_RANGES_PER_THREAD: usize = 8;

/// [`surface_analysis::compare::first_split`] with the pairs cut into ranges walked on the
/// current rayon pool; the first range (in log order) with a divergence gives it, and ranges
/// after it are abandoned once it is known.
pub fn first_split_of(a: &EventLog, b: &EventLog) -> Option<Split> {
    let shared = shared_len(a, b);
    let threads = rayon::current_num_threads();
    if threads < 2 || shared < SPLIT_PARALLEL_FROM {
        return first_split(a, b);
    }
    let count = threads * SPLIT_RANGES_PER_THREAD;
    (0..count)
        .into_par_iter()
        .with_max_len(1)
        .find_map_first(|k| first_split_in(a, b, k * shared / count..(k + 1) * shared / count))
        .or_else(|| end_split(a, b))
}

/// Two runs made ready for [`surface_analysis::compare::compare_split`]: each one's
/// [`analysis_of`] and their [`first_split_of`], all three on the current rayon pool at once —
/// the walk for the divergence needs neither analysis, and fills the cores wherever one
/// analysis waits on its last part.
pub fn compared_runs_of(
    a: &EventLog,
    b: &EventLog,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> (Analysed, Analysed, Option<Split>) {
    let ((analysed_a, analysed_b), split) = rayon::join(
        || {
            rayon::join(
                || analysis_of(a, ratio, prices),
                || analysis_of(b, ratio, prices),
            )
        },
        || first_split_of(a, b),
    );
    (analysed_a, analysed_b, split)
}

fn analyse_scanned(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> Analysed {
    let (audit, (ledger, cache_misses)) = rayon::join(
        || audit_scanned(log, surface, meter, ratio, scan, LostTerms::Skipped),
        || {
            let parts = parts_with(log, surface, meter, scan);
            let breaks = cache_breaks(log, surface, meter, &parts);
            (
                Ledger::build(&parts, prices),
                BreakTotals::of(&breaks, &parts.routes, prices),
            )
        },
    );
    analyse_parts(log, meter, &audit, &ledger, cache_misses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::{read, synth_bytes, synth_log};
    use surface_synth::SynthConfig;

    #[test]
    fn side_by_side_gives_the_engines_analysis() {
        let log = synth_log(30_000);
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let serial = surface_analysis::compare::analyse(&log, &surface, &meter, 0.8, None);
        assert!(serial.total.agent_calls > 0);
        assert_eq!(analyse_of(&log, &surface, &meter, 0.8, None), serial);
        assert_eq!(analysis_of(&log, 0.8, None), serial);
        let (a, b, split) = compared_runs_of(&log, &log, 0.8, None);
        assert_eq!((a, split), (serial.clone(), None));
        assert_eq!(b, serial);
    }

    #[test]
    fn the_split_walked_in_ranges_is_the_serial_one() {
        let bytes_of = |events: u64, seed: u64| {
            synth_bytes(&SynthConfig {
                seed,
                ..SynthConfig::with_events(events)
            })
        };
        let log_of = read;
        let a = log_of(bytes_of(40_000, 1));
        let other = log_of(bytes_of(40_000, 2));
        let shorter = log_of(bytes_of(30_000, 1));
        // One line late in A changed: the divergence lies in a late range.
        let text = String::from_utf8(bytes_of(40_000, 1)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let late = lines.len() * 7 / 8;
        let changed: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if i == late {
                    l.replacen("\"data\":{", "\"data\":{\"edited\":true,", 1)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let edited = log_of(changed.into_bytes());
        for workers in [1, 2, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            for (x, y) in [
                (&a, &a),
                (&a, &other),
                (&a, &shorter),
                (&shorter, &a),
                (&a, &edited),
            ] {
                let serial = first_split(x, y);
                assert_eq!(
                    pool.install(|| first_split_of(x, y)),
                    serial,
                    "{workers} workers"
                );
            }
        }
        let late_split = first_split(&a, &edited).expect("the edited line differs");
        assert!(late_split.index > 20_000, "{late_split:?}");
        assert_eq!(first_split(&a, &a), None);
        assert!(matches!(
            first_split(&a, &shorter).map(|s| s.kind),
            Some(surface_analysis::compare::DivergenceKind::BEnded)
        ));
    }
}
