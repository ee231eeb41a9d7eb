//! `tune`'s document: the sessions' figures under every setting of a grid summed — the
//! settings some session's window forbids left out — beside the baseline, with the frontier
//! and the recommendation. The shell reads the sessions (each once) and weighs them
//! ([`surface_passes::tune_session`]); this sums them and builds the document. Its words
//! (`text`) and the constraints read from text (`constraints`) are every shell's.

mod constraints;
pub mod text;

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use surface_analysis::policy::PolicySettings;
use surface_analysis::policy::tune::{Choice, Constraints, Grid, Objective, TuneRow, choose};
use surface_passes::TunedSession;

pub use constraints::constraints_of;

/// One session file's line in `sessions_list`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SessionLine {
    /// The file.
    pub file: PathBuf,
    /// The session in a file of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Why it was not swept, or `null`.
    pub error: Option<String>,
    /// The records its reader skipped.
    pub skipped: Vec<surface_engine::Skipped>,
}

/// One session as the shell read it: weighed, unreadable or skipped (with why).
pub struct Weighed {
    /// The file, the session and its error.
    pub line: SessionLine,
    /// The figures, when it was read.
    pub tuned: Option<TunedSession>,
    /// A special file skipped (never opened).
    pub skipped: bool,
}

/// A sweep's result.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// Sessions swept.
    pub sessions: usize,
    /// Special files skipped.
    pub skipped: usize,
    /// Files and sessions that could not be read.
    pub unreadable: usize,
    /// The objective.
    pub objective: Objective,
    /// The price file's currency.
    pub currency: Option<String>,
    /// The grid.
    pub grid: Grid,
    /// Settings left out: forbidden by the policy, or by some session's window.
    pub left_out: usize,
    /// The sessions as they ran.
    pub baseline: TuneRow,
    /// One row per setting swept, in grid order.
    pub rows: Vec<TuneRow>,
    /// The setting each row replayed, one for one (what `policy --what-if` is given).
    pub settings: Vec<PolicySettings>,
    /// The frontier and the recommendation.
    pub choice: Choice,
    /// Every session file and its error.
    pub sessions_list: Vec<SessionLine>,
    /// The constraints the recommendation kept.
    pub constraints: Constraints,
}

/// What a sweep weighs: the grid, the objective, the constraints and the currency.
pub struct Plan<'a> {
    /// The grid.
    pub grid: &'a Grid,
    /// The objective.
    pub objective: Objective,
    /// The constraints.
    pub constraints: &'a Constraints,
    /// The price file's currency.
    pub currency: Option<String>,
}

/// The sweep of `plan` over `weighed` (each weighed under `plan.grid.expand().settings`).
pub fn sum(plan: &Plan<'_>, weighed: &[Weighed]) -> Sweep {
    let expanded = plan.grid.expand();
    let settings = expanded.settings;
    let mut sums: Vec<Option<TuneRow>> = settings
        .iter()
        .map(|s| Some(TuneRow::new(Some(s))))
        .collect();
    let mut baseline = TuneRow::new(None);
    for tuned in weighed.iter().filter_map(|w| w.tuned.as_ref()) {
        baseline.add(&tuned.baseline);
        for (sum, figures) in sums.iter_mut().zip(&tuned.settings) {
            match (sum.as_mut(), figures) {
                (Some(row), Some(f)) => row.add(f),
                // A setting one session's window forbids is no setting for the fleet.
                _ => *sum = None,
            }
        }
    }
    let (kept, kept_settings): (Vec<TuneRow>, Vec<PolicySettings>) = sums
        .into_iter()
        .zip(&settings)
        .filter_map(|(row, s)| Some((row?, *s)))
        .unzip();
    let left_out = expanded.left_out + settings.len() - kept.len();
    let choice = choose(plan.objective, &kept, &baseline, plan.constraints);
    Sweep {
        sessions: baseline.sessions,
        skipped: weighed.iter().filter(|w| w.skipped).count(),
        unreadable: weighed
            .iter()
            .filter(|w| w.tuned.is_none() && !w.skipped)
            .count(),
        objective: plan.objective,
        currency: plan.currency.clone(),
        grid: plan.grid.clone(),
        left_out,
        baseline,
        rows: kept,
        settings: kept_settings,
        choice,
        sessions_list: weighed.iter().map(|w| w.line.clone()).collect(),
        constraints: *plan.constraints,
    }
}

/// The `--json` document.
pub fn document(s: &Sweep) -> Value {
    let grid: Map<String, Value> = s
        .grid
        .axes
        .iter()
        .map(|(axis, values)| (axis.name().to_string(), json!(values)))
        .collect();
    json!({
        "sessions": s.sessions,
        "skipped": s.skipped,
        "unreadable": s.unreadable,
        "objective": s.objective,
        "currency": s.currency,
        "grid": grid,
        "left_out": s.left_out,
        "constraints": {
            "max_over_window": s.constraints.max_over_window,
            "max_over_threshold": s.constraints.max_over_threshold,
        },
        "baseline": s.baseline,
        "settings": s.rows,
        "frontier": s.choice.frontier,
        "recommended": s.choice.recommended,
        "why": s.choice.why,
        "saving": s.choice.saving,
        "indistinguishable": s.choice.indistinguishable,
        "sessions_list": s.sessions_list,
    })
}
