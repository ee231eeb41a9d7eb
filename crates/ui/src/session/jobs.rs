//! The background work of the open session, owned by the app: the load in progress, its
//! analysis (findings and meter), the live follower, and how jobs run (threads in a window,
//! synchronously in tests).

use egui::Context;

use crate::session::analysis::Parcel;
use crate::session::follow_state::FollowState;
use crate::session::loader::LoadJob;

/// The session's background jobs.
pub(crate) struct Jobs {
    /// The load in progress.
    pub(crate) load: Option<LoadJob>,
    /// The load whose session is shown, while its findings and meter are computed.
    pub(crate) analysis: Option<LoadJob>,
    /// Tests: a synchronous load's analysis, held back until
    /// [`crate::ViewerApp::release_analysis`].
    pub(crate) held_analysis: Option<Parcel>,
    /// Tests: hold back the analysis of the next synchronous load.
    pub(crate) hold_analysis: bool,
    /// The session's first frame was drawn: let its analysis start at the next frame.
    pub(crate) start_analysis_next: bool,
    /// Why the current load was started when it reopens a file that shrank under the viewer
    /// (shown once that load lands).
    pub(crate) reopen_notice: Option<String>,
    /// The cursor and selection to keep when the current load reopens the file shown (a
    /// followed file that was truncated or replaced): clamped to the new log's end.
    pub(crate) keep_place: Option<(usize, Option<surface_engine::EventIdx>)>,
    /// Open files with a live follower (`--follow`, or the Follow toggle).
    pub(crate) follow_requested: bool,
    /// The live follower of the open log.
    pub(crate) follow: Option<FollowState>,
    /// Load synchronously and never touch persistent storage (tests).
    pub(crate) synchronous: bool,
    /// Woken by background work (loader, file watcher); `None` in tests.
    pub(crate) repaint: Option<Context>,
}

impl Jobs {
    /// No job running; `synchronous` in tests.
    pub(crate) fn new(synchronous: bool) -> Self {
        Jobs {
            load: None,
            analysis: None,
            held_analysis: None,
            hold_analysis: false,
            start_analysis_next: false,
            reopen_notice: None,
            keep_place: None,
            follow_requested: false,
            follow: None,
            synchronous,
            repaint: None,
        }
    }
}
