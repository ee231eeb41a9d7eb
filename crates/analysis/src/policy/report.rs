//! What a replay reports (docs/policy.md): one verdict per check, the first divergence, the
//! inferred settings, totals for the log and for the replay side by side, and for a what-if
//! the hypothetical context curve.

use serde::Serialize;

use super::decide::{Outcome, PlannedSummary};
use super::inferred::Inferred;
use super::input::CheckKind;
use super::settings::{PolicySettings, PrunerSettings};
use super::spread::Spread;
use super::trace::WhatIfTrace;
use surface_engine::Meter;

/// Verify the log's decisions, or replay another setting on its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayMode {
    /// Replay every check on the log as it is and hold each decision against the log's.
    Verify,
    /// Remove the log's compactions and replay the session with the settings.
    WhatIf,
}

/// The settings a report was made with, as the `--json` document shows them
/// (docs/policy.md#the-document---json).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SettingsShown {
    /// T.
    pub threshold_ratio: f64,
    /// R, when the budget is a ratio.
    pub retain_ratio: Option<f64>,
    /// N, when the budget is a token count.
    pub retain_tokens: Option<u64>,
    /// Summaries per pressure check beyond the first.
    pub compaction_retries: u32,
    /// The pruner, or `null`.
    pub pruner: Option<PrunerSettings>,
    /// The price of a hypothetical summary.
    pub summary_tokens: u64,
}

impl SettingsShown {
    /// `settings` with the summary price resolved.
    pub fn of(settings: &PolicySettings, summary_tokens: u64) -> Self {
        SettingsShown {
            threshold_ratio: settings.threshold_ratio,
            retain_ratio: settings.retain_ratio(),
            retain_tokens: settings.retain_tokens(),
            compaction_retries: settings.compaction_retries,
            pruner: settings.pruner,
            summary_tokens,
        }
    }
}

/// A summary the log made at a check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogRange {
    /// Its replace op's `start`.
    pub start: u64,
    /// Its replace op's `end`.
    pub end: u64,
}

/// What the log did at a check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActualShown {
    /// Seqs of the tool results it pruned.
    pub pruned: Vec<u64>,
    /// The ranges it summarised.
    pub summaries: Vec<LogRange>,
    /// Summary attempts that failed.
    pub failed: usize,
}

/// One check, as replayed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckVerdict {
    /// The log's `step/start` of the step (or the command's first event's seq).
    pub step_start_seq: u64,
    /// Its turn.
    pub turn: Option<u64>,
    /// Its step.
    pub step: Option<u64>,
    /// What fired it.
    pub trigger: CheckKind,
    /// The meter's total when it began.
    pub total: u64,
    /// `⌊W × T⌋` (pressure checks).
    pub threshold: Option<u64>,
    /// The window in force.
    pub window: Option<u64>,
    /// How the policy's check ended.
    pub outcome: Outcome,
    /// Seqs of the tool results the policy prunes.
    pub pruned: Vec<u64>,
    /// The policy's summary attempts.
    pub summaries: Vec<PlannedSummary>,
    /// The total after the policy's compactions.
    pub total_after: u64,
    /// Every figure of this check is the log's or follows from it exactly.
    pub exact: bool,
    /// What the log did here (`null` after the first divergence of a what-if).
    pub actual: Option<ActualShown>,
    /// The policy's decision equals the log's (`null` when not compared).
    pub agrees: Option<bool>,
    /// After a what-if's first divergence: the threshold lies within the observed spread of
    /// the estimated total, so the check could have gone either way.
    pub near: bool,
    /// What differs, when it does not agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Why the check ended as it did, where its figures alone do not say: a check the policy
    /// cannot judge (no window in force), an overflow the hypothetical request would not have
    /// hit, an overflow past the retries in a row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The replay cursor the check measured at (for a viewer to jump to).
    #[serde(skip)]
    pub cursor: usize,
}

/// The first check whose decision differs from the log's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The check's `step_start_seq`.
    pub step_start_seq: u64,
    /// What differs.
    pub why: String,
    /// The replay cursor of that check (for a viewer to jump to).
    #[serde(skip)]
    pub cursor: usize,
}

