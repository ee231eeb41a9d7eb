//! Which setting to ship: the frontier of the settings no other beats (on the objective,
//! requests over the window at their worst, and summaries), and the recommendation — the
//! frontier setting of lowest objective within the constraints, ties to the one closest to
//! the policy's defaults — with its saving against the baseline, or why there is none.

use serde::Serialize;

use super::figures::{Span, TuneRow};
use crate::policy::{DEFAULT_POLICY_THRESHOLD, DEFAULT_RETAIN_RATIO, PrunerSettings};

/// What a setting is ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// Σ cost (needs prices).
    Cost,
    /// Σ agent prompt tokens.
    Prompt,
}

impl Objective {
    /// `row`'s objective, `None` when it has no cost.
    pub fn of(self, row: &TuneRow) -> Option<Span> {
        match self {
            Objective::Cost => row.totals.cost,
            Objective::Prompt => Some(row.totals.agent_prompt),
        }
    }
}

/// The limits a recommendation keeps within.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constraints {
    /// The most requests over the window (their `max`).
    pub max_over_window: f64,
    /// The largest share of requests over the threshold (`likely`), if any.
    pub max_over_threshold: Option<f64>,
}

/// The frontier and the recommendation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    /// Indices of the non-dominated settings, by objective.
    pub frontier: Vec<usize>,
    /// The recommended setting's index.
    pub recommended: Option<usize>,
    /// The recommendation and its saving, or why there is none.
    pub why: String,
    /// Baseline − recommendation (`likely`; `min`/`max` from the recommendation's range).
    pub saving: Option<Span>,
    /// The baseline's objective lies inside the recommendation's range.
    pub indistinguishable: bool,
}

fn key(objective: Objective, row: &TuneRow) -> Option<[f64; 3]> {
    Some([
        objective.of(row)?.likely,
        row.totals.requests_over_window.max,
        row.totals.summaries.likely,
    ])
}

/// `a` dominates `b`: no worse on any key, better on one.
fn dominates(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y)
}

/// The non-dominated rows' indices, by objective then closeness to the defaults.
pub fn frontier(objective: Objective, rows: &[TuneRow]) -> Vec<usize> {
    let keys: Vec<Option<[f64; 3]>> = rows.iter().map(|r| key(objective, r)).collect();
    let mut out: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            keys[i].is_some_and(|k| !keys.iter().flatten().any(|other| dominates(other, &k)))
        })
        .collect();
    out.sort_by(|&a, &b| {
        let (ka, kb) = (keys[a].unwrap_or_default(), keys[b].unwrap_or_default());
        ka[0]
            .total_cmp(&kb[0])
            .then(distance(&rows[a]).total_cmp(&distance(&rows[b])))
    });
    out
}

/// How far a row's setting is from the policy's defaults (each difference relative to the
/// default's size; the pruner's presence and sizes, the summary price each count 1).
pub fn distance(row: &TuneRow) -> f64 {
    let Some(s) = &row.settings else {
        return 0.0;
    };
    let rel = |x: f64, d: f64| ((x - d) / d).abs();
    let retain = match (s.retain_ratio, s.retain_tokens) {
        (Some(r), _) => rel(r, DEFAULT_RETAIN_RATIO),
        _ => 1.0,
    };
    let pruner = match s.pruner {
        Some(p) if p == PrunerSettings::default() => 0.0,
        _ => 1.0,
    };
    rel(s.threshold_ratio, DEFAULT_POLICY_THRESHOLD)
        + retain
        + f64::from(s.compaction_retries.abs_diff(1))
        + pruner
        + if s.summary_tokens.is_some() { 1.0 } else { 0.0 }
}

fn within(row: &TuneRow, c: &Constraints) -> bool {
    let t = &row.totals;
    let share = if t.agent_calls.likely > 0.0 {
        t.requests_over_threshold.likely / t.agent_calls.likely
    } else {
        0.0
    };
    t.requests_over_window.max <= c.max_over_window
        && c.max_over_threshold.is_none_or(|x| share <= x)
}

