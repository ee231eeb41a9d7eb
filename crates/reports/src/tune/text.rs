//! `tune`'s words, the same in every shell: a figure with its range, a setting in one line,
//! the objective of a row (unpriced money never 0), the rows by objective and the
//! recommendation in a sentence — what the command line prints and the viewer shows.

use surface_analysis::cost::{UNPRICED, money};
use surface_analysis::policy::tune::{Objective, RowSettings, Span, TuneRow, pruner_name};

use super::Sweep;

/// A figure with its range: `likely (min–max)`, or `likely` when exact.
pub fn span_text(s: &Span, money_figure: bool) -> String {
    let f = |x: f64| {
        if money_figure {
            money(x)
        } else {
            format!("{x:.0}")
        }
    };
    if s.min == s.max {
        f(s.likely)
    } else {
        format!("{} ({}–{})", f(s.likely), f(s.min), f(s.max))
    }
}

/// A setting in one line: `T 0.8 R 0.16 retries 1 pruner on`; the baseline `as they ran`.
pub fn setting_text(s: Option<&RowSettings>) -> String {
    let Some(s) = s else {
        return "as they ran".to_string();
    };
    let retain = match (s.retain_ratio, s.retain_tokens) {
        (Some(r), _) => format!("R {r}"),
        (_, Some(n)) => format!("N {n}"),
        _ => String::new(),
    };
    let mut text = format!(
        "T {} {retain} retries {} pruner {}",
        s.threshold_ratio,
        s.compaction_retries,
        pruner_name(s.pruner)
    );
    if let Some(n) = s.summary_tokens {
        text.push_str(&format!(" summary {n}"));
    }
    text
}

/// The objective's name as a column heads it: `cost (USD)` or `agent prompt`.
pub fn objective_name(s: &Sweep) -> String {
    match (s.objective, &s.currency) {
        (Objective::Cost, Some(c)) => format!("cost ({c})"),
        (Objective::Cost, None) => "cost".to_string(),
        (Objective::Prompt, _) => "agent prompt".to_string(),
    }
}

/// `row`'s objective with its range; a cost some session has no price for is
/// [`UNPRICED`], never 0.
pub fn objective_text(s: &Sweep, row: &TuneRow) -> String {
    match s.objective.of(row) {
        Some(x) => span_text(&x, s.objective == Objective::Cost),
        None => UNPRICED.to_string(),
    }
}

/// The indices of `rows` by objective (likely), lowest first (unpriced last).
pub fn by_objective(s: &Sweep) -> Vec<usize> {
    let value = |r: &TuneRow| s.objective.of(r).map_or(f64::INFINITY, |x| x.likely);
    let mut order: Vec<usize> = (0..s.rows.len()).collect();
    order.sort_by(|&a, &b| value(&s.rows[a]).total_cmp(&value(&s.rows[b])));
    order
}

/// The recommendation in a sentence or two, and a newline: `recommended (★): #i SETTING —
/// why; saves X against the baseline`, or `no recommendation: why`.
pub fn recommendation(s: &Sweep) -> String {
    let Some(i) = s.choice.recommended else {
        return format!("no recommendation: {}\n", s.choice.why);
    };
    let cost = s.objective == Objective::Cost;
    let mut text = format!(
        "recommended (★): #{i} {} — {}",
        setting_text(s.rows[i].settings.as_ref()),
        s.choice.why
    );
    if let Some(saving) = &s.choice.saving {
        text.push_str(&format!(
            "; saves {} against the baseline",
            span_text(saving, cost)
        ));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_reads_likely_then_its_ends_and_an_exact_figure_alone() {
        let span = Span {
            likely: 10.0,
            min: 9.0,
            max: 12.0,
        };
        assert_eq!(span_text(&span, false), "10 (9–12)");
        assert_eq!(span_text(&Span::exact(3.0), false), "3");
        assert_eq!(span_text(&Span::exact(0.5), true), "0.500000");
        assert_eq!(setting_text(None), "as they ran");
    }
}
