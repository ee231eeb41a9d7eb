//! One decision of the policy (docs/policy.md#the-policy-in-our-words) on a given surface: a
//! pressure check (threshold, prune, up to `1 + retries` head-anchored summaries), an overflow
//! recovery (prune, one summary keeping nothing but the newest turn of the pairing) or a command
//! (one summary). Where the log made the same move its own price and outcome are used; anything
//! else is priced as the replay predicts it and marked estimated.

use serde::Serialize;

use super::facts::{ExactChars, pruned};
use super::input::{CheckKind, LogCompactions};
use super::node::{Node, Nodes};
use super::range::keep_index;
use super::settings::{PrunerSettings, ValidSettings};
use surface_engine::{EventIdx, EventLog};

/// How a check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The total was below the threshold: nothing to do.
    Below,
    /// Prunes brought the total below the threshold (or, on overflow, were all that changed).
    Pruned,
    /// A summary brought the total below the threshold (or ran, for overflow and commands).
    Summarized,
    /// Still at or above the threshold after every attempt (the harness only warns).
    StillAbove,
    /// No range could be summarised.
    NoRange,
    /// No context window in force: pressure cannot fire.
    NoWindow,
    /// A summary failed (or an overflow's error stood): the check ends there.
    Failed,
}

impl Outcome {
    /// The JSON name (`below`, `pruned`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Below => "below",
            Outcome::Pruned => "pruned",
            Outcome::Summarized => "summarized",
            Outcome::StillAbove => "still-above",
            Outcome::NoRange => "no-range",
            Outcome::NoWindow => "no-window",
            Outcome::Failed => "failed",
        }
    }
}

/// A tool result the policy prunes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedPrune {
    /// The pruned node.
    pub node: Node,
    /// What replaces it: the log's own replacement, or a predicted one.
    pub replacement: Node,
}

/// A summary attempt the policy makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedSummary {
    /// Seq of the first node of the range (the surface's head).
    pub start: u64,
    /// Seq of the range's last node.
    pub end: u64,
    /// Seqs of the range's nodes, in surface order.
    pub shadowed: Vec<u64>,
    /// Σ of their prices.
    pub shadowed_tokens: u64,
    /// The summary message's price (`null` for a failed attempt).
    pub summary_tokens: Option<u64>,
    /// The attempt succeeded.
    pub ok: bool,
}

/// One change a decision made to the surface (recorded for a what-if's ledger).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// A summary (else a prune).
    pub summary: bool,
    /// The surface position of its first shadowed node.
    pub position: usize,
    /// The events of the nodes it shadowed.
    pub removed: Vec<u32>,
    /// The node that replaced them.
    pub replacement: Node,
    /// Σ of the shadowed nodes' prices.
    pub shadowed_tokens: u64,
}

/// What the policy does at one check.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The meter's total when the check began.
    pub total: u64,
    /// `⌊window × T⌋` for a pressure check.
    pub threshold: Option<u64>,
    /// How it ended.
    pub outcome: Outcome,
    /// Tool results pruned, in surface order.
    pub pruned: Vec<PlannedPrune>,
    /// Summary attempts, in order.
    pub summaries: Vec<PlannedSummary>,
    /// The total after the check's compactions.
    pub total_after: u64,
    /// Some price was predicted rather than read from the log.
    pub estimated: bool,
    /// The surface after the check, when it changed.
    pub after: Option<Nodes>,
    /// Its changes to the surface, in order, when the check asked for them.
    pub applied: Vec<Applied>,
}

/// What a decision needs besides the surface.
pub struct Context<'a> {
    /// The log (a predicted prune reads the tool result's text).
    pub log: &'a EventLog,
    /// The settings replayed.
    pub settings: &'a ValidSettings,
    /// The price of a summary the log did not make.
    pub summary_price: u64,
    /// The next made-up node's event number.
    pub next_hypothetical: u32,
    /// Exact code points of the tool results read so far.
    pub exact: ExactChars,
}

impl Context<'_> {
    fn hypothetical(&mut self) -> u32 {
        let id = self.next_hypothetical;
        self.next_hypothetical = self.next_hypothetical.saturating_add(1);
        id
    }

    /// Whether `pruner` prunes `node`: a tool result of the log whose text holds more than its
    /// threshold. The bound first: most results are far below it, their text unread. A node
    /// the replay made up is never pruned again (a prune leaves at most head + marker + tail,
    /// within the threshold of valid settings) nor read: it is not in the log.
    fn prunes(&mut self, node: &Node, pruner: &PrunerSettings) -> bool {
        node.result
            && !node.is_hypothetical()
            && u64::from(node.chars) > pruner.threshold_chars
            && self.exact.of(self.log, node) > pruner.threshold_chars
    }

    /// Whether a pressure check that fired on `nodes` under `window` would have written
    /// compaction events: a tool result to prune, or a summary range under the retain budget
    /// (docs/policy.md: a check that fired but found neither writes nothing).
    pub fn would_act(&mut self, nodes: &Nodes, window: u64) -> bool {
        if let Some(pruner) = self.settings.pruner
            && nodes.list.iter().any(|n| self.prunes(n, &pruner))
        {
            return true;
        }
        keep_index(&nodes.list, self.settings.retain_budget(window)).is_some()
    }
}

