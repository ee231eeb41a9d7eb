//! A what-if's counts as a range (issue #35): after the first divergence every total is an
//! estimate whose error the log shows (the observed [`Spread`](super::Spread)), so how many
//! checks fire, and how many summaries and prunes they make, is given as `likely` (the replay
//! itself) with a `min` and a `max`. Those are the smallest and largest counts among nine
//! replays: the likely one, and eight in which every pressure threshold after the first
//! divergence is moved by a quarter, a half, three quarters and all of the spread each way —
//! down towards `⌊W × T⌋ / (1 + high)` (the provider counting at the high end of the ratios the
//! log shows: checks fire that the likely replay leaves below) and up towards
//! `⌊W × T⌋ / (1 + low)` (the low end). Each is a whole replay, so a check that fires earlier
//! changes every later total as it would have — and so the counts are not monotonic in the
//! shift (an earlier firing can spare a later one): the two ends alone miss counts a shift inside
//! the spread gives (p01 at T 0.7 fires 16 checks at half the spread, 15 at its end; p02, the same
//! task run at T 0.7, fired 16). Checks before the divergence are exact in all nine.

use serde::Serialize;

use super::input::PolicyInput;
use super::replay::replay_scaled;
use super::report::{PolicyReport, ReplayMode, Totals};
use super::settings::ValidSettings;
use surface_engine::{EventLog, Meter};

/// A count as a range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CountRange {
    /// The replay's own count.
    pub likely: usize,
    /// The smallest count the observed spread allows.
    pub min: usize,
    /// The largest.
    pub max: usize,
}

impl CountRange {
    fn of(likely: usize, others: &[usize]) -> CountRange {
        CountRange {
            likely,
            min: others.iter().copied().fold(likely, usize::min),
            max: others.iter().copied().fold(likely, usize::max),
        }
    }
}

/// The what-if's counts as ranges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Ranges {
    /// Checks that compacted (or tried to).
    pub fired: CountRange,
    /// Summaries made.
    pub summaries: CountRange,
    /// Tool results pruned.
    pub prunes: CountRange,
    /// Checks marked near.
    pub near: usize,
    /// The threshold multipliers of the two extra replays (`[low end, high end]`: above and
    /// below 1); `null` when no replay was needed (no divergence or no spread).
    pub threshold_scales: Option<[f64; 2]>,
}

/// The ranges of a what-if `report` (made by [`replay`](super::replay) with the same log,
/// input and settings): `None` for a verify report.
pub fn count_ranges(
    log: &EventLog,
    meter: &Meter,
    input: &PolicyInput,
    settings: &ValidSettings,
    report: &PolicyReport,
) -> Option<Ranges> {
    if report.mode != ReplayMode::WhatIf {
        return None;
    }
    let others: Vec<Totals> = ladder_scales(report)
        .into_iter()
        .map(|k| replay_scaled(log, meter, input, settings, ReplayMode::WhatIf, k).totals)
        .collect();
    Some(ranges_of(report, &others, range_scales(report)))
}

/// The shares of the spread the range's replays move the thresholds by, each way.
const SHIFTS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

/// The threshold multipliers of the replays that bound a what-if `report`'s figures: for each
/// of [`SHIFTS`], the low end's and the high end's (the last pair is [`range_scales`]); empty
/// when it needs none (no divergence, or no spread).
pub(super) fn ladder_scales(report: &PolicyReport) -> Vec<f64> {
    let Some(s) = spread_to_range(report) else {
        return Vec::new();
    };
    SHIFTS
        .iter()
        .flat_map(|f| [scale(f * s.low), scale(f * s.high)])
        .collect()
}

/// The threshold multiplier for a provider counting `1 + ratio` times the estimate.
fn scale(ratio: f64) -> f64 {
    1.0 / (1.0 + ratio).max(0.05)
}

/// The spread a what-if's ranges are formed from, when it needs them.
fn spread_to_range(report: &PolicyReport) -> Option<super::Spread> {
    report
        .first_divergence
        .as_ref()
        .and(report.spread)
        .filter(|s| s.low < 0.0 || s.high > 0.0)
}

/// The threshold multipliers of the range's outermost replays (`[low end, high end]`), or
/// `None` when it needs none: no divergence, or no spread.
pub(super) fn range_scales(report: &PolicyReport) -> Option<[f64; 2]> {
    spread_to_range(report).map(|s| [scale(s.low), scale(s.high)])
}

/// The ranges of `report` given the totals of the replays at `scales`.
pub(super) fn ranges_of(
    report: &PolicyReport,
    others: &[Totals],
    scales: Option<[f64; 2]>,
) -> Ranges {
    let near = report.checks.iter().filter(|c| c.near).count();
    let likely = &report.totals;
    let of = |get: fn(&Totals) -> usize| {
        let values: Vec<usize> = others.iter().map(get).collect();
        CountRange::of(get(likely), &values)
    };
    Ranges {
        fired: of(|t| t.fired),
        summaries: of(|t| t.summaries),
        prunes: of(|t| t.prunes),
        near,
        threshold_scales: scales,
    }
}
