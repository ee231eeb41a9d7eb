//! What a document is built from: an opened session and the file as the caller named it.

use surface_engine::{EventLog, Skipped};
use surface_store::{Format, SessionInfo};

/// One opened session, as every per-session document reads it.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    /// The file as the caller named it (documents echo it in `"file"`).
    pub file: &'a str,
    /// The log.
    pub log: &'a EventLog,
    /// Its detected format.
    pub format: Format,
    /// The session read.
    pub session: &'a SessionInfo,
    /// Closers appended by a repair (0 without one).
    pub repaired: usize,
    /// The records its reader skipped (every document's `"skipped"`).
    pub skipped: &'a [Skipped],
}