/// The check's inputs.
pub struct Check<'a> {
    /// What fires it.
    pub kind: CheckKind,
    /// The surface when it began.
    pub nodes: &'a Nodes,
    /// The meter's total then.
    pub total: u64,
    /// The window in force.
    pub window: Option<u64>,
    /// What the log did there, when its prices and outcomes may be used.
    pub log: Option<&'a LogCompactions>,
    /// The pressure threshold is `⌊W × T⌋` times this (1: the policy's own; a what-if's range
    /// moves the thresholds after its first divergence by the observed spread).
    pub threshold_scale: f64,
    /// Record each change in [`Decision::applied`].
    pub record: bool,
}

/// `threshold × scale`, rounded; exactly `threshold` at scale 1.
fn scaled(threshold: u64, scale: f64) -> u64 {
    if scale == 1.0 {
        threshold
    } else {
        (threshold as f64 * scale).round().max(0.0) as u64
    }
}

/// Decides one check.
pub fn decide(check: &Check<'_>, ctx: &mut Context<'_>) -> Decision {
    let mut d = Decision {
        total: check.total,
        threshold: None,
        outcome: Outcome::Below,
        pruned: Vec::new(),
        summaries: Vec::new(),
        total_after: check.total,
        estimated: false,
        after: None,
        applied: Vec::new(),
    };
    let Some(plan) = plan(check, ctx, &mut d) else {
        return d;
    };
    let mut nodes = check.nodes.clone();
    if plan.prune
        && let Some(pruner) = ctx.settings.pruner
    {
        prune_results(check, ctx, &pruner, &mut nodes, &mut d);
        if !d.pruned.is_empty() {
            d.total_after = total_with(check, nodes.sum);
            d.outcome = Outcome::Pruned;
            if plan.threshold.is_some_and(|h| d.total_after < h) {
                d.after = Some(nodes);
                return d;
            }
        }
    }
    summarize_head(check, ctx, &plan, &mut nodes, &mut d);
    if !d.pruned.is_empty() || d.summaries.iter().any(|s| s.ok) {
        d.after = Some(nodes);
    }
    d
}

/// What a check that fired may do.
struct Plan {
    /// Prune tool results first.
    prune: bool,
    /// The retain budget of a summary's range.
    budget: u64,
    /// How many summaries it may try.
    attempts: usize,
    /// The (scaled) threshold the total must end below, for a pressure check.
    threshold: Option<u64>,
}

/// The plan of a check by its kind; `None` when a pressure check does not fire (no window, or
/// the total below the threshold: `d` says which).
fn plan(check: &Check<'_>, ctx: &Context<'_>, d: &mut Decision) -> Option<Plan> {
    match check.kind {
        CheckKind::Pressure => {
            let Some(window) = check.window else {
                d.outcome = Outcome::NoWindow;
                return None;
            };
            let real = ctx.settings.threshold(window);
            d.threshold = Some(real);
            let threshold = scaled(real, check.threshold_scale);
            (check.total >= threshold).then(|| Plan {
                prune: true,
                budget: ctx.settings.retain_budget(window),
                attempts: (ctx.settings.compaction_retries as usize).saturating_add(1),
                threshold: Some(threshold),
            })
        }
        CheckKind::Overflow => Some(Plan {
            prune: true,
            budget: 0,
            attempts: 1,
            threshold: None,
        }),
        CheckKind::Command => Some(Plan {
            prune: false,
            budget: 0,
            attempts: 1,
            threshold: None,
        }),
    }
}

/// The meter's total once the surface's prices sum to `sum` instead of the check's.
fn total_with(check: &Check<'_>, sum: u64) -> u64 {
    (check.total as i128 + sum as i128 - check.nodes.sum as i128).max(0) as u64
}

