//! The Policy tab's table text: a verdict's cells — what the policy decides there (what it
//! would prune or summarise), the total after, exact or estimated, whether the log agrees —
//! the reason under a row, and the totals of the log beside the replay's.

use surface_analysis::policy::{CANT_JUDGE_NO_WINDOW, CheckKind, CheckVerdict, Totals};

/// The verdict table's columns, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerdictColumn {
    /// The check's `step/start` seq.
    Seq,
    /// `turn.step`.
    Step,
    /// Whether the log did the same.
    Agrees,
    /// How the check ended (and what fired it).
    Outcome,
    /// The total when it began, over the threshold.
    Total,
    /// What the policy prunes and summarises.
    Decision,
    /// The total after the policy's compactions.
    After,
    /// Exact (the log's own figures) or estimated.
    Exact,
}

impl VerdictColumn {
    /// Every column, in table order (the verdict first after the check's name: a narrow panel
    /// shows it without scrolling sideways).
    pub const ALL: [VerdictColumn; 8] = [
        VerdictColumn::Seq,
        VerdictColumn::Step,
        VerdictColumn::Agrees,
        VerdictColumn::Outcome,
        VerdictColumn::Total,
        VerdictColumn::Decision,
        VerdictColumn::After,
        VerdictColumn::Exact,
    ];

    /// The column's title.
    pub fn title(self) -> &'static str {
        match self {
            VerdictColumn::Seq => "seq",
            VerdictColumn::Step => "before step",
            VerdictColumn::Agrees => "agrees",
            VerdictColumn::Outcome => "outcome",
            VerdictColumn::Total => "total / threshold",
            VerdictColumn::Decision => "decision",
            VerdictColumn::After => "total after",
            VerdictColumn::Exact => "figures",
        }
    }

    /// What the column says, for its title's hover.
    pub fn hover(self) -> &'static str {
        match self {
            VerdictColumn::Seq => "The check's step/start (click a row: move the cursor there)",
            VerdictColumn::Step => {
                "The step the check comes before, as turn.step (its step/start's). The Compare tab places an event inside a step instead: a check before 1.8 lies in step 1.7"
            }
            VerdictColumn::Agrees => {
                "Whether the log compacted as the policy decides; can't judge where no context window is in force"
            }
            VerdictColumn::Outcome => "How the policy's check ends, and what fired it",
            VerdictColumn::Total => "The meter's total when the check began, over ⌊window × T⌋",
            VerdictColumn::Decision => "What the policy would prune and summarise here",
            VerdictColumn::After => "The total after the policy's compactions (≈: estimated)",
            VerdictColumn::Exact => {
                "exact: the log's own figures; estimated: some price was predicted (a prune or summary the log did not make, or after a what-if's divergence)"
            }
        }
    }
}

/// How a verdict reads in the agrees column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The log did as the policy decides.
    Yes,
    /// It did not.
    No,
    /// The log compacted with no window in force: the policy cannot judge.
    CantJudge,
    /// Not compared (after a what-if's divergence).
    NotCompared,
}

impl Agreement {
    /// The agreement of `check`.
    pub fn of(check: &CheckVerdict) -> Self {
        match check.agrees {
            Some(true) => Agreement::Yes,
            Some(false) => Agreement::No,
            None if check.cant_judge() => Agreement::CantJudge,
            None => Agreement::NotCompared,
        }
    }

    /// Its cell.
    pub fn text(self) -> &'static str {
        match self {
            // Words, not ✓ / ✗: egui's bundled fonts have no glyph for those.
            Agreement::Yes => "yes",
            Agreement::No => "no",
            Agreement::CantJudge => "can't judge",
            Agreement::NotCompared => "—",
        }
    }
}

