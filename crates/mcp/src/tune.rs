//! The `tune` tool: every session file named read once (through the cache), weighed under
//! every setting of the grid, then summed by surface-reports into `tune --json`'s document.

use serde_json::{Map, Value};
use surface_analysis::policy::tune::{Constraints, Grid, Objective};
use surface_reports::ReportError;
use surface_reports::tune::{Plan, SessionLine, Weighed, document, sum};

use crate::ToolError;
use crate::args::{Objective as ObjectiveArg, TuneArgs};
use crate::call::State;
use crate::tools::parse;

impl State {
    /// The document of the `tune` call with `args`.
    pub(crate) fn tune(&self, args: &Map<String, Value>) -> Result<Value, ToolError> {
        tune_document(self, args)
    }
}

fn tune_document(state: &State, args: &Map<String, Value>) -> Result<Value, ToolError> {
    let a: TuneArgs = parse("tune", args)?;
    let argument = |message: String| ToolError::Argument {
        tool: "tune".to_string(),
        message,
    };
    if a.paths.is_empty() {
        return Err(argument(
            "argument `paths`: name at least one session file".to_string(),
        ));
    }
    let grid = Grid::parse(&a.grid).map_err(|e| argument(format!("argument `grid`: {e}")))?;
    let max_over_threshold = match a.max_over_threshold {
        Some(x) if !(0.0..=1.0).contains(&x) => {
            return Err(argument(format!(
                "argument `max_over_threshold`: {x} is not a share between 0 and 1"
            )));
        }
        other => other,
    };
    let constraints = Constraints {
        max_over_window: a.max_over_window.unwrap_or(0) as f64,
        max_over_threshold,
    };
    let prices = state.prices_in(a.prices.as_deref())?;
    let objective = match (a.objective, prices.is_some()) {
        (Some(ObjectiveArg::Cost), false) => {
            return Err(argument(
                "objective \"cost\" needs prices (without a price file there is no cost)"
                    .to_string(),
            ));
        }
        (Some(ObjectiveArg::Cost), true) | (None, true) => Objective::Cost,
        (Some(ObjectiveArg::Prompt), _) | (None, false) => Objective::Prompt,
    };
    for path in &a.paths {
        state.roots.resolve_file(path)?;
    }
    let table = prices.as_ref().map(|(_, t)| t);
    let settings = grid.expand().settings;
    let weighed: Vec<Weighed> = a
        .paths
        .iter()
        .map(|path| {
            let entry = state.entry(path, None);
            let (tuned, error, skipped) = match entry {
                Ok(e) => (
                    Some(surface_passes::tune_session(
                        &e.opened.log,
                        &settings,
                        table,
                    )),
                    None,
                    e.skipped.clone(),
                ),
                Err(e) => (None, Some(error_text(&e)), Vec::new()),
            };
            Weighed {
                line: SessionLine {
                    file: path.into(),
                    session: None,
                    error,
                    skipped,
                },
                tuned,
                skipped: false,
            }
        })
        .collect();
    let plan = Plan {
        grid: &grid,
        objective,
        constraints: &constraints,
        currency: prices.as_ref().map(|(_, t)| t.currency.clone()),
    };
    Ok(document(&sum(&plan, &weighed)))
}

fn error_text(e: &ToolError) -> String {
    match e {
        ToolError::Report(ReportError::Store(s)) => s.to_string(),
        other => other.to_string(),
    }
}
