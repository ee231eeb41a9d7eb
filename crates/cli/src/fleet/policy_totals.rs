//! What `policy DIR` keeps of each session — the figures of its `policy FILE --json` that a
//! row shows, not every check — and the fleet's totals: the log's and the replay's counts,
//! a what-if's ranges, and both ledgers summed.

use serde::Serialize;

use super::ledger_sums::LedgerSums;
use crate::policy::{Ledgers, PolicyRun};
use surface_analysis::policy::tune::{SessionFigures, TuneRow};
use surface_analysis::policy::{CountRange, Divergence, Ranges, ReplayMode, Totals};

/// One session's row: the fields of `policy FILE --json` of the same name, and the number of
/// checks that disagree.
#[derive(Clone, Debug, Serialize)]
pub struct PolicyRow {
    /// Verify or what-if.
    pub mode: ReplayMode,
    /// Checks whose decision disagrees with the log's.
    pub disagreements: usize,
    /// The first check that disagrees (verify) or diverges (what-if).
    pub first_divergence: Option<Divergence>,
    /// The replay's totals.
    pub totals: Totals,
    /// The log's own totals.
    pub actual_totals: Totals,
    /// A what-if's counts as ranges.
    pub ranges: Option<Ranges>,
    /// The ledgers.
    pub ledger: Ledgers,
    /// A what-if's figures as `tune` weighs them.
    #[serde(skip)]
    pub figures: Option<SessionFigures>,
}

impl PolicyRow {
    /// The row of a run.
    pub fn of(run: PolicyRun) -> PolicyRow {
        let disagreements = run.report.disagreements();
        PolicyRow {
            mode: run.report.mode,
            disagreements,
            first_divergence: run.report.first_divergence,
            totals: run.report.totals,
            actual_totals: run.report.actual_totals,
            ranges: run.ranges,
            ledger: run.ledger,
            figures: run.figures,
        }
    }

    /// It makes the command exit 1: a decision disagrees, or the what-if diverges.
    pub fn differs(&self) -> bool {
        match self.mode {
            ReplayMode::Verify => self.disagreements > 0,
            ReplayMode::WhatIf => self.first_divergence.is_some(),
        }
    }
}

/// A what-if's ranges summed over sessions: each end is the sum of the sessions' ends (every
/// session at its low end, or at its high end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RangeSums {
    /// Checks that fired.
    pub fired: CountRange,
    /// Summaries made.
    pub summaries: CountRange,
    /// Tool results pruned.
    pub prunes: CountRange,
    /// Checks marked near.
    pub near: usize,
}

fn add_range(into: &mut CountRange, r: &CountRange) {
    into.likely += r.likely;
    into.min += r.min;
    into.max += r.max;
}

/// Both ledgers summed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LedgerPairSums {
    /// The logs' own.
    pub actual: LedgerSums,
    /// The what-ifs' estimates (`null` in verify mode).
    pub what_if: Option<LedgerSums>,
}

/// The fleet's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PolicyFleetTotals {
    /// Sessions read.
    pub sessions: usize,
    /// Sessions and files that could not be read.
    pub unreadable: usize,
    /// Special files skipped.
    pub skipped: usize,
    /// Sessions that disagree with the policy (verify) or whose what-if diverges.
    pub differing: usize,
    /// Checks that disagree, over every session.
    pub disagreements: usize,
    /// The logs' own counts.
    pub log: Totals,
    /// The replays' counts.
    pub replay: Totals,
    /// A what-if's ranges (`null` in verify mode).
    pub ranges: Option<RangeSums>,
    /// The ledgers.
    pub ledger: LedgerPairSums,
    /// A what-if's fleet figures, as `tune`'s row of the same setting (`null` in verify
    /// mode).
    pub what_if_row: Option<TuneRow>,
}

impl PolicyFleetTotals {
    /// Adds one session's row.
    pub fn add(&mut self, row: &PolicyRow) {
        self.sessions += 1;
        self.differing += usize::from(row.differs());
        self.disagreements += row.disagreements;
        self.log.add(&row.actual_totals);
        self.replay.add(&row.totals);
        if let Some(r) = &row.ranges {
            let sums = self.ranges.get_or_insert_with(RangeSums::default);
            add_range(&mut sums.fired, &r.fired);
            add_range(&mut sums.summaries, &r.summaries);
            add_range(&mut sums.prunes, &r.prunes);
            sums.near += r.near;
        }
        if let Some(f) = &row.figures
            && let Some(into) = &mut self.what_if_row
        {
            into.add(f);
        }
        self.ledger.actual.add(&row.ledger.actual);
        if let Some(w) = &row.ledger.what_if {
            self.ledger
                .what_if
                .get_or_insert_with(LedgerSums::default)
                .add(w);
        }
    }
}
