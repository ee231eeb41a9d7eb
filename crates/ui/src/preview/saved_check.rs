//! What `check` would say about the file "Save as new log" writes: the engine's check run on
//! the open log with the proposed event line appended, in memory
//! ([`surface_store::log_with_line`]), on a worker thread for a long log (a million events
//! take a moment), one run at a time — the latest line wins. The preview lists what the
//! saved file would draw beyond the log's own findings, before anything is written.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_engine::{EventLog, Finding};

use crate::session::loaded::Session;

/// What a check was run for: the log's length and the appended line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    events: usize,
    line: String,
}

/// The findings of the saved file, or why the line could not be read.
pub type Outcome = Result<Vec<Finding>, String>;

/// The latest check of a saved file and the one running.
#[derive(Debug, Default)]
pub struct SavedCheck {
    current: Option<(Key, Arc<Outcome>)>,
    job: Option<(Key, Receiver<Outcome>)>,
}

/// Logs shorter than this are checked on the UI thread (well under a frame).
const BLOCKING_BELOW: usize = 5_000;

impl SavedCheck {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = SavedCheck::default();
    }

    /// Starts checking `session`'s log with `line` appended, unless that was checked or is
    /// being checked, or another check still runs (this one starts once it ends). `blocking`
    /// checks on this thread (tests).
    pub fn ensure(
        &mut self,
        session: &Session,
        line: &str,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let key = Key {
            events: session.len(),
            line: line.to_string(),
        };
        if self.current.as_ref().is_some_and(|(k, _)| *k == key) || self.job.is_some() {
            return;
        }
        if blocking || session.len() < BLOCKING_BELOW {
            self.current = Some((key, Arc::new(check_with_line(&session.log, line))));
            return;
        }
        let log = Arc::clone(&session.log);
        let line = key.line.clone();
        let ctx = ctx.cloned();
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-saved-check".into())
            .spawn(move || {
                let outcome = check_with_line(&log, &line);
                let _ = tx.send(outcome);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        match spawned {
            Ok(_) => self.job = Some((key, rx)),
            Err(_) => {
                let outcome = check_with_line(&session.log, &key.line);
                self.current = Some((key, Arc::new(outcome)));
            }
        }
    }

    /// Takes a finished check. Returns true while one is still running.
    pub fn poll(&mut self) -> bool {
        let Some((_, rx)) = &self.job else {
            return false;
        };
        match rx.try_recv() {
            Ok(outcome) => {
                if let Some((key, _)) = self.job.take() {
                    self.current = Some((key, Arc::new(outcome)));
                }
                false
            }
            Err(TryRecvError::Empty) => true,
            Err(TryRecvError::Disconnected) => {
                self.job = None;
                false
            }
        }
    }

    /// The outcome for `session`'s log with `line` appended, once checked.
    pub fn outcome(&self, session: &Session, line: &str) -> Option<&Outcome> {
        self.current
            .as_ref()
            .filter(|(k, _)| k.events == session.len() && k.line == line)
            .map(|(_, o)| o.as_ref())
    }
}

/// The findings of `log` with `line` appended.
fn check_with_line(log: &EventLog, line: &str) -> Outcome {
    let saved = surface_store::log_with_line(log, line).map_err(|e| e.to_string())?;
    Ok(surface_passes::check_report_of(&saved).0.findings)
}

/// The findings in `saved` beyond those in `log` (each of the log's findings answers one equal
/// finding of the saved file), in `saved`'s order.
pub fn added_findings<'a>(log: &[Finding], saved: &'a [Finding]) -> Vec<&'a Finding> {
    let mut unmatched: Vec<&Finding> = log.iter().collect();
    saved
        .iter()
        .filter(|f| match unmatched.iter().position(|l| l == f) {
            Some(k) => {
                unmatched.swap_remove(k);
                false
            }
            None => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static str, seq: u64) -> Finding {
        Finding {
            rule,
            severity: surface_engine::Severity::Warning,
            seq: Some(seq),
            line: None,
            offset: None,
            message: format!("{rule} at {seq}"),
        }
    }

    #[test]
    fn only_what_the_saved_file_adds_is_listed() {
        let log = [finding("a", 1), finding("a", 1), finding("b", 2)];
        let saved = [
            finding("a", 1),
            finding("b", 2),
            finding("a", 1),
            finding("a", 1),
            finding("c", 9),
        ];
        let added = added_findings(&log, &saved);
        assert_eq!(added, vec![&saved[3], &saved[4]]);
        assert!(added_findings(&saved, &log).is_empty());
    }

    #[test]
    fn checks_once_per_line_and_reads_the_line_as_the_file_would() {
        let session = crate::session::loaded::test_session();
        let mut check = SavedCheck::default();
        let line = r#"{"type":"user/message","seq":99,"data":{"content":[{"type":"text","text":"s"}]},"surfaceOp":{"op":"replace","start":0,"end":0}}"#;
        check.ensure(&session, line, None, true);
        let outcome = check.outcome(&session, line).expect("checked");
        let saved = outcome.as_ref().expect("a readable line");
        let log = surface_engine::check(&session.log, &session.surface);
        assert!(saved.len() >= log.len());
        assert!(check.outcome(&session, "{}").is_none());
        check.ensure(&session, "not json", None, true);
        let bad = check.outcome(&session, "not json").expect("checked");
        assert!(bad.as_ref().is_err_and(|e| e.contains("not a JSON event")));
    }
}
