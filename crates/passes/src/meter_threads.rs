//! The token meter built on every core, pipelined: the log is cut into small ranges whose
//! prices ([`Prices::read`], independent per range) the workers of a rayon pool read, while the
//! calling thread folds the priced ranges into the meter in log order ([`Meter::build_priced`],
//! the sequential part) and, whenever the next range in order is not ready, reads an unclaimed
//! range itself instead of waiting. Folding thus overlaps pricing, and no core idles while
//! there is work. The engine stays single-threaded and pure; the threads are the shell's.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use rayon::ThreadPool;
use surface_engine::meter::Prices;
use surface_engine::{EventLog, Meter, Surface};

/// Logs shorter than this are metered on one thread (a thread costs more than it saves).
const PARALLEL_FROM: usize = 20_000;

/// Ranges per thread: small enough that folding starts early and the threads finish together.
const RANGES_PER_THREAD: usize = 16;

/// The token meter of `log` (see [`Meter::build`]), its prices read on the current rayon pool
/// (the global one, a thread per core, unless called inside [`ThreadPool::install`]).
pub fn meter_of(log: &EventLog, surface: &Surface) -> Meter {
    meter_with(log, surface, None)
}

/// [`meter_of`] with its prices read on `pool`'s workers.
pub fn meter_of_in(pool: &ThreadPool, log: &EventLog, surface: &Surface) -> Meter {
    meter_with(log, surface, Some(pool))
}

/// The surface of `log` at its end and its meter (as `Surface::at_end` then [`meter_of`]),
/// the meter's prices read on the current pool's workers while this thread builds the surface
/// (the prices need only the log), then folded here: the surface's build leaves the critical
/// path of the commands that need both (`cost`, `policy`, `compare`).
pub fn surface_and_meter_of(log: &EventLog) -> (Surface, Meter) {
    let n = log.len();
    let threads = rayon::current_num_threads();
    if threads < 2 || n < PARALLEL_FROM {
        let surface = Surface::at_end(log);
        let meter = meter_with(log, &surface, None);
        return (surface, meter);
    }
    let ranges = ranges_of(n, threads);
    let work = Work::new(log, &ranges);
    rayon::in_place_scope(|scope| {
        spawn_pricers(scope, &work, threads);
        let surface = Surface::at_end(log);
        // The surface processed every event, so the ranges cover what the meter measures.
        let meter = fold(&work, &surface);
        (surface, meter)
    })
}

/// `n` events cut into [`RANGES_PER_THREAD`] ranges per thread.
fn ranges_of(n: usize, threads: usize) -> Vec<Range<usize>> {
    let count = threads * RANGES_PER_THREAD;
    (0..count)
        .map(|k| k * n / count..(k + 1) * n / count)
        .collect()
}

/// The meter priced by as many threads as `pool` (or the current pool) has: the caller,
/// which folds, and one fewer tasks spawned on the pool.
fn meter_with(log: &EventLog, surface: &Surface, pool: Option<&ThreadPool>) -> Meter {
    let n = surface.processed().min(log.len());
    let threads = pool.map_or_else(rayon::current_num_threads, ThreadPool::current_num_threads);
    if threads < 2 || n < PARALLEL_FROM {
        return Meter::build(log, surface);
    }
    let ranges = ranges_of(n, threads);
    let work = Work::new(log, &ranges);
    match pool {
        Some(pool) => pool.in_place_scope(|scope| fold_in(scope, &work, surface, threads)),
        None => rayon::in_place_scope(|scope| fold_in(scope, &work, surface, threads)),
    }
}

/// Spawns `threads - 1` pricing tasks on `scope` and folds the parts in order on this thread.
fn fold_in<'s>(
    scope: &rayon::Scope<'s>,
    work: &'s Work<'s>,
    surface: &Surface,
    threads: usize,
) -> Meter {
    spawn_pricers(scope, work, threads);
    fold(work, surface)
}

