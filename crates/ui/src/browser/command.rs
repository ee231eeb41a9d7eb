//! The sessions browser's commands — applied by [`crate::browser::mode`].

use std::path::PathBuf;

use crate::browser::rows::Column;

/// A command of the sessions browser.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowserCommand {
    /// Browse every session under a folder (in the background).
    OpenFolder(PathBuf),
    /// Show the native folder picker (on a worker thread).
    OpenFolderDialog,
    /// Open one session found by the browser (`session` picks it in a SQLite file).
    OpenSessionOf {
        /// The file.
        file: PathBuf,
        /// The session id, for a file holding several.
        session: Option<String>,
    },
    /// Back from a session to the sessions browser.
    BackToSessions,
    /// Sort the sessions by a column (again: the other way round).
    SortSessions(Column),
    /// Show or hide the forks of a row of the sessions browser.
    ToggleSessionForks(usize),
    /// Select a row of the sessions browser.
    SelectSessionRow(usize),
    /// Move the browser's selection by this many lines.
    MoveSessionSelection(isize),
    /// Open the session selected in the browser.
    OpenSelectedSession,
    /// Forget the recent-folders list.
    ClearRecentFolders,
    /// Ask where to export the browsed folder (the native dialog, on a worker thread).
    ExportFolderDialog,
    /// Export the browsed folder to this new folder, in the background.
    ExportFolderTo(PathBuf),
}
