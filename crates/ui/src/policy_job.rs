//! The policy lab's background work for the open log: its [`PolicyInput`] built once per
//! length on a worker (it reads the whole log), then a replay per settings and mode, on a
//! worker too for long logs. The last report stays on screen while the next is computed.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_engine::Surface;
use surface_engine::policy::{PolicyInput, PolicyReport, PolicySettings, ReplayMode, replay};

use super::session::Session;

/// What a report was computed for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key {
    events: usize,
    settings: PolicySettings,
    mode: ReplayMode,
}

/// The input and the latest report of the open log, and the jobs computing them.
#[derive(Debug, Default)]
pub struct PolicyJob {
    input: Option<(usize, Arc<PolicyInput>)>,
    input_job: Option<(usize, Receiver<PolicyInput>)>,
    report: Option<(Key, Arc<PolicyReport>)>,
    report_job: Option<(Key, Receiver<PolicyReport>)>,
}

impl PolicyJob {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = PolicyJob::default();
    }

    /// The latest report, if any was computed.
    pub fn report(&self) -> Option<&Arc<PolicyReport>> {
        self.report.as_ref().map(|(_, r)| r)
    }

    /// The latest report if it was made with `settings` and `mode` on the whole log.
    pub fn report_for(
        &self,
        events: usize,
        settings: &PolicySettings,
        mode: ReplayMode,
    ) -> Option<&Arc<PolicyReport>> {
        let key = Key {
            events,
            settings: *settings,
            mode,
        };
        self.report
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, r)| r)
    }

    /// True while the input or a report is being computed.
    pub fn running(&self) -> bool {
        self.input_job.is_some() || self.report_job.is_some()
    }

    /// Builds the input of `session` when the latest one is for another length, then replays
    /// `settings` (already validated) in `mode` when the latest report is for something else.
    /// `blocking` computes on this thread (tests); short logs are always computed here.
    pub fn ensure(
        &mut self,
        session: &Session,
        settings: &PolicySettings,
        mode: ReplayMode,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let Some(meter) = session.meter.as_ref() else {
            return;
        };
        let events = session.len();
        let here = blocking || events < BLOCKING_BELOW;
        let input = match &self.input {
            Some((n, input)) if *n == events => Arc::clone(input),
            _ => {
                if self.input_job.as_ref().is_some_and(|(n, _)| *n == events) {
                    return;
                }
                if here {
                    let surface = Surface::at_end(&session.log);
                    let input = Arc::new(PolicyInput::build(&session.log, &surface, meter));
                    self.input = Some((events, Arc::clone(&input)));
                    self.input_job = None;
                    input
                } else {
                    let log = Arc::clone(&session.log);
                    let shared_meter = Arc::clone(meter);
                    let rx = spawn("surface-viewer-policy-input", ctx, move || {
                        let surface = Surface::at_end(&log);
                        PolicyInput::build(&log, &surface, &shared_meter)
                    });
                    match rx {
                        Some(rx) => self.input_job = Some((events, rx)),
                        None => {
                            let surface = Surface::at_end(&session.log);
                            let input = PolicyInput::build(&session.log, &surface, meter);
                            self.input = Some((events, Arc::new(input)));
                        }
                    }
                    return;
                }
            }
        };
        let key = Key {
            events,
            settings: *settings,
            mode,
        };
        if self.report.as_ref().is_some_and(|(k, _)| *k == key)
            || self.report_job.as_ref().is_some_and(|(k, _)| *k == key)
        {
            return;
        }
        if here {
            let report = replay(&session.log, meter, &input, settings, mode);
            self.report = Some((key, Arc::new(report)));
            self.report_job = None;
            return;
        }
        let log = Arc::clone(&session.log);
        let shared_meter = Arc::clone(meter);
        let worker_input = Arc::clone(&input);
        let settings = *settings;
        let rx = spawn("surface-viewer-policy-replay", ctx, move || {
            replay(&log, &shared_meter, &worker_input, &settings, mode)
        });
        match rx {
            // A newer request replaces the one running: its result is dropped when it lands.
            Some(rx) => self.report_job = Some((key, rx)),
            None => {
                let report = replay(&session.log, meter, &input, &settings, mode);
                self.report = Some((key, Arc::new(report)));
            }
        }
    }

    /// Takes finished work. Returns true while some is still running.
    pub fn poll(&mut self) -> bool {
        if let Some((events, rx)) = &self.input_job {
            match rx.try_recv() {
                Ok(input) => {
                    self.input = Some((*events, Arc::new(input)));
                    self.input_job = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.input_job = None,
            }
        }
        if let Some((key, rx)) = &self.report_job {
            match rx.try_recv() {
                Ok(report) => {
                    self.report = Some((*key, Arc::new(report)));
                    self.report_job = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.report_job = None,
            }
        }
        self.running()
    }
}

/// Runs `work` on a named thread and hands its result back through the receiver (`None`:
/// no thread could be started). Wakes `ctx` when it is done.
fn spawn<T: Send + 'static>(
    name: &str,
    ctx: Option<&egui::Context>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<Receiver<T>> {
    let ctx = ctx.cloned();
    let (tx, rx) = channel();
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _ = tx.send(work());
            if let Some(ctx) = ctx {
                ctx.request_repaint();
            }
        })
        .ok()
        .map(|_| rx)
}

/// Logs shorter than this are replayed on the UI thread (it takes well under a frame).
const BLOCKING_BELOW: usize = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_once_and_replays_once_per_settings_and_mode() {
        let session = super::super::session::test_session();
        let mut job = PolicyJob::default();
        let settings = PolicySettings::default();
        job.ensure(&session, &settings, ReplayMode::Verify, None, true);
        let first = Arc::clone(job.report().expect("a report"));
        job.ensure(&session, &settings, ReplayMode::Verify, None, true);
        assert!(Arc::ptr_eq(&first, job.report().unwrap()));
        assert!(
            job.report_for(session.len(), &settings, ReplayMode::Verify)
                .is_some()
        );
        job.ensure(&session, &settings, ReplayMode::WhatIf, None, true);
        assert!(!Arc::ptr_eq(&first, job.report().unwrap()));
        assert_eq!(job.report().unwrap().mode, ReplayMode::WhatIf);
        assert!(
            job.report_for(session.len(), &settings, ReplayMode::Verify)
                .is_none()
        );
        assert!(!job.poll() && !job.running());
        job.reset();
        assert!(job.report().is_none());
    }
}
