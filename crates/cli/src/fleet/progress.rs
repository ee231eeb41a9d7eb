//! A progress bar on stderr while a folder's sessions are read — only when stderr is a
//! terminal (a pipe or a file gets nothing), redrawn at most ten times a second and erased
//! when the work ends, so that the report on stdout is all that stays. No dependency: a
//! carriage return and an erase-line sequence are all it takes.

use std::io::{IsTerminal as _, Write as _};
use std::time::{Duration, Instant};

/// Width of the bar in characters.
const WIDTH: usize = 30;
/// The least time between two redraws.
const EVERY: Duration = Duration::from_millis(100);

/// Sessions done out of a total, drawn on stderr.
pub struct Progress {
    label: &'static str,
    total: usize,
    done: usize,
    shown: bool,
    drawn: Option<Instant>,
}

impl Progress {
    /// A bar for `total` sessions, drawn only when stderr is a terminal.
    pub fn new(label: &'static str, total: usize) -> Progress {
        Progress::to(label, total, std::io::stderr().is_terminal() && total > 0)
    }

    fn to(label: &'static str, total: usize, shown: bool) -> Progress {
        let mut p = Progress {
            label,
            total,
            done: 0,
            shown,
            drawn: None,
        };
        p.draw();
        p
    }

    /// One more session done.
    pub fn tick(&mut self) {
        self.done = (self.done + 1).min(self.total);
        if self.drawn.is_none_or(|t| t.elapsed() >= EVERY) || self.done == self.total {
            self.draw();
        }
    }

    /// The bar as drawn now.
    fn line(&self) -> String {
        let filled = (self.done * WIDTH).checked_div(self.total).unwrap_or(0);
        format!(
            "{} [{}{}] {}/{} sessions",
            self.label,
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            self.done,
            self.total
        )
    }

    fn draw(&mut self) {
        if !self.shown {
            return;
        }
        self.drawn = Some(Instant::now());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", self.line());
        let _ = err.flush();
    }

    /// Writes `line` on stderr above the bar (the bar is drawn again below it).
    pub fn say(&mut self, line: &str) {
        let mut err = std::io::stderr().lock();
        let erase = if self.shown { "\r\x1b[2K" } else { "" };
        let _ = writeln!(err, "{erase}{line}");
        drop(err);
        self.draw();
    }

    /// Erases the bar.
    pub fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_sessions_done() {
        let mut p = Progress::to("policy", 4, false);
        assert_eq!(
            p.line(),
            format!("policy [{}] 0/4 sessions", " ".repeat(WIDTH))
        );
        p.tick();
        p.tick();
        assert!(
            p.line()
                .starts_with(&format!("policy [{}{}]", "#".repeat(15), " ".repeat(15)))
        );
        for _ in 0..5 {
            p.tick();
        }
        assert!(p.line().ends_with("] 4/4 sessions"), "{}", p.line());
        assert!(p.drawn.is_none(), "never drawn when not shown");
        assert!(Progress::to("cost", 0, false).line().contains("0/0"));
    }
}