/// A check's cell under `column`.
pub fn verdict_cell(check: &CheckVerdict, column: VerdictColumn) -> String {
    match column {
        VerdictColumn::Seq => check.step_start_seq.to_string(),
        VerdictColumn::Step => match (check.turn, check.step) {
            (Some(t), Some(s)) => format!("{t}.{s}"),
            (Some(t), None) => format!("{t}"),
            _ => "—".to_string(),
        },
        VerdictColumn::Agrees => Agreement::of(check).text().to_string(),
        VerdictColumn::Outcome => {
            let outcome = if check.cant_judge() {
                "no window"
            } else {
                check.outcome.as_str()
            };
            match check.trigger {
                CheckKind::Pressure => outcome.to_string(),
                CheckKind::Overflow => format!("{outcome} (overflow)"),
                CheckKind::Command => format!("{outcome} (/compact)"),
            }
        }
        VerdictColumn::Total => match check.threshold {
            Some(th) => format!("{} / {th}", check.total),
            None => check.total.to_string(),
        },
        VerdictColumn::Decision => decision_text(check),
        VerdictColumn::After => {
            if acts(check) {
                let mark = if check.exact { "" } else { "≈" };
                format!("{mark}{}", check.total_after)
            } else {
                "—".to_string()
            }
        }
        VerdictColumn::Exact => if check.exact { "exact" } else { "estimated" }.to_string(),
    }
}

/// Every cell of a check, in [`VerdictColumn::ALL`] order.
#[cfg(test)]
pub fn verdict_cells(check: &CheckVerdict) -> Vec<String> {
    VerdictColumn::ALL
        .iter()
        .map(|&c| verdict_cell(check, c))
        .collect()
}

/// The policy prunes or summarises at this check.
fn acts(check: &CheckVerdict) -> bool {
    !check.pruned.is_empty() || !check.summaries.is_empty()
}

/// What the policy does: `prune [314] · summarise 258..254 (9 nodes)`, or `nothing`.
pub fn decision_text(check: &CheckVerdict) -> String {
    let mut parts = Vec::new();
    if !check.pruned.is_empty() {
        let seqs: Vec<String> = check.pruned.iter().map(u64::to_string).collect();
        parts.push(format!("prune [{}]", seqs.join(", ")));
    }
    for s in &check.summaries {
        let nodes = s.shadowed.len();
        parts.push(if s.ok {
            format!(
                "summarise {}..{} ({} node{})",
                s.start,
                s.end,
                nodes,
                if nodes == 1 { "" } else { "s" }
            )
        } else {
            format!("summary of {}..{} fails", s.start, s.end)
        });
    }
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join(" · ")
    }
}

/// The line under a row: what differs (a disagreement), or why the check ended as it did.
pub fn reason_text(check: &CheckVerdict) -> Option<String> {
    match (&check.why, &check.note) {
        (Some(why), Some(note)) => Some(format!("{why} · {note}")),
        (Some(why), None) => Some(why.clone()),
        (None, Some(note)) => Some(note.clone()),
        (None, None) if check.cant_judge() => Some(CANT_JUDGE_NO_WINDOW.to_string()),
        (None, None) => None,
    }
}

