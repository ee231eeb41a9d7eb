//! Inference (docs/policy.md): the tightest settings consistent with every decision the
//! log holds — the retain budget from each pressure summary's range and the pruner's size test
//! from the tool results it pruned and the ones it left (neither depends on the settings
//! replayed: [`infer`], once per input), and the threshold ratio from which checks fired and
//! which did not ([`RatioBracket`], fed by each replay: a check that wrote nothing bounds T
//! only where the replay, had the check fired, would have written something — which depends
//! on the retain budget and the pruner replayed).

use super::facts::ExactChars;
use super::inferred::Inferred;
use super::input::{CheckKind, Item, PolicyInput};
use super::node::{Node, Nodes};
use super::range::budgets_for;
use surface_engine::EventLog;

/// The settings the log's compactions bracket whatever the settings replayed: the retain
/// budget and the pruner (`threshold_ratio` is left `None`: see [`RatioBracket`]). `log` is
/// the one `input` was built from (the exact size of a tool result is read from it when
/// needed).
pub fn infer(log: &EventLog, input: &PolicyInput) -> Inferred {
    let mut nodes = Nodes::default();
    // Tool results the log left and pruned at its compactions: sized once, at the end.
    let (mut kept, mut pruned_results) = (Vec::new(), Vec::new());
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
                let Some(check) = input.checks.get(k as usize) else {
                    continue;
                };
                in_pressure = check.kind == CheckKind::Pressure;
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
            Item::StepStart(_) | Item::OverflowReset | Item::Anchor { .. } | Item::Request(_) => {}
        }
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

/// The threshold ratio's interval `[lo, hi)`, fed the log's pressure checks in log order: a
/// check that compacted (or tried to) needs `T < (total + 1) / W`; one that wrote nothing
/// needs `T ≥ (total + 1) / W` only when the replay, had it fired, would have acted there.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RatioBracket(Option<(f64, f64)>);

impl RatioBracket {
    /// A pressure check at `total` under `window` (a window of 0 says nothing); `compacted`
    /// when the log compacted there. `would_act` is asked only when the check wrote nothing
    /// and its bound would tighten the interval.
    pub fn check(
        &mut self,
        total: u64,
        window: u64,
        compacted: bool,
        would_act: impl FnOnce() -> bool,
    ) {
        if window == 0 {
            return;
        }
        let v = (total.saturating_add(1)) as f64 / window as f64;
        let (lo, hi) = self.0.unwrap_or((0.0, 1.0));
        self.0 = Some(if compacted {
            (lo, hi.min(v))
        } else if v > lo && would_act() {
            (v, hi)
        } else {
            (lo, hi)
        });
    }

    /// Writes the interval (and a conflict when it is empty) into `inferred`.
    pub fn finish(self, inferred: &mut Inferred) {
        let Some((lo, hi)) = self.0 else {
            return;
        };
        if lo >= hi {
            inferred.conflicts.insert(
                0,
                format!(
                    "threshold ratio: a check that did not fire needs T ≥ {lo:.6}, one that fired T < {hi:.6}"
                ),
            );
        }
        inferred.threshold_ratio = Some([lo, hi]);
    }
}

impl PolicyInput {
    /// The retain budget and pruner the log's compactions bracket ([`infer`]), computed on
    /// the first call; `log` is the one the input was built from.
    pub fn inferred(&self, log: &EventLog) -> &Inferred {
        self.inferred.get_or_init(|| infer(log, self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_checks_bound_the_ratio_only_where_the_policy_would_act() {
        let mut r = RatioBracket::default();
        r.check(799, 1000, false, || true); // T ≥ 0.8
        r.check(899, 1000, true, || unreachable!()); // T < 0.9
        // Fired at any T ≤ 0.95 but had nothing to do: says nothing.
        r.check(949, 1000, false, || false);
        // Below the lower bound already: not asked.
        r.check(500, 1000, false, || unreachable!());
        r.check(0, 0, false, || unreachable!());
        let mut inferred = Inferred::default();
        r.finish(&mut inferred);
        assert_eq!(inferred.threshold_ratio, Some([0.8, 0.9]));
        assert!(inferred.conflicts.is_empty());
        // The silent check that would have acted contradicts the firing one.
        r.check(949, 1000, false, || true);
        let mut inferred = Inferred::default();
        r.finish(&mut inferred);
        assert_eq!(inferred.threshold_ratio, Some([0.95, 0.9]));
        assert_eq!(inferred.conflicts.len(), 1);
        let mut nothing = Inferred::default();
        RatioBracket::default().finish(&mut nothing);
        assert_eq!(nothing.threshold_ratio, None);
    }
}
