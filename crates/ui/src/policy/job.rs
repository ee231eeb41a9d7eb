//! The policy lab's background work for the open log: its [`PolicyInput`] built once per
//! length (it reads the whole log), then a replay per settings and mode, each on a worker for
//! long logs. One report is kept per mode (the Policy tab may show a what-if while the
//! Compactions tab shows verify verdicts). The last report stays on screen while the next is
//! computed; a followed log that grew keeps its replays on the previous input while the new
//! one is built in the background.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::policy::{PolicyInput, PolicyReport, PolicySettings, ReplayMode, replay};
use surface_engine::Surface;

use crate::session::loaded::Session;

/// What a report was computed for: the input's length, the settings and the mode.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key {
    events: usize,
    settings: PolicySettings,
    mode: ReplayMode,
}

/// A landed report with the input it was replayed on.
#[derive(Clone, Debug)]
struct Landed {
    key: Key,
    report: Arc<PolicyReport>,
    input: Arc<PolicyInput>,
}

/// The latest report of one mode and the job computing the next.
#[derive(Debug, Default)]
struct Slot {
    landed: Option<Landed>,
    job: Option<(Key, Arc<PolicyInput>, Receiver<PolicyReport>)>,
}

impl Slot {
    fn poll(&mut self) {
        if let Some((key, input, rx)) = &self.job {
            match rx.try_recv() {
                Ok(report) => {
                    self.landed = Some(Landed {
                        key: *key,
                        report: Arc::new(report),
                        input: Arc::clone(input),
                    });
                    self.job = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.job = None,
            }
        }
    }
}

/// The input and the latest reports of the open log, and the jobs computing them.
#[derive(Debug, Default)]
pub struct PolicyJob {
    /// The latest input and the log length it was built at.
    input: Option<(usize, Arc<PolicyInput>)>,
    input_job: Option<(usize, Receiver<PolicyInput>)>,
    verify: Slot,
    what_if: Slot,
    /// The mode of the report that landed last.
    latest: Option<ReplayMode>,
}

impl PolicyJob {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = PolicyJob::default();
    }

    fn slot(&self, mode: ReplayMode) -> &Slot {
        match mode {
            ReplayMode::Verify => &self.verify,
            ReplayMode::WhatIf => &self.what_if,
        }
    }

    fn slot_mut(&mut self, mode: ReplayMode) -> &mut Slot {
        match mode {
            ReplayMode::Verify => &mut self.verify,
            ReplayMode::WhatIf => &mut self.what_if,
        }
    }

    /// The report that landed last, of either mode.
    pub fn report(&self) -> Option<&Arc<PolicyReport>> {
        let mode = self.latest?;
        self.slot(mode).landed.as_ref().map(|l| &l.report)
    }

    /// The latest report of `mode`, else the one that landed last (shown while `mode`'s is
    /// computed).
    pub fn report_or_latest(&self, mode: ReplayMode) -> Option<&Arc<PolicyReport>> {
        self.slot(mode)
            .landed
            .as_ref()
            .map(|l| &l.report)
            .or_else(|| self.report())
    }

    /// The latest report of `mode` with the input it was replayed on (its checks are the
    /// input's, one for one).
    pub fn landed(&self, mode: ReplayMode) -> Option<(&Arc<PolicyInput>, &Arc<PolicyReport>)> {
        self.slot(mode)
            .landed
            .as_ref()
            .map(|l| (&l.input, &l.report))
    }

