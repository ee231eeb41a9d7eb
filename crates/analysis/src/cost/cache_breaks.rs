//! Why the cache missed (docs/cost.md): every agent request's first change against the
//! previous agent request, and every summarizer request's against the agent request before
//! it — its cause, its position, the meter price of the identical prefix and of what the
//! previous request held after the change (sent again uncached), the cache read the prefix
//! should have given and the part of the shortfall no change explains (the provider's own
//! miss, beyond the session's cache noise). One walk over the calls in log order, each
//! request's shape built from the previous one (see `request_shape.rs`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::cache::noise;
use super::calls::CallKind;
use super::compactions::CompactionFacts;
use super::first_change::{Block, Cause, FirstChange};
use super::ledger::LedgerParts;
use super::request_shape::{RequestShape, ShapeInputs};
use surface_engine::{EventLog, Meter, Revisit, Surface};

/// One request's first change and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RequestChange {
    /// The call's seq (as in the ledger's calls).
    pub seq: u64,
    /// Agent or summarizer.
    pub kind: CallKind,
    /// The seq of the agent call it is compared with (`null`: the session's first request).
    pub against: Option<u64>,
    /// The first change.
    pub first_change: FirstChange,
    /// The meter price of the identical prefix.
    pub prefix_tokens: u64,
    /// The meter price of what the previous request held after the first change.
    pub resent_tokens: u64,
    /// `prefix_tokens` × the call's reported prompt ÷ its meter estimate (`null`: not caching,
    /// no usage, or an empty estimate).
    pub expected_cache_read: Option<u64>,
    /// The call's reported cache read (`null`: not caching, or no usage).
    pub cache_read: Option<u64>,
    /// `max(0, expected − cache_read)` beyond the session's median cache noise.
    pub provider_miss: Option<u64>,
    /// Index of the call in the ledger's calls.
    #[serde(skip)]
    pub call: usize,
    /// The call's route (index into the ledger's routes).
    #[serde(skip)]
    pub route: u32,
    /// The replay cursor the request's messages were fixed at.
    #[serde(skip)]
    pub cursor: usize,
}

/// Every request's first change, and the session's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CacheBreaks {
    /// One per call, in the ledger's order.
    pub requests: Vec<RequestChange>,
    /// Σ resent tokens (`null`: the log is not caching).
    pub resent_tokens: Option<u64>,
    /// Σ resent tokens by cause, every cause named (`null`: not caching).
    pub resent_by_cause: Option<BTreeMap<&'static str, u64>>,
    /// Σ provider misses (`null`: not caching).
    pub provider_miss: Option<u64>,
    /// The median cache noise the misses are beyond (`null`: no pair to take it from).
    pub cache_noise_median: Option<u64>,
}

impl CacheBreaks {
    /// The change of the request of call `call` (index into the ledger's calls).
    pub fn of_call(&self, call: usize) -> Option<&RequestChange> {
        let k = self.requests.partition_point(|r| r.call < call);
        self.requests.get(k).filter(|r| r.call == call)
    }

    /// The change of the agent request whose messages were fixed at `cursor`.
    pub fn agent_at_cursor(&self, cursor: usize) -> Option<&RequestChange> {
        self.requests
            .iter()
            .find(|r| r.kind == CallKind::Agent && r.cursor == cursor)
    }
}

/// The first change of every request of `parts`' calls. `surface` is processed to the end and
/// `meter` built from it, as for the ledger.
pub fn cache_breaks(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    parts: &LedgerParts,
) -> CacheBreaks {
    let inputs = ShapeInputs {
        log,
        surface,
        meter,
        replaces: &parts.replaces,
    };
    let (agents, caching) = super::ledger::agents_and_caching(parts);
    let noise_median = noise(&agents, &parts.replaces).1;
    let mut earlier = Revisit::new(surface);
    let mut prev = RequestShape::default();
    let mut prev_seq = None;
    let mut requests = Vec::with_capacity(parts.calls.len());
    for (k, call) in parts.calls.iter().enumerate() {
        let shape = inputs.shape_of(&prev, call, &mut earlier);
        let (first_change, prefix_tokens) = first_change(&inputs, &prev, &shape, parts);
        let resent_tokens = prev.total().saturating_sub(prefix_tokens);
        let reported = caching && call.reported;
        let expected = (reported && shape.total() > 0).then(|| {
            (u128::from(prefix_tokens) * u128::from(call.tokens.prompt())
                / u128::from(shape.total())) as u64
        });
        requests.push(RequestChange {
            seq: call.seq,
            kind: call.kind,
            against: prev_seq,
            first_change,
            prefix_tokens,
            resent_tokens,
            expected_cache_read: expected,
            cache_read: reported.then_some(call.tokens.cache_read),
            provider_miss: expected.map(|e| {
                e.saturating_sub(call.tokens.cache_read)
                    .saturating_sub(noise_median.unwrap_or_default())
            }),
            call: k,
            route: call.route,
            cursor: call.cursor,
        });
        if call.kind == CallKind::Agent {
            prev = shape;
            prev_seq = Some(call.seq);
        }
    }
    totals(requests, caching, noise_median)
}

