//! What the window's chrome keeps between frames: the banner (and how long a notice has been
//! shown), the native dialog being shown (and what the last one was asked for),
//! the help overlay, the title set last, whether the fonts are installed, and the start-up
//! time report.

use crate::chrome::background::Background;
use crate::chrome::banner::Banner;
use crate::ready_report::ReadyReport;
use crate::session::loader::{DialogJob, DialogPurpose};

/// The chrome's state.
pub(crate) struct Chrome {
    /// The banner under the menu bar (findings, errors, notices).
    pub(crate) banner: Option<Banner>,
    /// The notice shown and since when (input time), to clear it when it expires.
    pub(crate) notice_since: Option<(Banner, f64)>,
    /// The native file dialog, on a worker thread.
    pub(crate) dialog: Option<DialogJob>,
    /// What the last dialog was asked for (also in tests, where none opens).
    pub(crate) dialog_asked: Option<DialogPurpose>,
    /// The shortcut overlay is shown.
    pub(crate) show_help: bool,
    /// The window title set last.
    pub(crate) title: String,
    /// Whether the font fallback is installed (done on the first frame).
    pub(crate) fonts_ready: bool,
    /// The start-up time report (`SURFACE_VIEWER_REPORT_READY`).
    pub(crate) ready: ReadyReport,
    /// How the window's background is laid (cleared by the desktop window's renderer,
    /// painted where the renderer clears to transparent).
    pub(crate) background: Background,
}

impl Chrome {
    /// No banner, no dialog, fonts not installed yet.
    pub(crate) fn new() -> Self {
        Chrome {
            banner: None,
            notice_since: None,
            dialog: None,
            dialog_asked: None,
            show_help: false,
            title: String::new(),
            fonts_ready: false,
            ready: ReadyReport::from_env(),
            background: Background::Painted,
        }
    }
}

impl Chrome {
    /// Clears a notice shown for [`crate::theme::NOTICE_SECONDS`] (a new banner starts the
    /// time again); asks `ctx` for a frame when the shown one will expire.
    pub(crate) fn expire_notice(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let Some(banner) = self.banner.clone() else {
            self.notice_since = None;
            return;
        };
        let since = match &self.notice_since {
            Some((shown, since)) if *shown == banner => *since,
            _ => {
                self.notice_since = Some((banner.clone(), now));
                now
            }
        };
        if let Some(at) = crate::chrome::banner::notice_expiry(&banner, since) {
            if now >= at {
                self.banner = None;
                self.notice_since = None;
            } else {
                ctx.request_repaint_after(std::time::Duration::from_secs_f64(at - now));
            }
        }
    }
}
