//! Opening the input of a command: store + optional repair closers + the surface at a cursor,
//! and `check`'s findings on two cores (shared with the desktop viewer's loader). Commands
//! map a large JSONL log instead of copying it (`store::open_mapped`); the desktop viewer
//! maps it its own way (`store::open_for_viewer`, `ui/loader.rs`).

use anyhow::Context as _;

use super::Input;
use crate::engine::{
    CheckReport, EventLog, Surface, apply_closers, check_report_and_surface_joined, closers,
};
use crate::store::{self, Format, SessionInfo};

/// A log ready for a command.
pub struct Loaded {
    /// The log (with repair closers appended when asked).
    pub log: EventLog,
    /// Detected format.
    pub format: Format,
    /// The session read.
    pub session: SessionInfo,
    /// Number of closers appended by `--repair`.
    pub repaired: usize,
}

/// Opens `input`, appending repair closers when `repair` is set. A large JSONL file is mapped,
/// not copied ([`store::open_mapped`]): a command reads its log once and exits. Repair closers
/// are synthesized events (`EventLog::synthesized`), so the mapped text stays as it is.
pub fn load(input: &Input, repair: bool) -> anyhow::Result<Loaded> {
    let opened = store::open_mapped(&input.file, input.session.as_deref())?;
    let mut log = opened.log;
    let mut repaired = 0;
    if repair {
        let c = closers(&log);
        repaired = c.len();
        apply_closers(&mut log, &c);
    }
    Ok(Loaded {
        log,
        format: opened.format,
        session: opened.session,
        repaired,
    })
}

impl Loaded {
    /// The surface at `at` (or the end).
    pub fn surface_at(&self, at: Option<u64>) -> Surface {
        Surface::at_seq(&self.log, at)
    }
}

/// "at the end" or "at seq N", for human output.
pub fn describe_cursor(at: Option<u64>) -> String {
    at.map_or_else(|| "at the end".to_string(), |s| format!("at seq {s}"))
}

/// Context for errors while writing output.
pub fn write_context<T>(r: std::io::Result<T>) -> anyhow::Result<T> {
    r.context("cannot write to stdout")
}

/// Logs shorter than this are checked on one thread.
const CHECK_PARALLEL_FROM: usize = 20_000;

/// [`crate::engine::check_report`] of the log at its end, and that surface: the turn/message
/// pass runs on a second thread, beside the other passes and the building of the surface
/// (the same findings in the same order; the engine stays single-threaded).
pub fn check_report_of(log: &EventLog) -> (CheckReport, Surface) {
    let two_cores = std::thread::available_parallelism().is_ok_and(|p| p.get() >= 2);
    if !two_cores || log.len() < CHECK_PARALLEL_FROM {
        let surface = Surface::at_end(log);
        return (crate::engine::check_report(log, &surface), surface);
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
