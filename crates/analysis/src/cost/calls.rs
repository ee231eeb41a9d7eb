//! The model calls a session paid for (docs/cost.md): one *agent call* per model step that
//! sent a request (its usage is the step's `assistant/message`'s, or its `usage` chunk's — read
//! as the request view reads it, from the meter's anchors), and one *summarizer call* per
//! `compaction/summary` (its `usage`). Each call knows where its prompt was fixed (the replay
//! cursor), so that compactions can be placed between calls, and which provider and model it
//! used (the `request/header` in force; a summary's own `provider`/`model`), for its price.

use serde::Serialize;
use serde_json::Value;

use super::tokens::Tokens;
use surface_engine::compactions::{Scan, TurnField};
use surface_engine::meter::{Anchor, Usage};
use surface_engine::turn_fields_of_bytes;
use surface_engine::{EventIdx, EventLog, Meter, request_cursor};
use surface_engine::{may_be_usage_chunk, reported_usage};

/// Which kind of model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallKind {
    /// A step's model call.
    Agent,
    /// A summarizing compaction's own call.
    Summarizer,
}

impl CallKind {
    /// `"agent"` or `"summarizer"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Agent => "agent",
            CallKind::Summarizer => "summarizer",
        }
    }
}

/// The provider and model a call was sent to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Route {
    /// `config.provider` of the header in force (a summary's own `provider`).
    pub provider: Option<String>,
    /// `config.model` of the header in force (a summary's own `model`).
    pub model: Option<String>,
}

impl Route {
    /// `provider/model`, `model`, or `"unknown model"`.
    pub fn label(&self) -> String {
        match (&self.provider, &self.model) {
            (Some(p), Some(m)) => format!("{p}/{m}"),
            (None, Some(m)) => m.clone(),
            (Some(p), None) => format!("{p}/?"),
            (None, None) => "unknown model".to_string(),
        }
    }
}

/// One model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Call {
    /// The event that reports its usage: the `assistant/message` (the `step/start` when the
    /// step has none), or the `compaction/summary`.
    pub seq: u64,
    /// Agent or summarizer.
    pub kind: CallKind,
    /// The turn it ran in.
    pub turn: Option<u64>,
    /// The step (agent calls).
    pub step: Option<u64>,
    /// Its tokens (all 0 when the provider reported none: see `reported`).
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Whether the provider reported usage for it.
    pub reported: bool,
    /// Index into the ledger's routes: the provider and model it was sent to.
    pub route: u32,
    /// The event [`Call::seq`] names.
    #[serde(skip)]
    pub event: EventIdx,
    /// Its prompt was the surface after the first `cursor` events: a replace at event index
    /// `r` is in it when `r < cursor`.
    #[serde(skip)]
    pub cursor: usize,
}

/// Distinct routes, in order of first use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    /// The routes; a call's `route` indexes this.
    pub list: Vec<Route>,
}

impl Routes {
    /// The index of a route, added when new (a session uses a handful).
    pub fn index(&mut self, provider: Option<&str>, model: Option<&str>) -> u32 {
        let found = self
            .list
            .iter()
            .position(|r| r.provider.as_deref() == provider && r.model.as_deref() == model);
        let k = found.unwrap_or_else(|| {
            self.list.push(Route {
                provider: provider.map(str::to_string),
                model: model.map(str::to_string),
            });
            self.list.len() - 1
        });
        k as u32
    }
}

