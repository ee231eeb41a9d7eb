//! `SURFACE_VIEWER_REPORT_READY=1`: print to stderr how long after start the first frame with
//! the loaded session (timeline and surface) was on screen, then exit. Used by
//! `benches/gui_ready.sh` to time start-up; off (and free) otherwise. With the value
//! `complete` the app prints that time and goes on until the findings, the token meter and the
//! strip's compaction audit landed too, prints `complete_ms=…` and exits then (so that peak
//! memory measured around the run includes everything a loaded log costs). Every `at_ms` mark
//! also names the process's peak and current resident memory, where the system tells them.

use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns the report on.
pub const REPORT_READY_VAR: &str = "SURFACE_VIEWER_REPORT_READY";

static START: OnceLock<Instant> = OnceLock::new();

/// What the report waits for before the process exits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// No report.
    #[default]
    Off,
    /// Exit after the first frame with the session.
    Ready,
    /// Exit once the findings, the meter and the audit landed as well.
    Complete,
}

impl Mode {
    /// The mode a value of [`REPORT_READY_VAR`] asks for.
    pub fn parse(value: Option<&std::ffi::OsStr>) -> Mode {
        match value {
            None => Mode::Off,
            Some(v) if v.is_empty() || v == "0" => Mode::Off,
            Some(v) if v == "complete" => Mode::Complete,
            Some(_) => Mode::Ready,
        }
    }
}

/// Records the start instant (the first call wins); `run` calls it before opening the window.
pub fn mark_start() {
    START.get_or_init(Instant::now);
}

/// The mode (read once).
pub fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| Mode::parse(std::env::var_os(REPORT_READY_VAR).as_deref()))
}

/// Whether the report is on.
pub fn enabled() -> bool {
    mode() != Mode::Off
}

/// Milliseconds since [`mark_start`].
fn since_start_ms() -> f64 {
    START.get().map_or(0.0, |s| s.elapsed().as_secs_f64() * 1e3)
}

/// ` hwm_kb=… rss_kb=…` from `/proc/self/status` (empty where there is none).
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    memory_of(&status)
}

/// The peak and current resident set sizes of a `/proc/<pid>/status` text.
fn memory_of(status: &str) -> String {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string)
    };
    match (field("VmHWM:"), field("VmRSS:")) {
        (Some(hwm), Some(rss)) => format!(" hwm_kb={hwm} rss_kb={rss}"),
        _ => String::new(),
    }
}

/// When the report is on, prints `what` with the time since start and the memory so far
/// (start-up profile).
pub fn note(what: &str) {
    if enabled() {
        eprintln!(
            "surface-viewer: {what} at_ms={:.1}{}",
            since_start_ms(),
            memory()
        );
    }
}

/// The report's state: its mode, and what was drawn so far.
#[derive(Debug, Default)]
pub struct ReadyReport {
    mode: Mode,
    /// A frame with the session was laid out.
    drawn: bool,
    /// `ready_ms` was printed.
    reported: bool,
    /// A frame with everything landed was laid out.
    complete: bool,
}

impl ReadyReport {
    /// From [`REPORT_READY_VAR`].
    pub fn from_env() -> Self {
        ReadyReport {
            mode: mode(),
            ..Default::default()
        }
    }

    /// Called at the start of a frame: when the previous frame drew the session, that frame
    /// has been presented, so the time is printed and (mode [`Mode::Ready`]) the process
    /// exits; in mode [`Mode::Complete`] it exits after the frame that had everything.
    pub fn frame_start(&mut self) {
        if self.mode == Mode::Off {
            return;
        }
        if self.drawn && !self.reported {
            self.reported = true;
            note("first frame on screen");
            eprintln!("surface-viewer: ready_ms={:.1}", since_start_ms());
            if self.mode == Mode::Ready {
                std::process::exit(0);
            }
        }
        if self.complete && self.reported {
            note("everything on screen");
            eprintln!("surface-viewer: complete_ms={:.1}", since_start_ms());
            std::process::exit(0);
        }
    }

    /// Called after the panels were laid out: `session_drawn` is true when this frame showed
    /// a loaded session, `everything` when its findings, meter and audit had landed too. Asks
    /// for one more frame so that [`ReadyReport::frame_start`] runs.
    pub fn frame_end(&mut self, ctx: &egui::Context, session_drawn: bool, everything: bool) {
        if self.mode == Mode::Off || !session_drawn {
            return;
        }
        if !self.drawn {
            self.drawn = true;
            ctx.request_repaint();
        }
        if self.mode == Mode::Complete && everything && !self.complete {
            self.complete = true;
            ctx.request_repaint();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_memory() {
        assert_eq!(Mode::parse(None), Mode::Off);
        assert_eq!(Mode::parse(Some("0".as_ref())), Mode::Off);
        assert_eq!(Mode::parse(Some("".as_ref())), Mode::Off);
        assert_eq!(Mode::parse(Some("1".as_ref())), Mode::Ready);
        assert_eq!(Mode::parse(Some("complete".as_ref())), Mode::Complete);
        let status = "Name:\tx\nVmHWM:\t  474108 kB\nVmRSS:\t  401000 kB\n";
        assert_eq!(memory_of(status), " hwm_kb=474108 rss_kb=401000");
        assert_eq!(memory_of("Name:\tx\n"), "");
    }
}
