//! `SURFACE_VIEWER_REPORT_READY=1`: print to stderr how long after start the first frame with
//! the loaded session (timeline and surface) was on screen, then exit. Used by
//! `benches/gui_ready.sh` to time start-up; off (and free) otherwise.

use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns the report on.
pub const REPORT_READY_VAR: &str = "SURFACE_VIEWER_REPORT_READY";

static START: OnceLock<Instant> = OnceLock::new();

/// Records the start instant (the first call wins); `run` calls it before opening the window.
pub fn mark_start() {
    START.get_or_init(Instant::now);
}

/// Whether the report is on (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os(REPORT_READY_VAR).is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// Milliseconds since [`mark_start`].
fn since_start_ms() -> f64 {
    START.get().map_or(0.0, |s| s.elapsed().as_secs_f64() * 1e3)
}

/// When the report is on, prints `what` with the time since start (start-up profile).
pub fn note(what: &str) {
    if enabled() {
        eprintln!("surface-viewer: {what} at_ms={:.1}", since_start_ms());
    }
}

/// The report's state: whether it is on, and whether a frame with the session was drawn.
#[derive(Debug, Default)]
pub struct ReadyReport {
    enabled: bool,
    drawn: bool,
}

impl ReadyReport {
    /// On when [`REPORT_READY_VAR`] is set to anything but `0` or empty.
    pub fn from_env() -> Self {
        ReadyReport {
            enabled: enabled(),
            drawn: false,
        }
    }

    /// Called at the start of a frame: when the previous frame drew the session, that frame
    /// has been presented, so the time is printed and the process exits.
    pub fn frame_start(&self) {
        if self.enabled && self.drawn {
            eprintln!("surface-viewer: ready_ms={:.1}", since_start_ms());
            std::process::exit(0);
        }
    }

    /// Called after the panels were laid out: `session_drawn` is true when this frame showed
    /// a loaded session. Asks for one more frame so that [`ReadyReport::frame_start`] runs.
    pub fn frame_end(&mut self, ctx: &egui::Context, session_drawn: bool) {
        if self.enabled && session_drawn && !self.drawn {
            self.drawn = true;
            ctx.request_repaint();
        }
    }
}
