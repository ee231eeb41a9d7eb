//! Holding one decision of the policy against what the log did at the same check: the same
//! tool results pruned and the same summary ranges (a failed attempt agrees with a planned
//! one, whose range the log does not record), and if not, one phrase naming the difference;
//! then the same verdict told per compaction of the log (the viewer's Compactions tab and the
//! audit's HTML report).

use std::collections::HashMap;

use super::decide::{Decision, Outcome};
use super::input::{CheckKind, LogCompactions, PolicyInput};
use super::report::{ActualShown, CANT_JUDGE_NO_WINDOW, CheckVerdict, LogRange, PolicyReport};

/// What the log did at a check, as the report shows it.
pub fn actual_shown(log: &LogCompactions) -> ActualShown {
    ActualShown {
        pruned: log.prunes.iter().filter_map(|p| p.target_seq).collect(),
        summaries: log
            .summaries
            .iter()
            .filter(|s| s.ok)
            .filter_map(|s| s.range)
            .map(|(start, end)| LogRange { start, end })
            .collect(),
        failed: log.summaries.iter().filter(|s| !s.ok).count(),
    }
}

/// `None` when `decision` is the log's, else what differs.
pub fn difference(kind: CheckKind, decision: &Decision, log: &LogCompactions) -> Option<String> {
    if let Some(p) = log.prunes.iter().find(|p| p.invalid) {
        return Some(format!(
            "the log's prune of seq {} was not applied (an invalid replace op)",
            p.target_seq
                .map_or_else(|| "?".to_string(), |s| s.to_string())
        ));
    }
    if let Some(s) = log.summaries.iter().find(|s| s.invalid) {
        let range = s
            .range
            .map_or_else(String::new, |(a, b)| format!(" of {a}..{b}"));
        return Some(format!(
            "the log's summary{range} was not applied (an invalid replace op)"
        ));
    }
    let planned = !decision.pruned.is_empty() || !decision.summaries.is_empty();
    let below = |d: &Decision| match d.threshold {
        Some(h) => format!("{} < threshold {h}", d.total),
        None => format!("total {}", d.total),
    };
    match (planned, log.any()) {
        (false, false) => return None,
        (true, false) => {
            return Some(match kind {
                CheckKind::Pressure => format!(
                    "fired at {} ≥ threshold {} but the log did nothing",
                    decision.total,
                    decision.threshold.unwrap_or(0)
                ),
                CheckKind::Overflow => {
                    "the policy recovers from the overflow but the log did nothing".to_string()
                }
                CheckKind::Command => {
                    "the policy summarises for the command but the log did nothing".to_string()
                }
            });
        }
        (false, true) => {
            return Some(match (kind, decision.outcome) {
                (CheckKind::Pressure, Outcome::Below) => {
                    format!(
                        "the log compacted below the threshold ({})",
                        below(decision)
                    )
                }
                (CheckKind::Pressure, Outcome::NoWindow) => {
                    "the log compacted with no context window in force".to_string()
                }
                (CheckKind::Overflow, Outcome::Failed) => {
                    "the log recovered from an overflow past the policy's overflow retries"
                        .to_string()
                }
                (_, outcome) => format!(
                    "the log compacted where the policy does nothing ({})",
                    outcome.as_str()
                ),
            });
        }
        (true, true) => {}
    }
    let mut ours: Vec<u64> = decision.pruned.iter().map(|p| p.node.seq).collect();
    let mut theirs: Vec<u64> = log.prunes.iter().filter_map(|p| p.target_seq).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    if ours != theirs {
        return Some(format!(
            "a different prune set: the log pruned [{}], the policy [{}]",
            join(&theirs),
            join(&ours)
        ));
    }
    for (k, (planned, logged)) in decision
        .summaries
        .iter()
        .zip(log.summaries.iter())
        .enumerate()
    {
        if !logged.ok {
            continue;
        }
        let Some((start, end)) = logged.range else {
            continue;
        };
        if (planned.start, planned.end) != (start, end) {
            return Some(format!(
                "a different range{}: the log summarised {start}..{end}, the policy {}..{}",
                attempt(k),
                planned.start,
                planned.end
            ));
        }
    }
    let (ours, theirs) = (decision.summaries.len(), log.summaries.len());
    if ours != theirs {
        return Some(format!(
            "the log made {theirs} summary attempt{}, the policy {ours}",
            if theirs == 1 { "" } else { "s" }
        ));
    }
    None
}

fn attempt(k: usize) -> String {
    if k == 0 {
        String::new()
    } else {
        format!(" (attempt {})", k + 1)
    }
}

fn join(seqs: &[u64]) -> String {
    seqs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The policy's verdict on one compaction of the log, a prune or a summary attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionVerdict {
    /// The check's decision equals the log's (`None`: not compared, or can't judge).
    pub agrees: Option<bool>,
    /// One phrase: [`AS_DECIDED`], [`CANT_JUDGE_NO_WINDOW`], or what differs here.
    pub cell: String,
    /// The phrase, the check it belongs to and the check's own verdict, one per line.
    pub detail: String,
}

/// The phrase of a compaction the policy makes as the log did.
pub const AS_DECIDED: &str = "as the policy decided";

