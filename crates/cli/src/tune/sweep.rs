//! The sweep behind every form of `tune`'s report: the sessions under the paths read once
//! each and every setting of the grid weighed on each; surface-reports sums the rows (the
//! settings some session's window forbids left out) beside the baseline, the frontier and the
//! recommendation.

use crate::Input;
use crate::fleet::sessions::{Fleet, Outcome, Row, each_session, one_session};
use surface_analysis::cost::PriceTable;
use surface_analysis::policy::tune::{Constraints, Grid, Objective};
use surface_passes::{TunedSession, tune_session};
use surface_reports::tune::{Plan, SessionLine, Weighed, sum};

pub use surface_reports::tune::Sweep;

use super::TuneOptions;

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
    let weighed: Vec<Weighed> = rows
        .into_iter()
        .map(|r| Weighed {
            line: SessionLine {
                error: r.error().map(str::to_string),
                file: r.file,
                session: r.session,
                skipped: r.skipped,
            },
            skipped: matches!(r.outcome, Outcome::Skipped(_)),
            tuned: match r.outcome {
                Outcome::Done(tuned) => Some(tuned),
                _ => None,
            },
        })
        .collect();
    let plan = Plan {
        grid,
        objective,
        constraints,
        currency: prices.map(|p| p.currency.clone()),
    };
    Ok(sum(&plan, &weighed))
}
