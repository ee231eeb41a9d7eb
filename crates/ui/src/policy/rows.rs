//! The Policy tab's table text: a verdict's cells and the totals of the log beside the
//! replay's.

use surface_engine::policy::{CheckKind, CheckVerdict, Totals};

/// The verdict table's column titles.
pub const VERDICT_COLUMNS: [&str; 5] =
    ["seq", "turn.step", "total / threshold", "outcome", "agrees"];

/// A check's cells, in [`VERDICT_COLUMNS`] order.
pub fn verdict_cells(check: &CheckVerdict) -> [String; 5] {
    let step = match (check.turn, check.step) {
        (Some(t), Some(s)) => format!("{t}.{s}"),
        (Some(t), None) => format!("{t}"),
        _ => "—".to_string(),
    };
    let total = match check.threshold {
        Some(th) => format!("{} / {th}", check.total),
        None => check.total.to_string(),
    };
    let outcome = match check.trigger {
        CheckKind::Pressure => check.outcome.as_str().to_string(),
        CheckKind::Overflow => format!("{} (overflow)", check.outcome.as_str()),
        CheckKind::Command => format!("{} (/compact)", check.outcome.as_str()),
    };
    let agrees = match check.agrees {
        // Words, not ✓ / ✗: egui's bundled fonts have no glyph for those.
        Some(true) => "yes",
        Some(false) => "no",
        None => "—",
    };
    [
        check.step_start_seq.to_string(),
        step,
        total,
        outcome,
        agrees.to_string(),
    ]
}

/// The totals side by side: a name, the log's figure, the replay's.
pub fn totals_rows(log: &Totals, replay: &Totals) -> Vec<(&'static str, String, String)> {
    let row = |name, f: fn(&Totals) -> String| (name, f(log), f(replay));
    vec![
        row("pressure checks", |t| t.checks.to_string()),
        row("checks that compacted", |t| t.fired.to_string()),
        row("prunes", |t| t.prunes.to_string()),
        row("summaries", |t| t.summaries.to_string()),
        row("tokens summarised", |t| t.summarized_tokens.to_string()),
        row("peak fill (tokens)", |t| t.peak_total.to_string()),
        row("requests over the threshold", |t| {
            t.requests_over_threshold.to_string()
        }),
        row("requests over the window", |t| {
            t.requests_over_window.to_string()
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::policy::Outcome;

    fn check() -> CheckVerdict {
        CheckVerdict {
            step_start_seq: 42,
            turn: Some(3),
            step: Some(2),
            trigger: CheckKind::Pressure,
            total: 900,
            threshold: Some(800),
            window: Some(1000),
            outcome: Outcome::Summarized,
            pruned: Vec::new(),
            summaries: Vec::new(),
            total_after: 300,
            exact: true,
            actual: None,
            agrees: Some(false),
            near: false,
            why: Some("the log did not summarise".into()),
            cursor: 40,
        }
    }

    #[test]
    fn a_verdict_reads_as_its_cells() {
        assert_eq!(
            verdict_cells(&check()),
            ["42", "3.2", "900 / 800", "summarized", "no"].map(String::from)
        );
        let overflow = CheckVerdict {
            trigger: CheckKind::Overflow,
            threshold: None,
            turn: None,
            agrees: None,
            ..check()
        };
        assert_eq!(
            verdict_cells(&overflow),
            ["42", "—", "900", "summarized (overflow)", "—"].map(String::from)
        );
    }

    #[test]
    fn totals_pair_the_log_with_the_replay() {
        let log = Totals {
            summaries: 2,
            peak_total: 950,
            ..Totals::default()
        };
        let replay = Totals {
            summaries: 5,
            peak_total: 700,
            ..Totals::default()
        };
        let rows = totals_rows(&log, &replay);
        assert_eq!(rows.len(), 8);
        assert!(rows.contains(&("summaries", "2".into(), "5".into())));
        assert!(rows.contains(&("peak fill (tokens)", "950".into(), "700".into())));
    }
}
