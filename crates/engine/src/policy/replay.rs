//! The replay: one walk over the input's stream with the given settings. *Verify* keeps the
//! surface as the log has it and decides every check on it; *what-if* removes the log's own
//! compactions, applies the policy's instead, and after the first check where the two differ
//! re-anchors the meter's figures on the hypothetical surface (viewer-spec §10.4).

use super::decide::{Check, Context, Decision, Outcome, decide};
use super::facts::ExactChars;
use super::infer::RatioBracket;
use super::input::{CheckKind, CheckPoint, Item, PolicyInput};
use super::node::{Node, Nodes};
use super::report::{
    CheckVerdict, CurveMark, Divergence, PolicyReport, ReplayMode, SettingsShown, Totals,
    WhatIfCurve,
};
use super::settings::ValidSettings;
use super::verdict::{actual_shown, difference};
use crate::{EventIdx, EventLog, Meter};

/// Replays the policy with `settings` over the log `input` was built from (`meter` is that
/// log's meter). The settings are ones [`PolicySettings::validate`](super::PolicySettings::validate)
/// accepted.
pub fn replay(
    log: &EventLog,
    meter: &Meter,
    input: &PolicyInput,
    settings: &ValidSettings,
    mode: ReplayMode,
) -> PolicyReport {
    let window = meter.window_at(input.events);
    let summary_tokens = settings
        .summary_tokens
        .or_else(|| input.mean_summary_price())
        .unwrap_or_else(|| window.map_or(1, |w| (w / 50).max(1)));
    let mut walk = Walk {
        log,
        meter,
        input,
        mode,
        ctx: Context {
            log,
            settings,
            summary_price: summary_tokens,
            next_hypothetical: Node::HYPOTHETICAL,
            exact: ExactChars::default(),
        },
        actual: Nodes::default(),
        hyp: Nodes::default(),
        diverged: false,
        step_delta: 0,
        anchor_correction: 0,
        overflow_recoveries: 0,
        checks: Vec::with_capacity(input.checks.len()),
        first_divergence: None,
        totals: Totals::default(),
        actual_totals: Totals::default(),
        curve: WhatIfCurve::default(),
        last_offset: 0,
        no_window: false,
        ratio: RatioBracket::default(),
    };
    walk.run();
    let mut notes = Vec::new();
    if walk.no_window {
        notes.push(
            "no context window in force at some checks: pressure cannot fire there (outcome no-window)"
                .to_string(),
        );
    }
    if let Some(era) = &input.older_era {
        notes.push(format!(
            "the policy modelled is the HEAD harness's compaction-basic with the tool-result pruner; this log may come from an older harness (era: {era}), whose compactions another policy made"
        ));
    }
    let mut inferred = input.inferred(log).clone();
    walk.ratio.finish(&mut inferred);
    PolicyReport {
        mode,
        window,
        settings: SettingsShown::of(settings.get(), summary_tokens),
        inferred,
        checks: walk.checks,
        first_divergence: walk.first_divergence,
        totals: walk.totals,
        actual_totals: walk.actual_totals,
        notes,
        curve: walk.curve,
    }
}

struct Walk<'a> {
    log: &'a EventLog,
    meter: &'a Meter,
    input: &'a PolicyInput,
    mode: ReplayMode,
    ctx: Context<'a>,
    /// The surface as the log has it.
    actual: Nodes,
    /// The what-if surface (what-if only).
    hyp: Nodes,
    diverged: bool,
    /// Hypothetical minus actual surface tokens at the last `step/start`.
    step_delta: i64,
    /// What the re-anchored usage adds to the total since the last anchor.
    anchor_correction: i64,
    overflow_recoveries: u32,
    checks: Vec<CheckVerdict>,
    first_divergence: Option<Divergence>,
    totals: Totals,
    actual_totals: Totals,
    curve: WhatIfCurve,
    last_offset: i64,
    no_window: bool,
    /// The threshold ratio the log's pressure checks bracket.
    ratio: RatioBracket,
}