/// Figures over the whole session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Pressure check points (one before each step); the overflow and `/compact` recoveries
    /// are checks too but are not counted here.
    pub checks: usize,
    /// Checks that compacted (or tried to).
    pub fired: usize,
    /// Tool results pruned.
    pub prunes: usize,
    /// Summaries made.
    pub summaries: usize,
    /// Tokens the summaries replaced.
    pub summarized_tokens: u64,
    /// The highest total at a check or a model request.
    pub peak_total: u64,
    /// Model requests made at or over the threshold.
    pub requests_over_threshold: usize,
    /// Model requests made at or over the window.
    pub requests_over_window: usize,
}

impl Totals {
    /// Adds another session's figures: counts summed, the peak the higher of the two (a
    /// fleet's totals, docs/export.md).
    pub fn add(&mut self, other: &Totals) {
        self.checks += other.checks;
        self.fired += other.fired;
        self.prunes += other.prunes;
        self.summaries += other.summaries;
        self.summarized_tokens += other.summarized_tokens;
        self.peak_total = self.peak_total.max(other.peak_total);
        self.requests_over_threshold += other.requests_over_threshold;
        self.requests_over_window += other.requests_over_window;
    }
}

/// One compaction of the hypothetical session, for a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CurveMark {
    /// The replay cursor it happens at.
    pub cursor: usize,
    /// The total before and after it.
    pub before: u64,
    /// See `before`.
    pub after: u64,
    /// A summary (else only prunes).
    pub summary: bool,
    /// Before the first divergence: the log's own compaction.
    pub exact: bool,
}

/// The hypothetical context curve: from each stretch's cursor on, the what-if total is the
/// meter's total plus the stretch's offset (the hypothetical surface differs from the log's by
/// a fixed amount between two compactions or anchors).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WhatIfCurve {
    /// `(cursor, offset)`, cursors increasing; before the first, the offset is 0.
    pub stretches: Vec<(usize, i64)>,
    /// The hypothetical compactions.
    pub marks: Vec<CurveMark>,
}

impl WhatIfCurve {
    /// The what-if total after the first `cursor` events.
    pub fn total_at(&self, meter: &Meter, cursor: usize) -> u64 {
        let k = self.stretches.partition_point(|&(c, _)| c <= cursor);
        let offset = k.checked_sub(1).map_or(0, |k| self.stretches[k].1);
        (meter.at(cursor).total as i64 + offset).max(0) as u64
    }
}

/// A replay's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyReport {
    /// Verify or what-if.
    pub mode: ReplayMode,
    /// The window in force at the end of the log.
    pub window: Option<u64>,
    /// The settings replayed.
    pub settings: SettingsShown,
    /// The settings the log's decisions bracket.
    pub inferred: Inferred,
    /// Every check, in log order.
    pub checks: Vec<CheckVerdict>,
    /// The first check that disagrees (verify) or diverges (what-if).
    pub first_divergence: Option<Divergence>,
    /// The replay's totals (verify: the policy's decisions on the log as it is).
    pub totals: Totals,
    /// The log's own totals.
    pub actual_totals: Totals,
    /// Things the reader should know about this log, one sentence each.
    pub notes: Vec<String>,
    /// The observed spread of the provider's prompt against the meter's estimate (`null`: no
    /// agent call with usage).
    pub spread: Option<Spread>,
    /// The hypothetical curve (what-if; empty in verify).
    #[serde(skip)]
    pub curve: WhatIfCurve,
    /// What the what-if did after its first divergence, for its ledger (empty in verify).
    #[serde(skip)]
    pub trace: WhatIfTrace,
}

/// What a check that compacted with no context window in force reads as: the policy's pressure
/// check needs a window, so it can neither agree nor disagree there (docs/policy.md).
pub const CANT_JUDGE_NO_WINDOW: &str = "can't judge: no window";

impl CheckVerdict {
    /// The log compacted at this pressure check with no window in force: not compared.
    pub fn cant_judge(&self) -> bool {
        self.outcome == Outcome::NoWindow
            && self.agrees.is_none()
            && self
                .actual
                .as_ref()
                .is_some_and(|a| !a.pruned.is_empty() || !a.summaries.is_empty() || a.failed > 0)
    }
}

