//! The Tune view's commands — applied by [`crate::tune::apply`].

use std::path::PathBuf;

use surface_analysis::policy::PolicySettings;

use crate::tune::columns::TuneColumn;

/// Which Tune view a command is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneTarget {
    /// The Tune tab, over the open log.
    Log,
    /// The sessions browser's folder.
    Folder,
}

/// A command of a Tune view.
#[derive(Clone, Debug, PartialEq)]
pub enum TuneCommand {
    /// Sweep the form's grid (in the background); refused while the form does not read.
    Run(TuneTarget),
    /// Stop the sweep running (it says cancelled, and shows no result).
    Cancel(TuneTarget),
    /// Sort the table by a column (again: the other way round).
    Sort(TuneTarget, TuneColumn),
    /// Select a row of the table (an index into the sweep's rows).
    Select(TuneTarget, usize),
    /// Open the Policy tab's what-if with this setting.
    OpenWhatIf(PolicySettings),
    /// Open a session of the browsed folder with the Policy tab's what-if at this setting.
    OpenSessionWhatIf {
        /// The session's file.
        file: PathBuf,
        /// The session, in a file of several.
        session: Option<String>,
        /// The setting.
        settings: PolicySettings,
    },
    /// Show the browser's folder tune (true) or its sessions (false).
    ShowFolderTune(bool),
    /// Show the open log's Tune view across the window (true) or in its side tab (false).
    WideLogTune(bool),
}