/// The totals side by side: a name, the log's figure, the replay's. `window` is the replay's
/// context window (with none no check is a pressure check: they are between-turn checks) and
/// `ratio` the threshold ratio both columns' requests are counted against, named in the row.
pub fn totals_rows(
    log: &Totals,
    replay: &Totals,
    (window, ratio): (Option<u64>, f64),
) -> Vec<(String, String, String)> {
    let row = |name: &str, f: fn(&Totals) -> String| (name.to_string(), f(log), f(replay));
    let checks = if window.is_some() {
        "pressure checks"
    } else {
        "between-turn checks (no window)"
    };
    let over = match window {
        Some(w) => format!(
            "requests over {} (T {ratio})",
            surface_engine::meter::threshold(w, ratio)
        ),
        None => format!("requests over T {ratio}"),
    };
    vec![
        row(checks, |t| t.checks.to_string()),
        row("fired", |t| t.fired.to_string()),
        row("prunes", |t| t.prunes.to_string()),
        row("summaries", |t| t.summaries.to_string()),
        row("tokens summarised", |t| t.summarized_tokens.to_string()),
        row("peak fill (tokens)", |t| t.peak_total.to_string()),
        row(&over, |t| t.requests_over_threshold.to_string()),
        row("requests over the window", |t| {
            t.requests_over_window.to_string()
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_analysis::policy::{ActualShown, Outcome, PlannedSummary};

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
            pruned: vec![31],
            summaries: vec![PlannedSummary {
                start: 12,
                end: 20,
                shadowed: vec![12, 15, 20],
                shadowed_tokens: 600,
                summary_tokens: Some(100),
                ok: true,
            }],
            total_after: 300,
            exact: false,
            actual: None,
            agrees: Some(false),
            near: false,
            why: Some("the log did not summarise".into()),
            note: None,
            cursor: 40,
        }
    }

    #[test]
    fn a_verdict_reads_as_its_cells() {
        assert_eq!(
            verdict_cells(&check()),
            [
                "42",
                "3.2",
                "no",
                "summarized",
                "900 / 800",
                "prune [31] · summarise 12..20 (3 nodes)",
                "≈300",
                "estimated"
            ]
            .map(String::from)
        );
        assert_eq!(
            reason_text(&check()).as_deref(),
            Some("the log did not summarise")
        );
        let overflow = CheckVerdict {
            trigger: CheckKind::Overflow,
            threshold: None,
            turn: None,
            agrees: None,
            pruned: Vec::new(),
            summaries: Vec::new(),
            why: None,
            exact: true,
            outcome: Outcome::Below,
            note: Some("no overflow: …".into()),
            ..check()
        };
        assert_eq!(
            verdict_cells(&overflow),
            [
                "42",
                "—",
                "—",
                "below (overflow)",
                "900",
                "nothing",
                "—",
                "exact"
            ]
            .map(String::from)
        );
        assert_eq!(reason_text(&overflow).as_deref(), Some("no overflow: …"));
    }

    #[test]
    fn a_check_without_a_window_where_the_log_compacted_cannot_be_judged() {
        let unjudged = CheckVerdict {
            threshold: None,
            window: None,
            outcome: Outcome::NoWindow,
            pruned: Vec::new(),
            summaries: Vec::new(),
            agrees: None,
            why: None,
            note: None,
            actual: Some(ActualShown {
                pruned: vec![7],
                summaries: Vec::new(),
                failed: 0,
            }),
            ..check()
        };
        assert_eq!(Agreement::of(&unjudged), Agreement::CantJudge);
        assert_eq!(
            verdict_cell(&unjudged, VerdictColumn::Agrees),
            "can't judge"
        );
        assert_eq!(verdict_cell(&unjudged, VerdictColumn::Outcome), "no window");
        assert_eq!(
            reason_text(&unjudged).as_deref(),
            Some("can't judge: no window")
        );
        // Never the broken "the policy no-window".
        for cell in verdict_cells(&unjudged) {
            assert!(!cell.contains("no-window"), "{cell}");
        }
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
        let rows = totals_rows(&log, &replay, (Some(16000), 0.7));
        let named = |n: &str| rows.iter().any(|(name, _, _)| name == n);
        assert_eq!(rows.len(), 8);
        assert!(rows.contains(&("summaries".into(), "2".into(), "5".into())));
        assert!(rows.contains(&("peak fill (tokens)".into(), "950".into(), "700".into())));
        assert!(named("fired"), "as the CLI says");
        assert!(named("pressure checks"));
        assert!(named("requests over 11200 (T 0.7)"));
        // With no window no check is a pressure check.
        let rows = totals_rows(&log, &replay, (None, 0.8));
        assert!(rows.iter().all(|(name, _, _)| name != "pressure checks"));
        assert!(
            rows.iter()
                .any(|(name, _, _)| name == "between-turn checks (no window)")
        );
    }
}
