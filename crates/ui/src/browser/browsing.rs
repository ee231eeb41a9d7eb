//! The sessions browser as the app owns it: the browser of the folder opened last (kept while
//! one of its sessions is viewed), whether it is shown, and the recently browsed folders.

use std::path::PathBuf;

use crate::browser::table::BrowserState;

/// The app's browsing state.
#[derive(Default)]
pub(crate) struct Browsing {
    /// The sessions browser of an opened folder (kept while one of its sessions is viewed).
    pub(crate) state: Option<BrowserState>,
    /// The browser is shown instead of the viewer.
    pub(crate) shown: bool,
    /// Recently browsed folders, newest first (persisted).
    pub(crate) recent_folders: Vec<PathBuf>,
}
