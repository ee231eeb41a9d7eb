//! `check` on two cores: the turn/message pass beside the other passes and the building of
//! the surface, as the two halves of a `rayon::join` (the same findings in the same order).

use rayon::ThreadPool;
use surface_engine::{
    CheckReport, EventLog, Surface, check_report, check_report_and_surface_joined,
};

/// Logs shorter than this are checked on one thread.
const CHECK_PARALLEL_FROM: usize = 20_000;

/// [`surface_engine::check_report`] of the log at its end, and that surface: the turn/message
/// pass runs beside the other passes and the building of the surface on the current rayon
/// pool (the global one unless called inside [`ThreadPool::install`]); the same findings in
/// the same order, the engine staying single-threaded.
pub fn check_report_of(log: &EventLog) -> (CheckReport, Surface) {
    if rayon::current_num_threads() < 2 || log.len() < CHECK_PARALLEL_FROM {
        let surface = Surface::at_end(log);
        return (check_report(log, &surface), surface);
    }
    check_report_and_surface_joined(log, rayon::join)
}

/// [`check_report_of`] on `pool`.
pub fn check_report_of_in(pool: &ThreadPool, log: &EventLog) -> (CheckReport, Surface) {
    pool.install(|| check_report_of(log))
}