    /// The latest report if it was made with `settings` and `mode` on a log of `events`.
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
        self.slot(mode)
            .landed
            .as_ref()
            .filter(|l| l.key == key)
            .map(|l| &l.report)
    }

    /// True while the input or a report is being computed.
    pub fn running(&self) -> bool {
        self.input_job.is_some() || self.verify.job.is_some() || self.what_if.job.is_some()
    }

    /// Builds the input of `session` when the latest one is for another length, then replays
    /// `settings` in `mode` on the latest input when its report is for something else (settings
    /// the log's window refuses are not replayed; the tab shows why). `blocking` computes on this thread (tests); short logs are computed
    /// here on their first build, but a log that grew (a followed session) is rebuilt in the
    /// background, its replays running on the previous input meanwhile.
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
        let Ok(valid) = settings.validate(meter.window_at(events)) else {
            return;
        };
        let stale = self.input.as_ref().is_none_or(|(n, _)| *n != events);
        if stale && self.input_job.is_none() {
            let grew = self.input.is_some();
            let here = blocking || (events < BLOCKING_BELOW && !grew);
            let log = Arc::clone(&session.log);
            let shared_meter = Arc::clone(meter);
            let build = move || {
                let surface = Surface::at_end(&log);
                PolicyInput::build(&log, &surface, &shared_meter)
            };
            if here {
                self.input = Some((events, Arc::new(build())));
            } else {
                match spawn("surface-viewer-policy-input", ctx, build) {
                    Some(rx) => self.input_job = Some((events, rx)),
                    None => {
                        let surface = Surface::at_end(&session.log);
                        let input = PolicyInput::build(&session.log, &surface, meter);
                        self.input = Some((events, Arc::new(input)));
                    }
                }
            }
        }
        let Some((built_at, input)) = self.input.clone() else {
            return;
        };
        let key = Key {
            events: built_at,
            settings: *settings,
            mode,
        };
        let slot = self.slot(mode);
        if slot.landed.as_ref().is_some_and(|l| l.key == key)
            || slot.job.as_ref().is_some_and(|(k, _, _)| *k == key)
        {
            return;
        }
        if blocking || built_at < BLOCKING_BELOW {
            let report = replay(&session.log, meter, &input, &valid, mode);
            self.land(mode, key, report, input);
            return;
        }
        let log = Arc::clone(&session.log);
        let shared_meter = Arc::clone(meter);
        let worker_input = Arc::clone(&input);
        let rx = spawn("surface-viewer-policy-replay", ctx, move || {
            replay(&log, &shared_meter, &worker_input, &valid, mode)
        });
        match rx {
            // A newer request replaces the one running: its result is dropped when it lands.
            Some(rx) => self.slot_mut(mode).job = Some((key, input, rx)),
            None => {
                let report = replay(&session.log, meter, &input, &valid, mode);
                self.land(mode, key, report, input);
            }
        }
    }

    fn land(&mut self, mode: ReplayMode, key: Key, report: PolicyReport, input: Arc<PolicyInput>) {
        let slot = self.slot_mut(mode);
        slot.landed = Some(Landed {
            key,
            report: Arc::new(report),
            input,
        });
        slot.job = None;
        self.latest = Some(mode);
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
        for mode in [ReplayMode::Verify, ReplayMode::WhatIf] {
            let slot = self.slot_mut(mode);
            let before = slot.job.is_some();
            slot.poll();
            if before && slot.job.is_none() && slot.landed.is_some() {
                self.latest = Some(mode);
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
        let session = crate::session::loaded::test_session();
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
        // The verify report stays beside the what-if one, with its input.
        assert!(
            job.report_for(session.len(), &settings, ReplayMode::Verify)
                .is_some_and(|r| Arc::ptr_eq(r, &first))
        );
        let (input, report) = job.landed(ReplayMode::Verify).unwrap();
        assert_eq!(input.checks().len(), report.checks.len());
        let other = PolicySettings {
            threshold_ratio: 0.5,
            ..settings
        };
        job.ensure(&session, &other, ReplayMode::Verify, None, true);
        assert!(
            job.report_for(session.len(), &settings, ReplayMode::Verify)
                .is_none()
        );
        assert_eq!(
            job.report_or_latest(ReplayMode::Verify)
                .unwrap()
                .settings
                .threshold_ratio,
            0.5
        );
        assert!(!job.poll() && !job.running());
        job.reset();
        assert!(job.report().is_none());
    }

    #[test]
    fn a_grown_log_is_rebuilt_in_the_background_and_replays_meanwhile_on_the_old_input() {
        let session = crate::session::loaded::test_session();
        let mut job = PolicyJob::default();
        let settings = PolicySettings::default();
        job.ensure(&session, &settings, ReplayMode::Verify, None, false);
        let first = Arc::clone(job.report().expect("a short log: built here"));
        // Pretend the log grew: an input for fewer events than the session has.
        let shorter = PolicyInput::default();
        job.input = Some((0, Arc::new(shorter)));
        job.ensure(&session, &settings, ReplayMode::Verify, None, false);
        assert!(job.input_job.is_some(), "the rebuild runs on a worker");
        // Meanwhile a replay runs on the input there is (here: the empty one).
        assert!(job.report_for(0, &settings, ReplayMode::Verify).is_some());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while job.input_job.is_some() && std::time::Instant::now() < deadline {
            job.poll();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        job.ensure(&session, &settings, ReplayMode::Verify, None, false);
        let report = job
            .report_for(session.len(), &settings, ReplayMode::Verify)
            .expect("replayed on the rebuilt input");
        assert_eq!(report.checks, first.checks);
    }
}
