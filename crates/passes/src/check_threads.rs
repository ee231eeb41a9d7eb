//! `check` on two cores: the turn/message pass on a second thread, beside the other passes
//! and the building of the surface (the same findings in the same order).

use surface_engine::{
    CheckReport, EventLog, Surface, check_report, check_report_and_surface_joined,
};

/// Logs shorter than this are checked on one thread.
const CHECK_PARALLEL_FROM: usize = 20_000;

/// [`surface_engine::check_report`] of the log at its end, and that surface: the turn/message
/// pass runs on a second thread, beside the other passes and the building of the surface
/// (the same findings in the same order; the engine stays single-threaded).
pub fn check_report_of(log: &EventLog) -> (CheckReport, Surface) {
    let two_cores = std::thread::available_parallelism().is_ok_and(|p| p.get() >= 2);
    if !two_cores || log.len() < CHECK_PARALLEL_FROM {
        let surface = Surface::at_end(log);
        return (check_report(log, &surface), surface);
    }
    check_report_and_surface_joined(log, |turns, rest| {
        std::thread::scope(|scope| {
            let turns = scope.spawn(turns);
            let rest = rest();
            let turns = turns
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (turns, rest)
        })
    })
}
