//! What the session indexes from the log's records alone (replace ops, the first time, the
//! era, the time column) and the file's identity, built on the loader's thread beside the
//! surface ([`surface_and_indexes`]): the window's thread, idle while the file is read, then
//! spends none of its first frame on them.

use std::path::Path;

use surface_engine::time_column::TimeColumn;
use surface_engine::{EraGuess, EventIdx, EventLog, Surface, SurfaceOp, detect_era};
use surface_store::FileIdentity;

/// What the session indexes from the log's records alone.
#[derive(Debug)]
pub struct Indexes {
    /// The replace ops, in log order.
    pub replace_ops: Vec<EventIdx>,
    /// The first event time, if any.
    pub t0: Option<i64>,
    /// The harness era the log was written in, and why.
    pub era: EraGuess,
    /// Each event's time, for the time axis.
    pub time: TimeColumn,
    /// The identity of the file the window watches, as it was read (`None`: nothing watched).
    pub identity: Option<FileIdentity>,
}

impl Indexes {
    /// Indexes `log`; `watched` is the file the window watches (`None`: none).
    pub fn build(log: &EventLog, watched: Option<&Path>) -> Indexes {
        let identity = watched.and_then(FileIdentity::of);
        Indexes {
            replace_ops: log
                .indices()
                .filter(|&i| matches!(log.op(i), SurfaceOp::Replace { .. }))
                .collect(),
            t0: log.events.iter().find_map(|e| e.time().filter(|&t| t > 0)),
            era: detect_era(log),
            time: TimeColumn::build(log),
            identity,
        }
    }
}

/// The surface at the end of `log` and its [`Indexes`], the indexes on a second thread (on
/// this one when no thread can start).
pub fn surface_and_indexes(log: &EventLog, watched: Option<&Path>) -> (Surface, Indexes) {
    std::thread::scope(|scope| {
        let beside = std::thread::Builder::new()
            .name("surface-viewer-index".into())
            .spawn_scoped(scope, || Indexes::build(log, watched));
        let surface = Surface::at_end(log);
        let indexes = beside
            .ok()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(|| Indexes::build(log, watched));
        (surface, indexes)
    })
}
