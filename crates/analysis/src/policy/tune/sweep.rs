//! One session's what-if under one setting, weighed: the likely replay's ledger, the two
//! replays of the spread that bound its counts, their ledgers, and the session's
//! [`SessionFigures`] — the one computation behind `policy --what-if`'s ranges and ledger and
//! every row of `tune`, so the two cannot drift.

use super::super::input::PolicyInput;
use super::super::ledger::{EstimateBasis, what_if_ledger};
use super::super::ranges::{Ranges, ladder_scales, range_scales, ranges_of};
use super::super::replay::replay_scaled;
use super::super::report::{PolicyReport, ReplayMode};
use super::super::settings::ValidSettings;
use super::figures::{Point, SessionFigures, TuneTotals};
use crate::cost::{Ledger, LedgerParts, LedgerSummary, PriceTable};
use surface_engine::{EventLog, Meter};

/// A what-if weighed.
#[derive(Clone, Debug)]
pub struct WhatIfSweep {
    /// Its counts as ranges.
    pub ranges: Ranges,
    /// The likely replay's ledger.
    pub ledger: LedgerSummary,
    /// What that ledger rests on.
    pub basis: EstimateBasis,
    /// The figures `tune` weighs it by.
    pub figures: SessionFigures,
}

/// What the log's session (`parts` its ledger parts, `input` its policy input) gives under
/// `settings`, `report` being the what-if replay with them; `None` for a verify report.
pub fn what_if_sweep(
    log: &EventLog,
    meter: &Meter,
    input: &PolicyInput,
    parts: &LedgerParts,
    settings: &ValidSettings,
    prices: Option<&PriceTable>,
    report: &PolicyReport,
) -> Option<WhatIfSweep> {
    let weigh = |r: &PolicyReport| {
        what_if_ledger(parts, r, meter).map(|w| {
            let ledger = LedgerSummary::of(&Ledger::build(&w.parts, prices));
            (Point::of_what_if(r, &ledger), ledger, w.basis)
        })
    };
    let (likely, ledger, basis) = weigh(report)?;
    let scales = range_scales(report);
    let mut points = vec![likely];
    let mut others = Vec::new();
    for k in ladder_scales(report) {
        let other = replay_scaled(log, meter, input, settings, ReplayMode::WhatIf, k);
        if let Some((point, _, _)) = weigh(&other) {
            points.push(point);
        }
        others.push(other.totals);
    }
    Some(WhatIfSweep {
        ranges: ranges_of(report, &others, scales),
        ledger,
        basis,
        figures: SessionFigures {
            exact: report.first_divergence.is_none(),
            totals: TuneTotals::of_points(&points),
        },
    })
}

/// The session as it ran, in the same shape: `report` a replay of the log (its log-side
/// totals are the log's own), `actual` its ledger.
pub fn baseline_figures(report: &PolicyReport, actual: &LedgerSummary) -> SessionFigures {
    let failures = actual.compaction_totals.failed_summaries.len();
    SessionFigures {
        exact: true,
        totals: TuneTotals::of_points(&[Point::of(
            &report.actual_totals,
            failures,
            actual,
            report.window,
        )]),
    }
}