/// Every agent call of the log, in log order: each model step whose request was sent (it has
/// a stream chunk or an `assistant/message`).
pub fn agent_calls(log: &EventLog, meter: &Meter, routes: &mut Routes) -> Vec<Call> {
    let anchors: Vec<&Anchor> = meter.anchors().collect();
    let mut next_anchor = 0;
    let mut usage_chunks: Option<bool> = None;
    let mut out = Vec::with_capacity(meter.steps().len());
    let steps = meter.steps();
    for (k, step) in steps.iter().enumerate() {
        // Steps lie far apart in a long log: ask for a later step's line while this one is read.
        if let Some(ahead) = steps.get(k + STEPS_AHEAD) {
            log.prefetch_line(ahead.start, 2);
        }
        if step.message.is_none() && step.first_chunk.is_none() {
            continue;
        }
        // Bad input could cite chunks from before an earlier call: cursors never go back.
        let cursor = request_cursor(log, step, step.start.get() + 1)
            .max(out.last().map_or(0, |c: &Call| c.cursor));
        // The anchor the step's message set carries the message's usage, already read.
        let mut usage: Option<Usage> = None;
        if let Some(m) = step.message {
            while anchors.get(next_anchor).is_some_and(|a| a.message < m) {
                next_anchor += 1;
            }
            usage = anchors
                .get(next_anchor)
                .filter(|a| a.message == m)
                .and_then(|a| a.usage);
        }
        // Else its `usage` chunk — looked for only when the log has a chunk that may be one
        // (without, a log with no usage would have every step's chunks walked twice; the
        // message's own usage the anchor already read).
        let usage = usage.or_else(|| {
            let chunks = *usage_chunks
                .get_or_insert_with(|| log.indices().any(|i| may_be_usage_chunk(log, i)));
            chunks.then(|| reported_usage(log, meter, step)).flatten()
        });
        let fields = log.with_event_bytes(step.start, turn_fields_of_bytes);
        let route = match meter.header_at(cursor) {
            Some(h) => routes.index(h.config_str("provider"), h.config_str("model")),
            None => source_route(log, step.message, routes),
        };
        let seq_event = step.message.unwrap_or(step.start);
        out.push(Call {
            seq: log.event(seq_event).seq,
            kind: CallKind::Agent,
            turn: fields.turn,
            step: fields.step,
            tokens: usage.map(Tokens::from).unwrap_or_default(),
            reported: usage.is_some(),
            route,
            event: seq_event,
            cursor,
        });
    }
    out
}

/// How many model steps ahead [`agent_calls`] asks for a `step/start` line it will read.
const STEPS_AHEAD: usize = 8;

/// Without a header, the model the message names as its source (as the request view does).
fn source_route(log: &EventLog, message: Option<EventIdx>, routes: &mut Routes) -> u32 {
    let data = message.map(|m| log.data_value(m));
    let get = |key: &str| {
        data.as_ref()
            .and_then(|d| d.pointer(&format!("/message/source/{key}")))
            .and_then(Value::as_str)
    };
    routes.index(get("provider"), get("model"))
}

/// One summarizer call per `compaction/summary` (`usage` read as the meter reads usage), with
/// the index of its bracket in `scan`.
pub fn summarizer_calls(
    log: &EventLog,
    meter: &Meter,
    scan: &Scan,
    routes: &mut Routes,
) -> Vec<(usize, Call)> {
    let mut out: Vec<(usize, Call)> = scan
        .brackets
        .iter()
        .enumerate()
        .filter_map(|(k, b)| {
            let summary = b.summary?;
            let f = &b.summary_fields;
            let usage = f.usage.as_ref().and_then(|u| Usage::from_value(u).ok());
            let header = meter.header_at(summary.get());
            let provider = f
                .provider
                .as_deref()
                .or_else(|| header.and_then(|h| h.config_str("provider")));
            let model = f
                .model
                .as_deref()
                .or_else(|| header.and_then(|h| h.config_str("model")));
            let turn = match (b.start_fields.turn, f.turn) {
                (TurnField::Turn(t), _) | (_, TurnField::Turn(t)) => Some(t),
                _ => None,
            };
            let call = Call {
                seq: log.event(summary).seq,
                kind: CallKind::Summarizer,
                turn,
                step: None,
                tokens: usage.map(Tokens::from).unwrap_or_default(),
                reported: usage.is_some(),
                route: routes.index(provider, model),
                event: summary,
                cursor: summary.get(),
            };
            Some((k, call))
        })
        .collect();
    out.sort_by_key(|(_, c)| c.event);
    out
}
