//! One run made ready for the comparison (docs/compare.md): its figures per turn, read from the
//! engine's own results — the cost ledger's calls (docs/cost.md#the-calls), the audit's replace
//! kinds, failed compactions, requests over the threshold and refetches (docs/audit.md), the
//! meter's totals (docs/meter.md#the-meter-in-one-paragraph) — and its agent calls by turn and
//! step. Every event counts for the turn of the last `turn/start` at or before it ([`Positions`]).
//! Independent of the other run, so that each side can be analysed on its own thread.

use serde::Serialize;

use super::position::{Position, Positions};
use super::row::{Row, add_money};
use crate::audit::{Audit, ReplaceKind, audit_without_terms};
use crate::cost::{BreakTotals, CallKind, Ledger, PriceTable, cache_breaks, parts_of};
use surface_engine::{EventIdx, EventLog, Meter, Surface};

/// One agent call, where it lies and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CallFigures {
    /// The event that reports its usage (its `assistant/message`, else its `step/start`).
    pub seq: u64,
    /// Its prompt (uncached + cache read + cache write).
    pub prompt: u64,
    /// Its cache read (`null` when the log reports no cache read at all).
    pub cache_read: Option<u64>,
    /// Its output.
    pub output: u64,
    /// Its cost (`null` without prices, or without a price for its model).
    pub cost: Option<f64>,
    /// Its turn and step.
    #[serde(skip)]
    pub position: Position,
    /// The event [`CallFigures::seq`] names.
    #[serde(skip)]
    pub event: EventIdx,
}

/// One run, analysed.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysed {
    /// Events in the log.
    pub events: usize,
    /// Where each event lies.
    pub positions: Positions,
    /// The figures of each turn, by turn index (turn 0: the events before the first
    /// `turn/start`, `None` when they made no model call and no compaction).
    pub turns: Vec<Option<Row>>,
    /// The figures of the whole run.
    pub total: Row,
    /// The agent calls, in log order.
    pub calls: Vec<CallFigures>,
    /// Some agent call read from the cache (cache figures are shown, else `null`).
    pub caching: bool,
    /// The price file's currency (`None`: not priced).
    pub currency: Option<String>,
    /// The threshold ratio the requests over the threshold were judged by.
    pub threshold_ratio: f64,
    /// The context window in force at the end.
    pub window: Option<u64>,
    /// Why the cache missed: the resent tokens by cause and the provider misses
    /// (docs/cost.md#why-the-cache-missed).
    pub cache_misses: BreakTotals,
}

/// Analyses one run. `surface` must be processed to the end and `meter` built from it (as for
/// [`audit_without_terms`] and the ledger, which this builds); `ratio` is the threshold ratio.
pub fn analyse(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    ratio: f64,
    prices: Option<&PriceTable>,
) -> Analysed {
    let audit = audit_without_terms(log, surface, meter, ratio);
    let parts = parts_of(log, surface, meter);
    let ledger = Ledger::build(&parts, prices);
    let breaks = cache_breaks(log, surface, meter, &parts);
    let cache_misses = BreakTotals::of(&breaks, &parts.routes, prices);
    analyse_parts(log, meter, &audit, &ledger, cache_misses)
}

/// [`analyse`] from an audit, a ledger and its cache breaks' totals the caller already has.
pub fn analyse_parts(
    log: &EventLog,
    meter: &Meter,
    audit: &Audit,
    ledger: &Ledger,
    cache_misses: BreakTotals,
) -> Analysed {
    let positions = Positions::build(log);
    let priced = ledger.currency.is_some();
    let caching = ledger.caching;
    let empty = Row {
        cache_read: caching.then_some(0),
        cost: priced.then_some(0.0),
        summarizer_cost: priced.then_some(0.0),
        ..Row::default()
    };
    let turn_count = positions.turns() as usize;
    let mut rows = vec![empty; turn_count + 1];
    let n = log.len();
    for (t, row) in rows.iter_mut().enumerate() {
        let range = positions.turn_range(t as u64, n);
        row.events = range.len() as u64;
        row.peak_total = range
            .map(|i| u64::from(meter.total_after(i)))
            .max()
            .unwrap_or(0);
    }
    let calls = add_calls(ledger, &positions, &mut rows);
    add_compactions(audit, &positions, &mut rows);
    let mut total = empty;
    for row in &rows {
        total.add(row);
    }
    let mut turns: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    // Turn 0 is shown only when something was paid for or compacted before the first
    // `turn/start`: a log's opening bookkeeping (an inbox splice, a header) is no turn. Its
    // events still count in the total.
    if let Some(zero) = turns.first_mut()
        && zero.is_some_and(|r| !r.did_anything())
    {
        *zero = None;
    }
    Analysed {
        events: n,
        positions,
        turns,
        total,
        calls,
        caching,
        currency: ledger.currency.clone(),
        threshold_ratio: audit.threshold_ratio,
        window: audit.window,
        cache_misses,
    }
}

/// Adds every call of the ledger to its turn's row (calls, tokens, the bill), and gives the
/// agent calls' figures in order.
fn add_calls(ledger: &Ledger, positions: &Positions, rows: &mut [Row]) -> Vec<CallFigures> {
    let priced = ledger.currency.is_some();
    let caching = ledger.caching;
    let mut calls = Vec::new();
    for c in &ledger.calls {
        let position = positions.of(c.call.event);
        let Some(row) = rows.get_mut(position.turn as usize) else {
            continue;
        };
        let cost = c.cost.filter(|_| priced);
        // A call without usage shows no bill; one with usage and no price leaves the row's
        // cost unknown (never 0).
        let billed = match (priced, c.call.reported, cost) {
            (false, ..) => None,
            (true, false, _) => Some(0.0),
            (true, true, Some(cost)) => Some(cost),
            (true, true, None) => {
                row.unpriced_calls += 1;
                None
            }
        };
        row.cost = add_money(row.cost, billed);
        match c.call.kind {
            CallKind::Agent => {
                row.agent_calls += 1;
                row.prompt += c.prompt;
                row.cache_read = row.cache_read.map(|r| r + c.call.tokens.cache_read);
                row.output += c.call.tokens.output;
                calls.push(CallFigures {
                    seq: c.call.seq,
                    prompt: c.prompt,
                    cache_read: caching.then_some(c.call.tokens.cache_read),
                    output: c.call.tokens.output,
                    cost,
                    position,
                    event: c.call.event,
                });
            }
            CallKind::Summarizer => {
                row.summarizer_calls += 1;
                row.summarizer_tokens += c.prompt + c.call.tokens.output;
                row.summarizer_cost = add_money(row.summarizer_cost, billed);
            }
        }
    }
    calls
}

/// Counts the audit's summaries, prunes, refetches, failed compactions and requests over the
/// threshold in their turns' rows.
fn add_compactions(audit: &Audit, positions: &Positions, rows: &mut [Row]) {
    let mut count = |idx: EventIdx, field: fn(&mut Row) -> &mut u64| {
        if let Some(row) = rows.get_mut(positions.turn_of(idx) as usize) {
            *field(row) += 1;
        }
    };
    for r in &audit.replaces {
        match r.kind {
            ReplaceKind::Summary => count(r.event, |row| &mut row.summaries),
            ReplaceKind::Prune => count(r.event, |row| &mut row.prunes),
            ReplaceKind::Other => {}
        }
        for refetch in &r.refetches {
            count(refetch.call, |row| &mut row.refetches);
        }
    }
    for f in &audit.failed {
        count(f.event, |row| &mut row.failed);
    }
    for o in &audit.over_threshold_requests {
        count(o.event, |row| &mut row.over_threshold);
    }
}
