//! The Tune view's form as the text the user types: one field per axis of the grid in the
//! command line's `NAME=VALUES` syntax (only VALUES typed; empty: the axis keeps the policy's
//! default), the objective, and the two constraints — read by the parsers `tune` itself uses
//! (`Grid::parse`, `constraints_of`), so a bad value says the command line's one line.

use surface_analysis::policy::tune::{Constraints, Grid, Objective};
use surface_reports::tune::constraints_of;

/// The axes, in the command line's names and the form's order, with the default grid's text
/// (docs/tune.md: 240 settings).
pub const AXES: [(&str, &str); 6] = [
    ("threshold_ratio", "0.50:0.95:0.05"),
    ("retain_ratio", "0.08,0.16,0.24,0.32"),
    ("retain_tokens", ""),
    ("compaction_retries", "0,1,2"),
    ("pruner", "on,off"),
    ("summary_tokens", ""),
];

/// The form's text (the view's own widget state).
#[derive(Clone, Debug, PartialEq)]
pub struct TuneForm {
    /// VALUES of each axis of [`AXES`], in order.
    pub axes: [String; 6],
    /// The objective asked for (cost is used only with prices).
    pub objective: Objective,
    /// The most requests over the window a recommendation may risk (empty: 0).
    pub max_over_window: String,
    /// The largest share of requests over the threshold (empty: no limit).
    pub max_over_threshold: String,
}

impl Default for TuneForm {
    /// The default grid, cost when priced, no request over the window, no share limit.
    fn default() -> Self {
        TuneForm {
            axes: AXES.map(|(_, text)| text.to_string()),
            objective: Objective::Cost,
            max_over_window: "0".to_string(),
            max_over_threshold: String::new(),
        }
    }
}

/// What the form reads as: the grid and constraints, or what is wrong, field by field.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The parser's line for each axis field that does not read.
    pub axis_errors: [Option<String>; 6],
    /// A grid whose fields read one by one but not together (an axis excluding another).
    pub grid_error: Option<String>,
    /// The max-over-window field's line.
    pub window_error: Option<String>,
    /// The max-over-threshold field's line.
    pub threshold_error: Option<String>,
    /// The grid and constraints, when everything reads.
    pub plan: Option<(Grid, Constraints)>,
}

impl TuneForm {
    /// The `--grid NAME=VALUES` arguments of the fields that are not empty.
    pub fn grid_args(&self) -> Vec<String> {
        AXES.iter()
            .zip(&self.axes)
            .filter(|(_, text)| !text.trim().is_empty())
            .map(|((name, _), text)| format!("{name}={}", text.trim()))
            .collect()
    }

    /// Reads the form with `tune`'s own parsers.
    pub fn check(&self) -> Checked {
        let axis_errors = std::array::from_fn(|i| {
            let text = self.axes[i].trim();
            (!text.is_empty())
                .then(|| Grid::parse(&[format!("{}={text}", AXES[i].0)]).err())
                .flatten()
                .map(|e| e.to_string())
        });
        fn optional(t: &str) -> Option<&str> {
            Some(t.trim()).filter(|t| !t.is_empty())
        }
        let window = constraints_of(optional(&self.max_over_window), None);
        let threshold = constraints_of(None, optional(&self.max_over_threshold));
        let all_axes_read = axis_errors.iter().all(Option::is_none);
        let grid = all_axes_read.then(|| Grid::parse(&self.grid_args()));
        let grid_error = match &grid {
            Some(Err(e)) => Some(e.to_string()),
            _ => None,
        };
        let plan = match (grid, window.as_ref(), threshold.as_ref()) {
            (Some(Ok(grid)), Ok(w), Ok(t)) => Some((
                grid,
                Constraints {
                    max_over_window: w.max_over_window,
                    max_over_threshold: t.max_over_threshold,
                },
            )),
            _ => None,
        };
        Checked {
            axis_errors,
            grid_error,
            window_error: window.err(),
            threshold_error: threshold.err(),
            plan,
        }
    }

    /// The objective a sweep uses: the one asked for, but agent prompt tokens without prices
    /// (no price file, no cost).
    pub fn objective(&self, priced: bool) -> Objective {
        if priced {
            self.objective
        } else {
            Objective::Prompt
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_form_is_the_command_lines_default_grid() {
        let checked = TuneForm::default().check();
        let (grid, constraints) = checked.plan.expect("the default form reads");
        assert_eq!(grid, Grid::default_grid());
        assert_eq!(grid.expand().settings.len(), 240);
        assert_eq!(constraints, constraints_of(None, None).unwrap());
    }

    #[test]
    fn a_bad_value_is_the_parsers_line_beside_its_field_and_no_plan() {
        let mut form = TuneForm::default();
        form.axes[0] = "0.5:1.5:0.5".to_string();
        let checked = form.check();
        let expected = Grid::parse(&["threshold_ratio=0.5:1.5:0.5".to_string()])
            .unwrap_err()
            .to_string();
        assert_eq!(checked.axis_errors[0], Some(expected));
        assert!(checked.plan.is_none());
        // Two axes that exclude each other: the grid's line.
        let mut form = TuneForm::default();
        form.axes[2] = "1000".to_string();
        let checked = form.check();
        assert!(checked.axis_errors.iter().all(Option::is_none));
        assert!(checked.grid_error.is_some_and(|e| e.contains("exclude")));
        let form = TuneForm {
            max_over_threshold: "2".to_string(),
            ..TuneForm::default()
        };
        assert!(form.check().threshold_error.is_some());
        assert_eq!(form.objective(false), Objective::Prompt);
    }
}