/// The frontier of `rows` and the recommendation among it against `baseline`.
pub fn choose(
    objective: Objective,
    rows: &[TuneRow],
    baseline: &TuneRow,
    constraints: &Constraints,
) -> Choice {
    let frontier = frontier(objective, rows);
    let none = |why: String| Choice {
        frontier: frontier.clone(),
        recommended: None,
        why,
        saving: None,
        indistinguishable: false,
    };
    if rows.is_empty() {
        return none("no setting was replayed".to_string());
    }
    if objective == Objective::Cost && frontier.is_empty() {
        return none(
            "the objective is cost, but not every session is priced (give --prices)".to_string(),
        );
    }
    // The frontier is sorted by objective, ties by closeness to the defaults.
    let Some(&best) = frontier.iter().find(|&&i| within(&rows[i], constraints)) else {
        let mut why = format!(
            "no setting on the frontier keeps requests over the window (at most) to {}",
            constraints.max_over_window
        );
        if let Some(x) = constraints.max_over_threshold {
            why.push_str(&format!(
                " and requests over the threshold to a share of {x}"
            ));
        }
        return none(why);
    };
    let (Some(ours), Some(base)) = (objective.of(&rows[best]), objective.of(baseline)) else {
        return none("the baseline has no cost: not every session is priced".to_string());
    };
    let saving = Span {
        likely: base.likely - ours.likely,
        min: base.likely - ours.max,
        max: base.likely - ours.min,
    };
    let indistinguishable = ours.holds(base.likely);
    let why = if indistinguishable {
        "the lowest objective within the constraints, but not distinguishable from the baseline: the baseline's objective lies inside its range".to_string()
    } else {
        "the lowest objective on the frontier within the constraints".to_string()
    };
    Choice {
        frontier,
        recommended: Some(best),
        why,
        saving: Some(saving),
        indistinguishable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicySettings;
    use crate::policy::tune::figures::TuneTotals;

    fn row(t: f64, prompt: Span, over_window: f64, summaries: f64) -> TuneRow {
        let mut r = TuneRow::new(Some(&PolicySettings {
            threshold_ratio: t,
            ..PolicySettings::default()
        }));
        r.totals = TuneTotals {
            agent_prompt: prompt,
            agent_calls: Span::exact(10.0),
            requests_over_window: Span {
                likely: 0.0,
                min: 0.0,
                max: over_window,
            },
            summaries: Span::exact(summaries),
            ..TuneTotals::default()
        };
        r
    }

    const NONE: Constraints = Constraints {
        max_over_window: 0.0,
        max_over_threshold: None,
    };

    fn baseline(prompt: f64) -> TuneRow {
        let mut b = row(0.8, Span::exact(prompt), 0.0, 1.0);
        b.settings = None;
        b
    }

    #[test]
    fn a_dominated_setting_is_off_the_frontier() {
        let rows = [
            row(0.7, Span::exact(100.0), 0.0, 2.0),
            row(0.6, Span::exact(120.0), 0.0, 3.0), // worse on both: dominated
            row(0.9, Span::exact(90.0), 1.0, 1.0),  // cheaper but over the window
        ];
        let c = choose(Objective::Prompt, &rows, &baseline(150.0), &NONE);
        assert_eq!(c.frontier, vec![2, 0]);
        assert_eq!(c.recommended, Some(0), "the cheaper one breaks the window");
        assert_eq!(c.saving.map(|s| s.likely), Some(50.0));
        assert!(!c.indistinguishable);
    }

    #[test]
    fn a_tie_goes_to_the_setting_closest_to_the_defaults() {
        let rows = [
            row(0.6, Span::exact(100.0), 0.0, 2.0),
            row(0.75, Span::exact(100.0), 0.0, 2.0),
        ];
        let c = choose(Objective::Prompt, &rows, &baseline(150.0), &NONE);
        assert_eq!(c.frontier.len(), 2, "neither is better on any figure");
        assert_eq!(c.recommended, Some(1));
    }

    #[test]
    fn no_setting_within_the_constraint_is_null_with_why() {
        let rows = [row(0.7, Span::exact(100.0), 2.0, 2.0)];
        let c = choose(Objective::Prompt, &rows, &baseline(150.0), &NONE);
        assert_eq!(c.recommended, None);
        assert!(c.why.contains("over the window"), "{}", c.why);
        let loose = Constraints {
            max_over_window: 2.0,
            ..NONE
        };
        assert_eq!(
            choose(Objective::Prompt, &rows, &baseline(150.0), &loose).recommended,
            Some(0)
        );
        assert_eq!(
            choose(Objective::Cost, &rows, &baseline(150.0), &loose).recommended,
            None,
            "unpriced"
        );
    }

    #[test]
    fn the_baseline_inside_the_range_is_not_distinguishable() {
        let rows = [row(
            0.7,
            Span {
                likely: 100.0,
                min: 80.0,
                max: 160.0,
            },
            0.0,
            2.0,
        )];
        let c = choose(Objective::Prompt, &rows, &baseline(150.0), &NONE);
        assert_eq!(c.recommended, Some(0));
        assert!(c.indistinguishable);
        assert!(c.why.contains("not distinguishable from the baseline"));
        assert_eq!(
            c.saving,
            Some(Span {
                likely: 50.0,
                min: -10.0,
                max: 70.0
            })
        );
    }
}