/// `x` to four significant digits, as every ratio is shown (0.795572916 → 0.7956, 0.8 → 0.8).
pub fn four_digits(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.3e}").parse().unwrap_or(x)
}

impl CheckVerdict {
    /// The policy compacted (or tried to) at this check: it pruned or planned a summary (what
    /// [`Totals::fired`] counts).
    pub fn fired(&self) -> bool {
        !self.pruned.is_empty() || !self.summaries.is_empty()
    }
}

impl PolicyReport {
    /// The first check at which the replayed policy compacted (or tried to): in a what-if,
    /// where the hypothetical session first compacts.
    pub fn first_fired(&self) -> Option<&CheckVerdict> {
        self.checks.iter().find(|c| c.fired())
    }

    /// Checks whose decision disagrees with the log's.
    pub fn disagreements(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.agrees == Some(false))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_show_four_significant_digits() {
        assert_eq!(four_digits(0.795572916).to_string(), "0.7956");
        assert_eq!(four_digits(0.8).to_string(), "0.8");
        assert_eq!(four_digits(0.16).to_string(), "0.16");
        assert_eq!(four_digits(0.012345678).to_string(), "0.01235");
        assert_eq!(four_digits(1.0).to_string(), "1");
        assert_eq!(four_digits(0.0), 0.0);
        assert!(four_digits(f64::INFINITY).is_infinite());
    }

    fn verdict(step: u64, pruned: Vec<u64>, summaries: Vec<PlannedSummary>) -> CheckVerdict {
        CheckVerdict {
            step_start_seq: step * 10,
            turn: Some(1),
            step: Some(step),
            trigger: CheckKind::Pressure,
            total: 100,
            threshold: Some(90),
            window: Some(120),
            outcome: Outcome::Below,
            pruned,
            summaries,
            total_after: 100,
            exact: true,
            actual: None,
            agrees: None,
            near: false,
            why: None,
            note: None,
            cursor: step as usize * 10,
        }
    }

    #[test]
    fn the_first_fired_check_is_the_first_that_pruned_or_summarised() {
        let failed = PlannedSummary {
            start: 1,
            end: 4,
            shadowed: vec![1, 4],
            shadowed_tokens: 50,
            summary_tokens: None,
            ok: false,
        };
        let mut report = PolicyReport {
            mode: ReplayMode::WhatIf,
            window: Some(120),
            settings: SettingsShown::of(&PolicySettings::default(), 10),
            inferred: Inferred::default(),
            checks: vec![
                verdict(1, Vec::new(), Vec::new()),
                verdict(2, Vec::new(), vec![failed]),
                verdict(3, vec![7], Vec::new()),
            ],
            first_divergence: None,
            totals: Totals::default(),
            actual_totals: Totals::default(),
            notes: Vec::new(),
            spread: None,
            curve: WhatIfCurve::default(),
            trace: WhatIfTrace::default(),
        };
        assert!(!report.checks[0].fired() && report.checks[1].fired());
        // A summary that failed was still tried: the check fired (as `totals.fired` counts).
        assert_eq!(report.first_fired().and_then(|c| c.step), Some(2));
        report.checks.remove(1);
        assert_eq!(report.first_fired().and_then(|c| c.step), Some(3));
        report.checks.pop();
        assert_eq!(report.first_fired(), None);
    }

    #[test]
    fn a_fleet_sums_counts_and_keeps_the_highest_peak() {
        let a = Totals {
            checks: 3,
            fired: 1,
            prunes: 2,
            summaries: 1,
            summarized_tokens: 900,
            peak_total: 12_000,
            requests_over_threshold: 1,
            requests_over_window: 0,
        };
        let b = Totals {
            checks: 5,
            fired: 2,
            prunes: 0,
            summaries: 2,
            summarized_tokens: 100,
            peak_total: 9_000,
            requests_over_threshold: 0,
            requests_over_window: 1,
        };
        let mut sum = Totals::default();
        sum.add(&a);
        sum.add(&b);
        assert_eq!(
            sum,
            Totals {
                checks: 8,
                fired: 3,
                prunes: 2,
                summaries: 3,
                summarized_tokens: 1_000,
                peak_total: 12_000,
                requests_over_threshold: 1,
                requests_over_window: 1,
            }
        );
    }
}
