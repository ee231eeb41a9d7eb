//! The replay: one walk over the input's stream with the given settings. *Verify* keeps the
//! surface as the log has it and decides every check on it; *what-if* removes the log's own
//! compactions, applies the policy's instead, and after the first check where the two differ
//! re-anchors the meter's figures on the hypothetical surface (docs/policy.md).

use super::decide::{Check, Context, Decision, Outcome, decide};
use super::facts::ExactChars;
use super::infer::RatioBracket;
use super::input::{CheckKind, CheckPoint, Item, PolicyInput};
use super::node::{Node, Nodes};
use super::report::{
    CANT_JUDGE_NO_WINDOW, CheckVerdict, CurveMark, Divergence, PolicyReport, ReplayMode,
    SettingsShown, Totals, WhatIfCurve,
};
use super::settings::ValidSettings;
use super::spread::Spread;
use super::trace::{HypAttempt, HypCompaction, RequestTail, WhatIfTrace};
use super::verdict::{actual_shown, difference};
use std::collections::HashSet;
use surface_engine::{EventIdx, EventLog, Meter};

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
    replay_scaled(log, meter, input, settings, mode, 1.0)
}

/// [`replay`] with every pressure threshold after a what-if's first divergence multiplied by
/// `threshold_scale` (see [`super::count_ranges`]).
pub(super) fn replay_scaled(
    log: &EventLog,
    meter: &Meter,
    input: &PolicyInput,
    settings: &ValidSettings,
    mode: ReplayMode,
    threshold_scale: f64,
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
        threshold_scale,
        spread: input.spread(),
        trace: WhatIfTrace::default(),
        watched: HashSet::new(),
        pending_position: None,
        awaiting_ratio: false,
    };
    walk.run();
    let mut notes = Vec::new();
    if walk.no_window {
        notes.push(
            "no context window in force at some checks: pressure cannot fire there (outcome no-window), and where the log compacted the policy can't judge"
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
        spread: walk.spread,
        curve: walk.curve,
        trace: walk.trace,
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
    /// Pressure thresholds after the first divergence are multiplied by this.
    threshold_scale: f64,
    /// The observed spread of the provider's prompt against the meter's estimate.
    spread: Option<Spread>,
    /// The what-if's record for its ledger.
    trace: WhatIfTrace,
    /// Compaction replacement nodes on the what-if surface whose shadowing is recorded.
    watched: HashSet<u32>,
    /// The earliest surface position hypothetical compactions changed since the last request.
    pending_position: Option<usize>,
    /// The last request recorded a tail whose call's ratio the next anchor gives.
    awaiting_ratio: bool,
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
                        if std::mem::take(&mut self.awaiting_ratio)
                            && let Some(tail) = self.trace.tails.last_mut()
                        {
                            tail.ratio = Some(ratio);
                        }
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
                self.watch_shadowing(first, last, node.event as usize);
                if self.hyp.replace_range(first, last, node).is_some() && compaction {
                    self.watched.insert(node.event);
                }
            }
            self.note_offset(node.event as usize + 1);
        }
    }

    /// Records which watched compaction replacements the replace of `first ..= last` on the
    /// what-if surface shadows (`by`: the event a call's cursor must pass to no longer see
    /// them).
    fn watch_shadowing(&mut self, first: u32, last: u32, by: usize) {
        if self.watched.is_empty() {
            return;
        }
        let (Some(a), Some(b)) = (self.hyp.position(first), self.hyp.position(last)) else {
            return;
        };
        for n in self.hyp.list.get(a..=b).unwrap_or(&[]) {
            if self.watched.remove(&n.event) {
                self.trace.until.insert(n.event, by);
            }
        }
    }

    /// Records a hypothetical decision at check `index` (cursor `cursor`) for the ledger.
    fn record(&mut self, index: usize, cursor: usize, d: &Decision) {
        let by = cursor.saturating_sub(1);
        for a in &d.applied {
            for e in &a.removed {
                if self.watched.remove(e) {
                    self.trace.until.insert(*e, by);
                }
            }
            self.watched.insert(a.replacement.event);
            self.pending_position = Some(
                self.pending_position
                    .map_or(a.position, |p| p.min(a.position)),
            );
            self.trace.compactions.push(HypCompaction {
                check: index,
                cursor,
                summary: a.summary,
                position: a.position,
                shadowed_tokens: a.shadowed_tokens,
                replacement_tokens: u64::from(a.replacement.price),
                node: a.replacement.event,
            });
        }
        for s in &d.summaries {
            self.trace.attempts.push(HypAttempt {
                check: index,
                cursor,
                shadowed_tokens: s.shadowed_tokens,
                ok: s.ok,
            });
        }
    }

    fn request(&mut self, cursor: usize) {
        if self.what_if() {
            self.awaiting_ratio = false;
            if let Some(p) = self.pending_position.take() {
                let tail = self
                    .hyp
                    .list
                    .get(p..)
                    .unwrap_or(&[])
                    .iter()
                    .map(|n| u64::from(n.price))
                    .sum();
                self.trace.tails.push(RequestTail {
                    cursor,
                    tail,
                    ratio: None,
                });
                self.awaiting_ratio = true;
            }
        }
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
        self.count_log(point, actual_total, window);
        let allowed = point.kind != CheckKind::Overflow
            || self.overflow_recoveries < self.ctx.settings.max_overflow_retries;
        // Exact: decide on the log's surface with the log's prices, and compare.
        let exact_now = !self.diverged;
        // Pressure needs a window: where the log compacted without one the policy cannot
        // judge, and the replay follows the log (what-if: its compactions stay).
        let cant_judge = point.kind == CheckKind::Pressure && window.is_none() && log.any();
        let mut note = cant_judge.then(|| {
            format!("{CANT_JUDGE_NO_WINDOW}: the log compacted here with no context window in force, and the policy's pressure check needs one")
        });
        let (decision, why) = if exact_now {
            self.decide_exact(point, (actual_total, window), allowed, cant_judge)
        } else {
            (None, None)
        };
        let decision = match decision {
            Some(d) => d,
            None => self.decide_hypothetical(
                point,
                (actual_total, window),
                allowed,
                exact_now,
                &mut note,
            ),
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
        if !allowed && note.is_none() {
            note = Some(format!(
                "past the overflow recoveries in a row ({}): the error stands",
                self.ctx.settings.max_overflow_retries
            ));
        }
        self.count(point.kind, &decision);
        // After a what-if's first divergence nothing is compared.
        let agrees = (exact_now && !cant_judge).then_some(why.is_none());
        let exact = exact_now && why.is_none() && !decision.estimated;
        // After the divergence a total is an estimate: near when the threshold lies within
        // the observed spread of it.
        let near = !exact_now
            && point.kind == CheckKind::Pressure
            && decision
                .threshold
                .zip(self.spread)
                .is_some_and(|(h, s)| s.near(decision.total, h));
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
            near,
            why,
            note,
            cursor,
        });
    }

    /// The log's own figures at a check, and the ratio bracket a pressure check with a window
    /// narrows.
    fn count_log(&mut self, point: &CheckPoint, actual_total: u64, window: Option<u64>) {
        let log = &point.log;
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
    }

    /// The decision before any divergence, on the log's surface (a what-if's own while it has
    /// not diverged) with the log's prices, and why it differs from what the log did. A
    /// what-if's first difference is its divergence: the decision is dropped, to be made again
    /// on the hypothetical surface.
    fn decide_exact(
        &mut self,
        point: &CheckPoint,
        (actual_total, window): (u64, Option<u64>),
        allowed: bool,
        cant_judge: bool,
    ) -> (Option<Decision>, Option<String>) {
        let cursor = point.cursor as usize;
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
            (true, 1.0),
        );
        let why = difference(point.kind, &d, &point.log).filter(|_| !cant_judge);
        let mut decision = Some(d);
        if why.is_some() && (self.what_if() || self.first_divergence.is_none()) {
            if self.what_if() {
                self.diverged = true;
                self.trace.divergence_cursor = Some(cursor);
                decision = None;
            }
            self.first_divergence = Some(Divergence {
                step_start_seq: self.seq_of(point.event),
                why: why.clone().unwrap_or_default(),
                cursor,
            });
        }
        (decision, why)
    }

    /// The decision on the hypothetical surface (a what-if from its divergence on), which
    /// becomes the replay's surface.
    fn decide_hypothetical(
        &mut self,
        point: &CheckPoint,
        (actual_total, window): (u64, Option<u64>),
        allowed: bool,
        exact_now: bool,
        note: &mut Option<String>,
    ) -> Decision {
        let cursor = point.cursor as usize;
        let total = self.total_at(cursor);
        let overflowed = point.kind != CheckKind::Overflow
            || hypothetical_overflows(total, actual_total, window);
        // The divergent check's own total is the meter's: only later ones are moved.
        let scale = if exact_now { 1.0 } else { self.threshold_scale };
        let mut d = decide_on(
            &mut self.ctx,
            point,
            &self.hyp,
            (total, window),
            allowed && overflowed,
            (false, scale),
        );
        if !overflowed {
            d.outcome = Outcome::Below;
            *note = Some(format!(
                "no overflow: the hypothetical request ({total} tokens) fits the window{} and is smaller than the log's ({actual_total}), which overflowed",
                window.map_or(String::new(), |w| format!(" ({w})"))
            ));
        }
        self.record(self.checks.len(), cursor, &d);
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

/// Whether the hypothetical request of an overflow check (`total` tokens) overflows too: at or
/// over the window in force (the totals count it as a request over the window), or no smaller
/// than the log's request, which did.
fn hypothetical_overflows(total: u64, actual_total: u64, window: Option<u64>) -> bool {
    total >= actual_total || window.is_some_and(|w| total >= w)
}

/// Decides `point` on `nodes` at `(total, window)`; `allowed` false: an overflow past the
/// retries, whose error stands; `with_log`: the log's own prices and outcomes may be used
/// (else the decision's changes are recorded); `threshold_scale` multiplies the threshold.
fn decide_on(
    ctx: &mut Context<'_>,
    point: &CheckPoint,
    nodes: &Nodes,
    (total, window): (u64, Option<u64>),
    allowed: bool,
    (with_log, threshold_scale): (bool, f64),
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
            applied: Vec::new(),
        };
    }
    let check = Check {
        kind: point.kind,
        nodes,
        total,
        window,
        log: with_log.then_some(&point.log),
        threshold_scale,
        record: !with_log,
    };
    decide(&check, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hypothetical_request_over_the_window_overflows_even_when_smaller_than_the_logs() {
        // 3156 tokens in a 3072 window: over it, though the log's request was larger still.
        assert!(hypothetical_overflows(3156, 3300, Some(3072)));
        assert!(hypothetical_overflows(3300, 3300, Some(4000)));
        // Under the window and under the log's: it would not have overflowed.
        assert!(!hypothetical_overflows(3000, 3300, Some(3072)));
        assert!(!hypothetical_overflows(3000, 3300, None));
    }
}
