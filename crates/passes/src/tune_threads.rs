//! `tune`'s read once, replay many: one session read, metered and turned into its policy
//! input and ledger parts once, then every setting's what-if weighed from that one input on
//! rayon's workers (the same [`what_if_sweep`] `policy --what-if` makes). A [`TuneWatch`]
//! counts the settings weighed and is asked between settings whether to stop (the viewer's
//! progress and Cancel); [`tune_session`] is the same pass with a watch nobody reads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;
use surface_analysis::cost::{Ledger, LedgerSummary, PriceTable};
use surface_analysis::policy::tune::{SessionFigures, baseline_figures, what_if_sweep};
use surface_analysis::policy::{PolicySettings, ReplayMode, replay};
use surface_engine::EventLog;

/// One session under every setting of a sweep.
#[derive(Clone, Debug)]
pub struct TunedSession {
    /// The session as it ran.
    pub baseline: SessionFigures,
    /// Its figures under each setting, in the order given; `None` where the setting is one
    /// the session's window forbids (a retain budget at or above its threshold), or one not
    /// weighed because the watch was cancelled.
    pub settings: Vec<Option<SessionFigures>>,
}

/// What a sweep's caller watches from another thread: how many settings were weighed (over
/// every session given the same watch) and whether to stop. Cancelling leaves the settings
/// not yet started unweighed (`None`); a caller that cancelled discards the result.
#[derive(Debug, Default)]
pub struct TuneWatch {
    cancel: AtomicBool,
    done: AtomicUsize,
}

impl TuneWatch {
    /// Asks the sweep to stop before its next setting.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// True once [`TuneWatch::cancel`] was called.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The flag itself, for a loop over sessions that honours the same cancel.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// Settings weighed so far (a forbidden one counts: it was looked at).
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }
}

/// Weighs every one of `settings` over `log`, priced by `prices`.
pub fn tune_session(
    log: &EventLog,
    settings: &[PolicySettings],
    prices: Option<&PriceTable>,
) -> TunedSession {
    tune_session_watched(log, settings, prices, &TuneWatch::default())
}

/// [`tune_session`] reporting to `watch`: each setting counted once weighed, none started
/// after a cancel.
pub fn tune_session_watched(
    log: &EventLog,
    settings: &[PolicySettings],
    prices: Option<&PriceTable>,
    watch: &TuneWatch,
) -> TunedSession {
    let (surface, meter, scan) = crate::surface_meter_and_scan_of(log, true);
    let window = meter.window_at(log.len());
    let (input, parts, actual) =
        crate::policy_input_and_parts(log, &surface, &meter, &scan, |parts| {
            LedgerSummary::of(&Ledger::build(parts, prices))
        });
    drop(surface);
    let baseline = PolicySettings::default().validate(window).map(|defaults| {
        let report = replay(log, &meter, &input, &defaults, ReplayMode::Verify);
        baseline_figures(&report, &actual)
    });
    let settings = settings
        .par_iter()
        .map(|s| {
            if watch.cancelled() {
                return None;
            }
            let weighed = s.validate(window).ok().and_then(|valid| {
                let report = replay(log, &meter, &input, &valid, ReplayMode::WhatIf);
                what_if_sweep(log, &meter, &input, &parts, &valid, prices, &report)
                    .map(|w| w.figures)
            });
            watch.done.fetch_add(1, Ordering::Relaxed);
            weighed
        })
        .collect();
    TunedSession {
        // The defaults pass every window (their retain budget is a ratio).
        baseline: baseline.unwrap_or_else(|_| SessionFigures {
            exact: true,
            totals: Default::default(),
        }),
        settings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p01() -> EventLog {
        let text = include_bytes!("../../../tests/fixtures/policy/p01.jsonl").to_vec();
        surface_store::read_jsonl(text, None).unwrap()
    }

    fn grid() -> Vec<PolicySettings> {
        [0.6, 0.7, 0.8]
            .iter()
            .map(|&t| PolicySettings {
                threshold_ratio: t,
                ..PolicySettings::default()
            })
            .collect()
    }

    #[test]
    fn a_watched_sweep_counts_every_setting_and_equals_the_plain_one() {
        let log = p01();
        let watch = TuneWatch::default();
        let watched = tune_session_watched(&log, &grid(), None, &watch);
        assert_eq!(watch.done(), 3);
        assert!(!watch.cancelled());
        let plain = tune_session(&log, &grid(), None);
        assert_eq!(watched.settings, plain.settings);
        assert_eq!(watched.baseline, plain.baseline);
        assert!(plain.settings.iter().all(Option::is_some));
    }

    #[test]
    fn a_cancelled_watch_weighs_no_setting() {
        let watch = TuneWatch::default();
        watch.cancel();
        let tuned = tune_session_watched(&p01(), &grid(), None, &watch);
        assert_eq!(watch.done(), 0);
        assert!(tuned.settings.iter().all(Option::is_none));
        assert_eq!(tuned.settings.len(), 3);
    }
}
