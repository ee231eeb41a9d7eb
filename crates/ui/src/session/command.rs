//! The commands about the open file: open, reload with another session, cancel, follow, and
//! the analysis landing — applied by [`crate::session::apply`].

use std::path::PathBuf;

use crate::session::analysis::Parcel;

/// A command about the open file.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionCommand {
    /// Open a file (in the background); a folder opens the sessions browser.
    Open(PathBuf),
    /// Show the native open dialog (on a worker thread).
    OpenDialog,
    /// Open the bundled sample.
    OpenSample,
    /// Re-open the current file with another session of a SQLite file.
    PickSession(String),
    /// Cancel the load in progress.
    CancelLoad,
    /// Forget the recent-files list.
    ClearRecent,
    /// Start or stop following the open file live (starting re-reads it once).
    ToggleFollow,
    /// The loader finished the findings and the token meter of a load: apply them to its
    /// session (ignored when another log was opened since).
    AnalysisLanded(Parcel),
}