/// Spawns `threads - 1` tasks on `scope` that price ranges until none is left.
fn spawn_pricers<'s>(scope: &rayon::Scope<'s>, work: &'s Work<'s>, threads: usize) {
    for _ in 1..threads {
        scope.spawn(move |_| while work.price_one() {});
    }
}

/// The meter from the parts in order, pricing unclaimed ranges here while the next one is not
/// ready; a range whose reader panicked is read by `build_priced` itself (it reads every event
/// no part covers).
fn fold(work: &Work<'_>, surface: &Surface) -> Meter {
    let count = work.ranges.len();
    Meter::build_priced(work.log, surface, (0..count).map_while(|k| work.take(k)))
}

/// The ranges to price and the parts priced so far.
struct Work<'a> {
    log: &'a EventLog,
    ranges: &'a [Range<usize>],
    /// The next range nobody has claimed.
    next: AtomicUsize,
    /// Priced parts by range, until the fold takes them; `Err(())` marks a range whose
    /// reader panicked.
    parts: Mutex<Vec<Option<Result<Prices, ()>>>>,
    priced: Condvar,
}

impl<'a> Work<'a> {
    fn new(log: &'a EventLog, ranges: &'a [Range<usize>]) -> Self {
        Work {
            log,
            ranges,
            next: AtomicUsize::new(0),
            parts: Mutex::new(vec![None; ranges.len()]),
            priced: Condvar::new(),
        }
    }

    /// Claims and prices the next unclaimed range; false when none is left.
    fn price_one(&self) -> bool {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(range) = self.ranges.get(k) else {
            return false;
        };
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Prices::read(self.log, range.clone())
        }));
        let mut parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner);
        parts[k] = Some(read.map_err(|_| ()));
        self.priced.notify_all();
        true
    }

    /// The part of range `k`, pricing other ranges meanwhile; `None` when it cannot come
    /// (its reader panicked), which ends the parts handed to the fold.
    fn take(&self, k: usize) -> Option<Prices> {
        loop {
            let mut parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(part) = parts[k].take() {
                return part.ok();
            }
            if self.next.load(Ordering::Relaxed) < self.ranges.len() {
                drop(parts);
                self.price_one();
                continue;
            }
            // Every range is claimed and `k` is being read by another thread.
            drop(
                self.priced
                    .wait_while(parts, |parts| parts[k].is_none())
                    .unwrap_or_else(PoisonError::into_inner),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_logs::synth_log;

    #[test]
    fn the_pipelined_meter_equals_the_serial_one_on_1_2_and_8_workers() {
        let log = synth_log(60_000);
        let surface = Surface::at_end(&log);
        assert!(surface.processed().min(log.len()) >= PARALLEL_FROM);
        let serial = Meter::build(&log, &surface);
        assert!(
            log.indices().any(|i| serial.tool_calls(i) > 0),
            "messages make calls"
        );
        let same_as_serial = |meter: &Meter, what: &str| {
            assert_eq!(meter.len(), serial.len(), "{what}");
            for cursor in (0..=log.len()).step_by(97).chain([log.len()]) {
                assert_eq!(
                    meter.at(cursor),
                    serial.at(cursor),
                    "{what}, cursor {cursor}"
                );
            }
            assert_eq!(meter.steps(), serial.steps(), "{what}");
            for idx in log.indices() {
                assert_eq!(
                    meter.tool_calls(idx),
                    serial.tool_calls(idx),
                    "{what}, {idx:?}"
                );
            }
        };
        for workers in [1, 2, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let piped = meter_of_in(&pool, &log, &surface);
            same_as_serial(&piped, &format!("piped, {workers} workers"));
            let (surface_too, overlapped) = pool.install(|| surface_and_meter_of(&log));
            assert_eq!(surface_too.processed(), surface.processed());
            assert!(surface_too.nodes().eq(surface.nodes()));
            same_as_serial(
                &overlapped,
                &format!("beside the surface, {workers} workers"),
            );
        }
    }
}
