//! Holding one decision of the policy against what the log did at the same check: the same
//! tool results pruned and the same summary ranges (a failed attempt agrees with a planned
//! one, whose range the log does not record), and if not, one phrase naming the difference.

use super::decide::{Decision, Outcome};
use super::input::{CheckKind, LogCompactions};
use super::report::{ActualShown, LogRange};

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
