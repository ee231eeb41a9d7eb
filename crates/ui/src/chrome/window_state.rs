//! What the window's chrome keeps between frames: the banner, the native dialog being shown,
//! the help overlay, the title set last, whether the fonts are installed, and the start-up
//! time report.

use crate::chrome::banner::Banner;
use crate::ready_report::ReadyReport;
use crate::session::loader::DialogJob;

/// The chrome's state.
pub(crate) struct Chrome {
    /// The banner under the menu bar (findings, errors, notices).
    pub(crate) banner: Option<Banner>,
    /// The native file dialog, on a worker thread.
    pub(crate) dialog: Option<DialogJob>,
    /// The shortcut overlay is shown.
    pub(crate) show_help: bool,
    /// The window title set last.
    pub(crate) title: String,
    /// Whether the font fallback is installed (done on the first frame).
    pub(crate) fonts_ready: bool,
    /// The start-up time report (`SURFACE_VIEWER_REPORT_READY`).
    pub(crate) ready: ReadyReport,
}

impl Chrome {
    /// No banner, no dialog, fonts not installed yet.
    pub(crate) fn new() -> Self {
        Chrome {
            banner: None,
            dialog: None,
            show_help: false,
            title: String::new(),
            fonts_ready: false,
            ready: ReadyReport::from_env(),
        }
    }
}
