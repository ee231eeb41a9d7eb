//! Who a mapping of a log is for — the command line on one file, the command line on each file
//! of a folder, a command that reads the whole log once and then a part of it (`export`), `check`
//! (which reads no streamed chunk after the read), or the desktop viewer — and what a file truncated under it does.

/// What happens when another program truncates a file the command line has mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnTruncate {
    /// The process names the file on stderr and exits 2 (a command on one file: nothing it
    /// printed afterwards could be trusted).
    Exit,
    /// The mapping reads as zeros from then on and the log says so
    /// ([`surface_engine::EventLog::text_lost`]); the reader reports that file and goes on
    /// with the others (`check DIR`).
    Report,
}

/// Who a mapping is for (`mapped_file.rs`; elsewhere than on Linux files are always read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFor {
    /// A short process (the CLI): every page kept once read; a truncation does what the
    /// [`OnTruncate`] says.
    CommandLine(OnTruncate),
    /// A short process whose later passes read only a part of the log (`export`): every page
    /// kept through the read, as for [`MapFor::CommandLine`], and let go when the command asks
    /// ([`surface_engine::EventLog::release_resident`]), after it copied out the lines its later
    /// passes read ([`surface_engine::EventLog::keep_lines`]).
    Staged(OnTruncate),
    /// `check`, a short process whose passes after the read look at every event's text but a
    /// streamed chunk's: as for [`MapFor::CommandLine`], but the pages that hold nothing but
    /// streamed-chunk lines are let go once their piece is parsed (`chunk_pages.rs`).
    Check(OnTruncate),
    /// The desktop viewer: pages faulted in as read and let go behind; a truncation turns the
    /// mapping into zeros and marks it lost.
    Viewer,
}
