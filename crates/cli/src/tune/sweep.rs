//! The sweep behind every form of `tune`'s report: the sessions under the paths read once
//! each, every setting of the grid weighed on each, the rows summed, the settings some
//! session's window forbids left out, the baseline, the frontier and the recommendation.

use std::path::PathBuf;

use crate::Input;
use crate::fleet::sessions::{Fleet, Outcome, Row, each_session, one_session};
use surface_engine::cost::PriceTable;
use surface_engine::policy::tune::{Choice, Constraints, Grid, Objective, TuneRow, choose};
use surface_passes::{TunedSession, tune_session};

use super::TuneOptions;

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
    /// The frontier and the recommendation.
    pub choice: Choice,
    /// Every session file and its error.
    pub sessions_list: Vec<SessionLine>,
    /// The constraints the recommendation kept.
    pub constraints: Constraints,
}

/// Sweeps `grid` over the sessions under `options.paths`.
pub fn sweep(
    options: &TuneOptions,
    grid: &Grid,
    prices: Option<&PriceTable>,
    objective: Objective,
    constraints: &Constraints,
) -> anyhow::Result<Sweep> {
    let expanded = grid.expand();
    let settings = expanded.settings;
    let work = |log: &surface_engine::EventLog| Ok(tune_session(log, &settings, prices));
    let mut rows: Vec<Row<TunedSession>> = Vec::new();
    for path in &options.paths {
        let input = Input {
            file: path.clone(),
            session: None,
            max_bytes: options.max_bytes,
        };
        if path.is_dir() {
            let Fleet { rows: r, .. } = each_session(&input, options.jobs, "tune", work)?;
            rows.extend(r);
        } else {
            rows.push(one_session(&input, work));
        }
    }
    let mut sums: Vec<Option<TuneRow>> = settings
        .iter()
        .map(|s| Some(TuneRow::new(Some(s))))
        .collect();
    let mut baseline = TuneRow::new(None);
    for tuned in rows.iter().filter_map(|r| r.done()) {
        baseline.add(&tuned.baseline);
        for (sum, figures) in sums.iter_mut().zip(&tuned.settings) {
            match (sum.as_mut(), figures) {
                (Some(row), Some(f)) => row.add(f),
                // A setting one session's window forbids is no setting for the fleet.
                _ => *sum = None,
            }
        }
    }
    let kept: Vec<TuneRow> = sums.into_iter().flatten().collect();
    let left_out = expanded.left_out + settings.len() - kept.len();
    let choice = choose(objective, &kept, &baseline, constraints);
    Ok(Sweep {
        sessions: baseline.sessions,
        skipped: rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Skipped(_)))
            .count(),
        unreadable: rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Unreadable(_)))
            .count(),
        objective,
        currency: prices.map(|p| p.currency.clone()),
        grid: grid.clone(),
        left_out,
        baseline,
        rows: kept,
        choice,
        sessions_list: rows
            .iter()
            .map(|r| SessionLine {
                file: r.file.clone(),
                session: r.session.clone(),
                error: r.error().map(str::to_string),
                skipped: r.skipped.clone(),
            })
            .collect(),
        constraints: *constraints,
    })
}