fn totals(requests: Vec<RequestChange>, caching: bool, noise: Option<u64>) -> CacheBreaks {
    let mut by_cause: BTreeMap<&'static str, u64> =
        Cause::ALL.iter().map(|c| (c.as_str(), 0)).collect();
    for r in &requests {
        *by_cause.entry(r.first_change.cause.as_str()).or_default() += r.resent_tokens;
    }
    let resent: u64 = requests.iter().map(|r| r.resent_tokens).sum();
    let missed: u64 = requests.iter().filter_map(|r| r.provider_miss).sum();
    CacheBreaks {
        requests,
        resent_tokens: caching.then_some(resent),
        resent_by_cause: caching.then_some(by_cause),
        provider_miss: caching.then_some(missed),
        cache_noise_median: noise,
    }
}

/// The first change of `next` against `prev`, and the meter price of the identical prefix.
fn first_change(
    inputs: &ShapeInputs<'_>,
    prev: &RequestShape<'_>,
    next: &RequestShape<'_>,
    parts: &LedgerParts,
) -> (FirstChange, u64) {
    if prev.route.is_none() {
        // The session's first request: nothing was sent before it.
        return (FirstChange::in_messages(Cause::None, 0, None), 0);
    }
    if prev.route != next.route {
        return (FirstChange::in_header(Cause::Model, Block::System, 0), 0);
    }
    if prev.system() != next.system() {
        return (FirstChange::in_header(Cause::System, Block::System, 0), 0);
    }
    let (old, new) = (prev.tools(), next.tools());
    if old != new {
        let at = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let system_price = prev.header.map_or(0, |h| h.system_price());
        return (
            FirstChange::in_header(Cause::Tools, Block::Tools, at),
            system_price,
        );
    }
    let i = if inputs.only_appends(prev.cursor, next.cursor) {
        prev.nodes.len()
    } else {
        common_prefix(inputs, prev, next)
    };
    let prefix = prev.header_price() + prev.messages_before(i);
    (
        message_change(inputs, prev, next, i, &parts.compactions),
        prefix,
    )
}

/// How many messages `prev` and `next` share from the start.
fn common_prefix(
    inputs: &ShapeInputs<'_>,
    prev: &RequestShape<'_>,
    next: &RequestShape<'_>,
) -> usize {
    prev.nodes
        .iter()
        .zip(&next.nodes)
        .take_while(|&(&a, &b)| inputs.same_message(a, b))
        .count()
}

/// The cause of a first difference at message `i`.
fn message_change(
    inputs: &ShapeInputs<'_>,
    prev: &RequestShape<'_>,
    next: &RequestShape<'_>,
    i: usize,
    compactions: &[CompactionFacts],
) -> FirstChange {
    let seq_at = |k: usize| next.nodes.get(k).map(|&n| inputs.log.event(n).seq);
    if i >= prev.nodes.len() {
        return FirstChange::in_messages(Cause::None, i, seq_at(i));
    }
    let Some(&here) = next.nodes.get(i) else {
        return FirstChange::in_messages(Cause::Edit, i, None);
    };
    let k = compactions.partition_point(|c| c.event < here);
    if let Some(c) = compactions.get(k).filter(|c| c.event == here) {
        let mut change = FirstChange::in_messages(Cause::Replace, i, seq_at(i));
        change.replace_seq = Some(c.seq);
        change.replace_kind = Some(c.kind);
        return change;
    }
    let moved_down = next
        .nodes
        .get(i + 1)
        .is_some_and(|&n| inputs.same_message(prev.nodes[i], n));
    let cause = if moved_down {
        Cause::Insert
    } else {
        Cause::Edit
    };
    FirstChange::in_messages(cause, i, seq_at(i))
}
