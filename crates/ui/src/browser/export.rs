//! "Export this folder…": the app's own binary run as a child process,
//! `surface-viewer export ROOT --to OUT`, in the background — the export's session-to-tables
//! code stays in the command-line crate, which the UI never links (docs/gui.md says why). Its
//! progress comes from the child's stderr (`exporting: N/M sessions`, asked for with
//! `SURFACE_VIEWER_PROGRESS=1` since stderr is a pipe), its outcome from its exit status and
//! the summary it prints last. An OUT that exists is refused before anything runs, as the
//! command line refuses it.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What the export reports.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportEvent {
    /// Sessions exported so far, of how many.
    Progress(usize, usize),
    /// The child ended.
    Finished(ExportOutcome),
}

/// How the export ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportOutcome {
    /// The folder written.
    pub out: PathBuf,
    /// Exit 0 (everything) or 1 (some sessions unreadable, the others written).
    pub success: bool,
    /// The last line of stdout (the summary) or of stderr (the error).
    pub message: String,
}

impl ExportOutcome {
    /// The notice's text, naming OUT.
    pub fn notice(&self) -> String {
        if self.success {
            format!("Exported to {}: {}", self.out.display(), self.message)
        } else {
            format!(
                "The export to {} failed: {}",
                self.out.display(),
                self.message
            )
        }
    }
}

/// An export running in a child process.
pub struct ExportJob {
    /// The folder being written.
    pub out: PathBuf,
    /// Sessions exported so far, of how many (`None` until the first report).
    pub progress: Option<(usize, usize)>,
    rx: Receiver<ExportEvent>,
}

/// The folder the dialog suggests: `<root>-export` beside the browsed folder.
pub fn suggested_out(root: &Path) -> PathBuf {
    let name = root
        .file_name()
        .map_or_else(|| "sessions".into(), |n| n.to_string_lossy().into_owned());
    root.with_file_name(format!("{name}-export"))
}

/// Why an export could not start.
pub fn refuse(out: &Path) -> Option<String> {
    std::fs::symlink_metadata(out).is_ok().then(|| {
        format!(
            "{} already exists: the export writes a new folder (choose a name that does not exist)",
            out.display()
        )
    })
}

impl ExportJob {
    /// Starts `program export ROOT --to OUT`; `Err` when OUT exists or the child cannot start.
    pub fn spawn(
        program: &Path,
        root: &Path,
        out: PathBuf,
        ctx: Option<egui::Context>,
    ) -> Result<Self, String> {
        if let Some(why) = refuse(&out) {
            return Err(why);
        }
        let mut child = Command::new(program)
            .arg("export")
            .arg(root)
            .arg("--to")
            .arg(&out)
            .env("SURFACE_VIEWER_PROGRESS", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {} export: {e}", program.display()))?;
        let (tx, rx) = channel();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let worker_out = out.clone();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-export".into())
            .spawn(move || {
                let repaint = || {
                    if let Some(ctx) = &ctx {
                        ctx.request_repaint();
                    }
                };
                let reader = stdout.map(|mut s| {
                    std::thread::spawn(move || {
                        let mut text = String::new();
                        let _ = s.read_to_string(&mut text);
                        text
                    })
                });
                let errors = stderr.map_or_else(String::new, |s| {
                    read_progress(s, |done, total| {
                        let _ = tx.send(ExportEvent::Progress(done, total));
                        repaint();
                    })
                });
                let printed = reader.and_then(|r| r.join().ok()).unwrap_or_default();
                let status = child.wait();
                let success = status
                    .as_ref()
                    .is_ok_and(|s| matches!(s.code(), Some(0 | 1)));
                let last = |t: &str| {
                    t.lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .map(str::to_string)
                };
                let message = if success {
                    last(&printed).unwrap_or_else(|| "done".to_string())
                } else {
                    last(&errors).unwrap_or_else(|| match &status {
                        Ok(s) => format!("the export ended with {s}"),
                        Err(e) => e.to_string(),
                    })
                };
                let _ = tx.send(ExportEvent::Finished(ExportOutcome {
                    out: worker_out,
                    success,
                    message,
                }));
                repaint();
            });
        spawned.map_err(|e| format!("cannot start the export thread: {e}"))?;
        Ok(ExportJob {
            out,
            progress: None,
            rx,
        })
    }

    /// Takes the reports that arrived; the outcome once the child ended.
    pub fn poll(&mut self) -> Option<ExportOutcome> {
        loop {
            match self.rx.try_recv() {
                Ok(ExportEvent::Progress(done, total)) => self.progress = Some((done, total)),
                Ok(ExportEvent::Finished(outcome)) => return Some(outcome),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    return Some(ExportOutcome {
                        out: self.out.clone(),
                        success: false,
                        message: "the export's worker stopped".to_string(),
                    });
                }
            }
        }
    }

    /// Waits for the outcome (tests).
    pub fn wait(mut self) -> ExportOutcome {
        loop {
            if let Some(outcome) = self.poll() {
                return outcome;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Reads the child's stderr to its end, calling `progress` for each `exporting: N/M` report
/// (they are separated by `\r`); returns the other text.
fn read_progress(mut stderr: impl std::io::Read, mut progress: impl FnMut(usize, usize)) -> String {
    let mut other = String::new();
    let mut pending = Vec::new();
    let mut buf = [0u8; 4096];
    let mut take = |piece: &[u8], other: &mut String| {
        let text = String::from_utf8_lossy(piece);
        let text = text.trim_start_matches("\x1b[K");
        match parse_progress(text) {
            Some((done, total)) => progress(done, total),
            None if !text.trim().is_empty() => {
                other.push_str(text);
                other.push('\n');
            }
            None => {}
        }
    };
    loop {
        let n = match stderr.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        while let Some(at) = pending.iter().position(|&b| b == b'\r' || b == b'\n') {
            let piece: Vec<u8> = pending.drain(..=at).collect();
            take(&piece[..piece.len() - 1], &mut other);
        }
    }
    take(&pending, &mut other);
    other
}

/// `exporting: 3/10 sessions` → (3, 10).
fn parse_progress(text: &str) -> Option<(usize, usize)> {
    let rest = text.trim().strip_prefix("exporting: ")?;
    let (counts, _) = rest.split_once(' ')?;
    let (done, total) = counts.split_once('/')?;
    Some((done.parse().ok()?, total.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_read_between_carriage_returns() {
        let stderr = b"\rexporting: 1/3 sessions\rexporting: 2/3 sessions\r\x1b[Kerror: boom\n";
        let mut seen = Vec::new();
        let other = read_progress(&stderr[..], |d, t| seen.push((d, t)));
        assert_eq!(seen, [(1, 3), (2, 3)]);
        assert_eq!(other, "error: boom\n");
        assert_eq!(parse_progress("exporting: 12/40 sessions"), Some((12, 40)));
        assert_eq!(parse_progress("exporting"), None);
    }

    #[test]
    fn an_existing_out_is_refused_before_anything_runs() {
        let dir = std::env::temp_dir();
        let refused = ExportJob::spawn(Path::new("/nonexistent"), &dir, dir.clone(), None);
        assert!(refused.err().is_some_and(|e| e.contains("already exists")));
    }
}
