//! How [`crate::open`] reads a session file: which session, the progress to report, the
//! limits, and whether a large JSONL file is copied or mapped (with what a truncation under
//! the mapping does).

use crate::{LoadProgress, ReadLimits};

/// What happens when another program truncates a file that is mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnTruncate {
    /// The process names the file on stderr and exits 2 (a command on one file: nothing it
    /// printed afterwards could be trusted).
    Exit,
    /// The mapping reads as zeros from then on and the log says so
    /// ([`surface_engine::EventLog::text_lost`]); the caller reports that file and goes on
    /// (`check DIR`, an export, the viewer, which reopens it).
    Report,
}

/// How the bytes of a JSONL file get into memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reading {
    /// An owned copy: what live follow appends to, and a file rewritten while it is shown
    /// cannot change.
    #[default]
    Copy,
    /// Mapped read-only when the file is large enough (Linux, once the program has called
    /// [`crate::install_map_guard`]; otherwise copied; see `mapped_file.rs`): the log's text
    /// shares the page cache's pages. Zstandard and SQLite files decode into owned text.
    Map(OnTruncate),
}

/// The options of [`crate::open`]; `Options::default()` reads a copy of the only (or newest)
/// session within the default limits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// The session to read in a SQLite file (`None`: the only one, else the newest); a JSONL
    /// file whose session has another id is [`crate::StoreError::UnknownSession`].
    pub session: Option<&'a str>,
    /// Progress to report, and the cancellation to honour.
    pub progress: Option<&'a LoadProgress>,
    /// The limits the file is held to.
    pub limits: ReadLimits,
    /// Copied or mapped.
    pub reading: Reading,
}
