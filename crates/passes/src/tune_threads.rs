//! `tune`'s read once, replay many: one session read, metered and turned into its policy
//! input and ledger parts once, then every setting's what-if weighed from that one input on
//! rayon's workers (the same [`what_if_sweep`] `policy --what-if` makes).

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
    /// the session's window forbids (a retain budget at or above its threshold).
    pub settings: Vec<Option<SessionFigures>>,
}

/// Weighs every one of `settings` over `log`, priced by `prices`.
pub fn tune_session(
    log: &EventLog,
    settings: &[PolicySettings],
    prices: Option<&PriceTable>,
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
            let valid = s.validate(window).ok()?;
            let report = replay(log, &meter, &input, &valid, ReplayMode::WhatIf);
            what_if_sweep(log, &meter, &input, &parts, &valid, prices, &report).map(|w| w.figures)
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
