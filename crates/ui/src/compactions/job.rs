//! The compaction audit of the open log, computed on a worker thread (a million-event log
//! takes a few hundred milliseconds) the first time the Compactions tab needs it, and again
//! when live follow appended events or the threshold ratio changed. The last audit stays on
//! screen while the next one is computed.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::audit::{Audit, LostTerms, audit};
use surface_engine::compactions::scan_compactions;
use surface_passes::audit_read_ahead;

use crate::session::loaded::Session;

/// What an audit was computed for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key {
    events: usize,
    ratio: f64,
}

/// The latest audit and the one being computed.
#[derive(Debug, Default)]
pub struct AuditCache {
    current: Option<(Key, Arc<Audit>)>,
    job: Option<(Key, Receiver<Audit>)>,
}

impl AuditCache {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = AuditCache::default();
    }

    /// The latest audit, if any was computed.
    pub fn audit(&self) -> Option<&Arc<Audit>> {
        self.current.as_ref().map(|(_, a)| a)
    }

    /// True while an audit is being computed.
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Starts an audit of `session` at `ratio` when the latest one is for another length or
    /// ratio and none is running for this one. `blocking` computes it on this thread (tests).
    pub fn ensure(
        &mut self,
        session: &Session,
        ratio: f64,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let key = Key {
            events: session.len(),
            ratio,
        };
        // The audit prices with the meter: nothing to do before it landed.
        let Some(meter) = session.meter.as_ref() else {
            return;
        };
        if self.current.as_ref().is_some_and(|(k, _)| *k == key)
            || self.job.as_ref().is_some_and(|(k, _)| *k == key)
        {
            return;
        }
        if blocking || session.len() < BLOCKING_BELOW {
            let a = audit(&session.log, &session.surface, meter, ratio);
            self.current = Some((key, Arc::new(a)));
            self.job = None;
            return;
        }
        let log = Arc::clone(&session.log);
        // Shared too: the UI copies it only if it moves the cursor while the audit runs.
        let surface = Arc::clone(&session.surface);
        // Shared, not copied: the worker reads the same meter.
        let meter = Arc::clone(meter);
        let ctx = ctx.cloned();
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-audit".into())
            .spawn(move || {
                // A long log: its texts are read on another core beside the audit's walk.
                let scan = scan_compactions(&log, true);
                let a = audit_read_ahead(&log, &surface, &meter, ratio, &scan, LostTerms::Read);
                let _ = tx.send(a);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        match spawned {
            Ok(_) => self.job = Some((key, rx)),
            Err(_) => {
                if let Some(meter) = session.meter() {
                    let a = audit(&session.log, &session.surface, meter, ratio);
                    self.current = Some((key, Arc::new(a)));
                }
            }
        }
    }

    /// Takes a finished audit. Returns true while one is still running.
    pub fn poll(&mut self) -> bool {
        let Some((key, rx)) = &self.job else {
            return false;
        };
        match rx.try_recv() {
            Ok(a) => {
                self.current = Some((*key, Arc::new(a)));
                self.job = None;
                false
            }
            Err(TryRecvError::Empty) => true,
            Err(TryRecvError::Disconnected) => {
                self.job = None;
                false
            }
        }
    }
}

/// Logs shorter than this are audited on the UI thread (it takes well under a frame).
const BLOCKING_BELOW: usize = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audits_once_per_length_and_ratio() {
        let session = crate::session::loaded::test_session();
        let mut cache = AuditCache::default();
        assert!(cache.audit().is_none());
        cache.ensure(&session, 0.8, None, true);
        let first = Arc::clone(cache.audit().unwrap());
        assert_eq!(first.replaces.len(), 2);
        cache.ensure(&session, 0.8, None, true);
        assert!(Arc::ptr_eq(&first, cache.audit().unwrap()));
        cache.ensure(&session, 0.5, None, true);
        assert!(!Arc::ptr_eq(&first, cache.audit().unwrap()));
        assert!(!cache.poll() && !cache.running());
        cache.reset();
        assert!(cache.audit().is_none());
    }
}