/// One verdict per compaction of `input`, by the event carrying its replace op, from `report`
/// (a verify replay of the same input: one check for each of the input's check points; none
/// when it is not).
pub fn compaction_verdicts(
    input: &PolicyInput,
    report: &PolicyReport,
) -> HashMap<u32, CompactionVerdict> {
    let mut out = HashMap::new();
    if report.checks.len() != input.checks().len() {
        return out;
    }
    for (point, check) in input.checks().iter().zip(&report.checks) {
        for prune in &point.log.prunes {
            if let Some(event) = prune.replace_event {
                let cell = prune_difference(check, prune.target_seq, prune.invalid);
                out.insert(event, compaction_verdict(check, cell));
            }
        }
        for (k, summary) in point.log.summaries.iter().enumerate() {
            if let Some(event) = summary.replace_event {
                let cell = summary_difference(check, k, summary.range, summary.invalid);
                out.insert(event, compaction_verdict(check, cell));
            }
        }
    }
    out
}

fn compaction_verdict(check: &CheckVerdict, cell: String) -> CompactionVerdict {
    let mut detail = format!("{cell}\n{}", check_name(check));
    if let Some(why) = check.why.as_ref().filter(|why| **why != cell) {
        detail.push_str(&format!("\nthe check: {why}"));
    }
    CompactionVerdict {
        agrees: check.agrees,
        cell,
        detail,
    }
}

/// What the policy does at a check, as the end of a sentence ("the policy summarises").
pub fn outcome_phrase(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Below => "stays below the threshold",
        Outcome::Pruned => "prunes",
        Outcome::Summarized => "summarises",
        Outcome::StillAbove => "stays above the threshold after every attempt",
        Outcome::NoRange => "finds no range to summarise",
        Outcome::NoWindow => "cannot fire without a window",
        Outcome::Failed => "fails and the error stands",
    }
}

/// "the check at seq 260 (step 1.9, pressure 15543 / 12800): the policy summarises".
fn check_name(check: &CheckVerdict) -> String {
    let step = match (check.turn, check.step) {
        (Some(t), Some(s)) => format!("step {t}.{s}, "),
        _ => String::new(),
    };
    let trigger = match (check.trigger, check.threshold) {
        (CheckKind::Pressure, Some(h)) => format!("pressure {} / {h}", check.total),
        (CheckKind::Pressure, None) => format!("pressure {}, no window", check.total),
        (CheckKind::Overflow, _) => format!("overflow at {}", check.total),
        (CheckKind::Command, _) => format!("/compact at {}", check.total),
    };
    let verdict = if check.cant_judge() {
        CANT_JUDGE_NO_WINDOW.to_string()
    } else {
        format!("the policy {}", outcome_phrase(check.outcome))
    };
    format!(
        "the check at seq {} ({step}{trigger}): {verdict}",
        check.step_start_seq
    )
}

/// The policy did nothing at the check: why, in a phrase.
fn not_fired(check: &CheckVerdict) -> Option<String> {
    if !check.pruned.is_empty() || !check.summaries.is_empty() {
        return None;
    }
    Some(match (check.trigger, check.threshold) {
        (CheckKind::Pressure, Some(h)) => format!(
            "the policy would not have fired here ({} < threshold {h})",
            check.total
        ),
        (CheckKind::Pressure, None) => {
            "the policy would not have fired here (no window in force)".to_string()
        }
        _ => format!(
            "the policy would not compact here (it {})",
            outcome_phrase(check.outcome)
        ),
    })
}

/// The phrase when the compaction needs no comparison: invalid, can't judge, or agreeing.
fn settled(check: &CheckVerdict, invalid: bool) -> Option<String> {
    if invalid {
        return Some("not applied: an invalid replace op".to_string());
    }
    if check.cant_judge() {
        return Some(CANT_JUDGE_NO_WINDOW.to_string());
    }
    (check.agrees != Some(false)).then(|| AS_DECIDED.to_string())
}

fn prune_difference(check: &CheckVerdict, target: Option<u64>, invalid: bool) -> String {
    if let Some(phrase) = settled(check, invalid).or_else(|| not_fired(check)) {
        return phrase;
    }
    match target {
        Some(seq) if !check.pruned.contains(&seq) => {
            if check.pruned.is_empty() {
                "a prune the policy would not make (it prunes nothing here)".to_string()
            } else {
                format!(
                    "a prune the policy would not make (it prunes [{}])",
                    join(&check.pruned)
                )
            }
        }
        _ => format!(
            "the policy's prune; the check differs: {}",
            check.why.as_deref().unwrap_or("—")
        ),
    }
}

fn summary_difference(
    check: &CheckVerdict,
    attempt: usize,
    range: Option<(u64, u64)>,
    invalid: bool,
) -> String {
    if let Some(phrase) = settled(check, invalid).or_else(|| not_fired(check)) {
        return phrase;
    }
    let Some(planned) = check.summaries.get(attempt) else {
        return match check.summaries.len() {
            0 => "a summary the policy would not make (it only prunes here)".to_string(),
            n => format!(
                "a summary the policy would not make (it makes {n} attempt{})",
                if n == 1 { "" } else { "s" }
            ),
        };
    };
    match range {
        Some((start, end)) if (planned.start, planned.end) != (start, end) => {
            format!("range differs: policy {}..{}", planned.start, planned.end)
        }
        _ => format!(
            "the policy's summary; the check differs: {}",
            check.why.as_deref().unwrap_or("—")
        ),
    }
}