impl Walk<'_> {
    fn what_if(&self) -> bool {
        self.mode == ReplayMode::WhatIf
    }

    /// What-if total minus the meter's total, now.
    fn offset(&self) -> i64 {
        if !self.what_if() {
            return 0;
        }
        self.hyp.sum as i64 - self.actual.sum as i64 + self.anchor_correction
    }

    fn note_offset(&mut self, cursor: usize) {
        let offset = self.offset();
        if offset != self.last_offset {
            match self.curve.stretches.last_mut() {
                Some(last) if last.0 == cursor => last.1 = offset,
                _ => self.curve.stretches.push((cursor, offset)),
            }
            self.last_offset = offset;
        }
    }

    fn total_at(&self, cursor: usize) -> u64 {
        (self.meter.at(cursor).total as i64 + self.offset()).max(0) as u64
    }

    fn run(&mut self) {
        let input = self.input;
        for item in &input.items {
            match *item {
                Item::Append(node) => {
                    self.actual.push(node);
                    if self.what_if() {
                        self.hyp.push(node);
                    }
                }
                Item::Replace {
                    node,
                    first,
                    last,
                    compaction,
                } => self.replace(node, first, last, compaction),
                Item::StepStart(_) => {
                    self.step_delta = self.hyp.sum as i64 - self.actual.sum as i64;
                }
                Item::OverflowReset => self.overflow_recoveries = 0,
                Item::Anchor { cursor, ratio } => {
                    if self.what_if() {
                        self.anchor_correction = (self.step_delta as f64 * (ratio - 1.0)) as i64;
                        self.note_offset(cursor as usize);
                    }
                }
                Item::Request(cursor) => self.request(cursor as usize),
                Item::Check(k) => {
                    if let Some(point) = input.checks.get(k as usize) {
                        self.check(point);
                    }
                }
            }
        }
    }

    fn replace(&mut self, node: Node, first: u32, last: u32, compaction: bool) {
        let removed = self.actual.replace_range(first, last, node);
        if compaction && !node.result {
            self.actual_totals.summarized_tokens += removed.unwrap_or(0);
        }
        if self.what_if() {
            if !compaction || !self.diverged {
                self.hyp.replace_range(first, last, node);
            }
            self.note_offset(node.event as usize + 1);
        }
    }

    fn request(&mut self, cursor: usize) {
        let actual = self.meter.at(cursor).total;
        let window = self.meter.window_at(cursor);
        let threshold = window.map(|w| self.ctx.settings.threshold(w));
        let count = |t: &mut Totals, total: u64| {
            t.peak_total = t.peak_total.max(total);
            if threshold.is_some_and(|h| total >= h) {
                t.requests_over_threshold += 1;
            }
            if window.is_some_and(|w| total >= w) {
                t.requests_over_window += 1;
            }
        };
        count(&mut self.actual_totals, actual);
        let ours = self.total_at(cursor);
        count(&mut self.totals, ours);
    }

    fn check(&mut self, point: &CheckPoint) {
        let cursor = point.cursor as usize;
        let window = self.meter.window_at(cursor);
        let actual_total = self.meter.at(cursor).total;
        let log = &point.log;
        // The log's own figures.
        let a = &mut self.actual_totals;
        a.checks += usize::from(point.kind == CheckKind::Pressure);
        a.fired += usize::from(log.any());
        a.prunes += log
            .prunes
            .iter()
            .filter(|p| p.replacement.is_some())
            .count();
        a.summaries += log.summaries.iter().filter(|s| s.ok).count();
        a.peak_total = a.peak_total.max(actual_total);
        if point.kind == CheckKind::Pressure && window.is_none() {
            self.no_window = true;
        }
        if point.kind == CheckKind::Pressure
            && let Some(w) = window
        {
            let (ctx, nodes) = (&mut self.ctx, &self.actual);
            self.ratio
                .check(actual_total, w, log.any(), || ctx.would_act(nodes, w));
        }
        let allowed = point.kind != CheckKind::Overflow
            || self.overflow_recoveries < self.ctx.settings.max_overflow_retries;
        // Exact: decide on the log's surface with the log's prices, and compare.
        let exact_now = !self.diverged;
        let mut decision = None;
        let mut why = None;
        if exact_now {
            let nodes = if self.what_if() {
                &self.hyp
            } else {
                &self.actual
            };
            let d = decide_on(
                &mut self.ctx,
                point,
                nodes,
                (actual_total, window),
                allowed,
                true,
            );
            why = difference(point.kind, &d, log);
            decision = Some(d);
            if why.is_some() && self.what_if() {
                self.diverged = true;
                self.first_divergence = Some(Divergence {
                    step_start_seq: self.seq_of(point.event),
                    why: why.clone().unwrap_or_default(),
                });
                decision = None;
            }
        }
        if self.mode == ReplayMode::Verify && why.is_some() && self.first_divergence.is_none() {
            self.first_divergence = Some(Divergence {
                step_start_seq: self.seq_of(point.event),
                why: why.clone().unwrap_or_default(),
            });
        }
        let decision = match decision {
            Some(d) => d,
            None => {
                let total = self.total_at(cursor);
                // An overflow the smaller hypothetical request would not have hit.
                let overflowed = point.kind != CheckKind::Overflow || total >= actual_total;
                let mut d = decide_on(
                    &mut self.ctx,
                    point,
                    &self.hyp,
                    (total, window),
                    allowed && overflowed,
                    false,
                );
                if !overflowed {
                    d.outcome = Outcome::Below;
                }
                if let Some(after) = d.after.take() {
                    self.hyp = after;
                    self.note_offset(cursor);
                    self.curve.marks.push(CurveMark {
                        cursor,
                        before: d.total,
                        after: d.total_after,
                        summary: d.summaries.iter().any(|s| s.ok),
                        exact: false,
                    });
                }
                d
            }
        };
        if exact_now && self.what_if() && decision.after.is_some() {
            self.curve.marks.push(CurveMark {
                cursor,
                before: decision.total,
                after: decision.total_after,
                summary: decision.summaries.iter().any(|s| s.ok),
                exact: true,
            });
        }
        if point.kind == CheckKind::Overflow && decision.after.is_some() {
            self.overflow_recoveries += 1;
        }
        self.count(point.kind, &decision);
        // After a what-if's first divergence nothing is compared.
        let agrees = exact_now.then_some(why.is_none());
        let exact = exact_now && why.is_none() && !decision.estimated;
        self.checks.push(CheckVerdict {
            step_start_seq: self.seq_of(point.event),
            turn: point.turn,
            step: point.step,
            trigger: point.kind,
            total: decision.total,
            threshold: decision.threshold,
            window,
            outcome: decision.outcome,
            pruned: decision.pruned.iter().map(|p| p.node.seq).collect(),
            summaries: decision.summaries,
            total_after: decision.total_after,
            exact,
            actual: Some(actual_shown(log)),
            agrees,
            why,
            cursor,
        });
    }

    fn count(&mut self, kind: CheckKind, d: &Decision) {
        let t = &mut self.totals;
        t.checks += usize::from(kind == CheckKind::Pressure);
        t.fired += usize::from(!d.pruned.is_empty() || !d.summaries.is_empty());
        t.prunes += d.pruned.len();
        t.summaries += d.summaries.iter().filter(|s| s.ok).count();
        t.summarized_tokens += d
            .summaries
            .iter()
            .filter(|s| s.ok)
            .map(|s| s.shadowed_tokens)
            .sum::<u64>();
        t.peak_total = t.peak_total.max(d.total);
    }

    fn seq_of(&self, event: u32) -> u64 {
        let idx = EventIdx(event.min(self.log.len().saturating_sub(1) as u32));
        if self.log.is_empty() {
            0
        } else {
            self.log.event(idx).seq
        }
    }
}

/// Decides `point` on `nodes` at `(total, window)`; `allowed` false: an overflow past the
/// retries, whose error stands; `with_log`: the log's own prices and outcomes may be used.
fn decide_on(
    ctx: &mut Context<'_>,
    point: &CheckPoint,
    nodes: &Nodes,
    (total, window): (u64, Option<u64>),
    allowed: bool,
    with_log: bool,
) -> Decision {
    if !allowed {
        return Decision {
            total,
            threshold: None,
            outcome: Outcome::Failed,
            pruned: Vec::new(),
            summaries: Vec::new(),
            total_after: total,
            estimated: false,
            after: None,
        };
    }
    let check = Check {
        kind: point.kind,
        nodes,
        total,
        window,
        log: with_log.then_some(&point.log),
    };
    decide(&check, ctx)
}