/// Prunes every tool result `pruner` prunes, in surface order: the log's own replacement where
/// it made the prune, else a predicted one.
fn prune_results(
    check: &Check<'_>,
    ctx: &mut Context<'_>,
    pruner: &PrunerSettings,
    nodes: &mut Nodes,
    d: &mut Decision,
) {
    for p in 0..nodes.list.len() {
        let node = nodes.list[p];
        if !ctx.prunes(&node, pruner) {
            continue;
        }
        let Some(replacement) = prune_replacement(check, ctx, pruner, node, &mut d.estimated)
        else {
            continue;
        };
        nodes.splice(p, 1, replacement);
        if check.record {
            d.applied.push(Applied {
                summary: false,
                position: p,
                removed: vec![node.event],
                replacement,
                shadowed_tokens: u64::from(node.price),
            });
        }
        d.pruned.push(PlannedPrune { node, replacement });
    }
}

/// What replaces a pruned `node`: the log's replacement, else the predicted cut (and
/// `estimated` set); `None` when the result cannot be cut.
fn prune_replacement(
    check: &Check<'_>,
    ctx: &mut Context<'_>,
    pruner: &PrunerSettings,
    node: Node,
    estimated: &mut bool,
) -> Option<Node> {
    let from_log = check.log.and_then(|l| {
        l.prunes
            .iter()
            .find(|lp| lp.target_seq == Some(node.seq))
            .and_then(|lp| lp.replacement)
    });
    if from_log.is_some() {
        return from_log;
    }
    let cut = pruned(ctx.log, EventIdx(node.event), pruner)?;
    *estimated = true;
    Some(Node {
        event: ctx.hypothetical(),
        seq: node.seq,
        price: cut.price.min(u64::from(u32::MAX)) as u32,
        calls: 0,
        result: true,
        chars: cut.chars.min(u64::from(u32::MAX)) as u32,
        chars_exact: true,
    })
}

/// Up to `plan.attempts` head-anchored summaries, each of the range the retain budget leaves,
/// until the total is below the threshold (or one summary, without a threshold).
fn summarize_head(
    check: &Check<'_>,
    ctx: &mut Context<'_>,
    plan: &Plan,
    nodes: &mut Nodes,
    d: &mut Decision,
) {
    for attempt in 0..plan.attempts {
        let Some(keep) = keep_index(&nodes.list, plan.budget) else {
            if d.pruned.is_empty() || plan.threshold.is_some() {
                d.outcome = if attempt == 0 {
                    Outcome::NoRange
                } else {
                    Outcome::StillAbove
                };
            }
            break;
        };
        let shadowed: Vec<u64> = nodes.list[..keep].iter().map(|n| n.seq).collect();
        let shadowed_tokens: u64 = nodes.list[..keep].iter().map(|n| u64::from(n.price)).sum();
        let summary = summary_node(check, ctx, attempt, shadowed_tokens, &mut d.estimated);
        d.summaries.push(PlannedSummary {
            start: shadowed[0],
            end: shadowed[keep - 1],
            shadowed,
            shadowed_tokens,
            summary_tokens: summary.map(|s| u64::from(s.price)),
            ok: summary.is_some(),
        });
        let Some(mut summary) = summary else {
            if d.pruned.is_empty() || plan.threshold.is_some() {
                d.outcome = Outcome::Failed;
            }
            break;
        };
        if summary.is_hypothetical() {
            summary.seq = nodes.list[0].seq;
        }
        if check.record {
            d.applied.push(Applied {
                summary: true,
                position: 0,
                removed: nodes.list[..keep].iter().map(|n| n.event).collect(),
                replacement: summary,
                shadowed_tokens,
            });
        }
        nodes.splice(0, keep, summary);
        d.total_after = total_with(check, nodes.sum);
        match plan.threshold {
            Some(h) if d.total_after >= h => d.outcome = Outcome::StillAbove,
            _ => {
                d.outcome = Outcome::Summarized;
                break;
            }
        }
    }
}

/// The summary of attempt `attempt`: the log's (`None` when it failed), else a predicted one
/// (and `estimated` set), which fails when it would not be smaller than what it shadows.
fn summary_node(
    check: &Check<'_>,
    ctx: &mut Context<'_>,
    attempt: usize,
    shadowed_tokens: u64,
    estimated: &mut bool,
) -> Option<Node> {
    match check.log.and_then(|l| l.summaries.get(attempt)) {
        Some(s) if s.ok => s.replacement,
        Some(_) => None,
        None => {
            *estimated = true;
            let price = ctx.summary_price;
            (price < shadowed_tokens).then(|| Node {
                event: ctx.hypothetical(),
                seq: 0,
                price: price.min(u64::from(u32::MAX)) as u32,
                calls: 0,
                result: false,
                chars: 0,
                chars_exact: true,
            })
        }
    }
}
