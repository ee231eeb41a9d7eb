//! Inference (viewer-spec §10.4): the tightest settings consistent with every decision the
//! log holds — the threshold ratio from which checks fired and which did not, the retain
//! budget from each pressure summary's range, and the pruner's size test from the tool
//! results it pruned and the ones it left.

use super::facts::ExactChars;
use super::inferred::Inferred;
use super::input::{CheckKind, Item, PolicyInput};
use super::node::{Node, Nodes};
use super::range::budgets_for;
use crate::{EventLog, Meter};

/// Infers the settings from the log's own decisions (independent of any setting); `log` is the
/// one `input` was built from (the exact size of a tool result is read from it when needed).
pub fn infer(log: &EventLog, meter: &Meter, input: &PolicyInput) -> Inferred {
    let mut nodes = Nodes::default();
    // Tool results the log left and pruned at its compactions: sized once, at the end.
    let (mut kept, mut pruned_results) = (Vec::new(), Vec::new());
    let mut ratio: Option<(f64, f64)> = None;
    let mut retain: Option<(u64, u64)> = None;
    let mut pruned_any = false;
    let mut in_pressure = false;
    let mut out = Inferred::default();
    for item in &input.items {
        match *item {
            super::input::Item::Append(node) => nodes.push(node),
            Item::Replace {
                node,
                first,
                last,
                compaction,
            } => {
                if compaction
                    && in_pressure
                    && !node.result
                    && nodes.position(first) == Some(0)
                    && let Some(b) = nodes.position(last)
                    && let Some((lo, hi)) = budgets_for(&nodes.list, b + 1)
                {
                    let (a, z) = retain.unwrap_or((0, u64::MAX));
                    retain = Some((a.max(lo), z.min(hi)));
                }
                nodes.replace_range(first, last, node);
            }
            Item::Check(k) => {
                let check = &input.checks[k as usize];
                in_pressure = check.kind == CheckKind::Pressure;
                let cursor = check.cursor as usize;
                if check.kind == CheckKind::Pressure
                    && let Some(window) = meter.window_at(cursor).filter(|&w| w > 0)
                {
                    let v = (meter.at(cursor).total + 1) as f64 / window as f64;
                    let (lo, hi) = ratio.unwrap_or((0.0, 1.0));
                    ratio = Some(if check.log.any() {
                        (lo, hi.min(v))
                    } else {
                        (lo.max(v), hi)
                    });
                }
                if check.kind != CheckKind::Command && check.log.any() {
                    let pruned: Vec<u64> = check
                        .log
                        .prunes
                        .iter()
                        .filter_map(|p| p.target_seq)
                        .collect();
                    pruned_any |= !pruned.is_empty();
                    for n in nodes.list.iter().filter(|n| n.result) {
                        if pruned.contains(&n.seq) {
                            pruned_results.push(*n);
                        } else {
                            kept.push(*n);
                        }
                    }
                }
            }
            Item::StepStart(_) | Item::Anchor { .. } | Item::Request(_) => {}
        }
    }
    if let Some((lo, hi)) = ratio {
        if lo >= hi {
            out.conflicts.push(format!(
                "threshold ratio: a check that did not fire needs T ≥ {lo:.6}, one that fired T < {hi:.6}"
            ));
        }
        out.threshold_ratio = Some([lo, hi]);
    }
    if let Some((lo, hi)) = retain {
        if lo > hi {
            out.conflicts.push(format!(
                "retain budget: the summaries' ranges need {lo} ≤ N ≤ {hi}"
            ));
        }
        out.retain_tokens = Some([lo, hi]);
    }
    if pruned_any {
        let mut exact = ExactChars::default();
        let chars = (
            largest_chars(log, &mut exact, kept),
            pruned_results
                .iter()
                .map(|n| exact.of(log, n).saturating_sub(1))
                .min()
                .unwrap_or(u64::MAX),
        );
        out.pruner = Some(true);
        if chars.0 > chars.1 {
            out.conflicts.push(format!(
                "pruner: a result left needs threshold ≥ {}, one pruned < {}",
                chars.0,
                chars.1 + 1
            ));
        }
        out.threshold_chars = Some([chars.0, chars.1]);
    }
    out
}

/// The largest exact size among `results`, reading as few as it can: in decreasing order of
/// their bounds, until no bound left can top the largest read.
fn largest_chars(log: &EventLog, exact: &mut ExactChars, mut results: Vec<Node>) -> u64 {
    results.sort_unstable_by_key(|n| (std::cmp::Reverse(n.chars), n.event));
    results.dedup_by_key(|n| n.event);
    let mut largest = 0;
    for n in &results {
        if u64::from(n.chars) <= largest {
            break;
        }
        largest = largest.max(exact.of(log, n));
    }
    largest
}

impl PolicyInput {
    /// The settings the log's decisions bracket ([`infer`]), computed on the
    /// first call; `log` and `meter` are the ones the input was built from.
    pub fn inferred(&self, log: &EventLog, meter: &Meter) -> &Inferred {
        self.inferred.get_or_init(|| infer(log, meter, self))
    }
}
