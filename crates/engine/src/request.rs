//! The request the model received (docs/meter.md): for the model call in force at a cursor,
//! the header in force (system prompt, tools, config) plus the derived messages as they stood
//! just before the call that produced the step's `assistant/message` began, priced by the
//! meter, beside the provider's reported usage.

use serde::Serialize;
use serde_json::Value;

use super::event::{EventIdx, EventText};
use super::event_type::EventType;
use super::log::EventLog;
use super::messages::{Message, message_of};
use super::meter::{Figure, Meter, ModelStep, RequestHeader, Usage, usage_of};
use super::surface::Surface;

/// The meter's prices of a request's parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// The system prompt's price.
    pub system: u64,
    /// The tool list's price.
    pub tools: u64,
    /// The messages' prices (the surface tokens when the messages were fixed).
    pub messages: u64,
    /// `system + tools + messages`.
    pub total: u64,
}

/// The provider's reported usage of the call, in the contract's field names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Reported {
    /// `inputTokens`.
    pub input: u64,
    /// `cacheReadTokens`.
    pub cache_read: u64,
    /// `cacheWriteTokens`.
    pub cache_write: u64,
    /// `outputTokens`.
    pub output: u64,
}

impl From<Usage> for Reported {
    fn from(u: Usage) -> Self {
        Reported {
            input: u.input,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            output: u.output,
        }
    }
}

impl Reported {
    /// The prompt side the provider counted: input + cache read + cache write.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }
}

/// One model call, reconstructed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Request {
    /// `data.turn` of the step.
    pub turn: Option<u64>,
    /// `data.step` of the step.
    pub step: Option<u64>,
    /// Seq of the step's `step/start`.
    pub seq: u64,
    /// Seq of the step's `assistant/message`, when it has one.
    pub message_seq: Option<u64>,
    /// The messages are the surface after every event before this seq (`null`: the whole
    /// step so far, when the call has no chunk and no message yet).
    pub messages_before_seq: Option<u64>,
    /// `config.provider` of the header (else the message's source).
    pub provider: Option<String>,
    /// `config.model` of the header (else the message's source).
    pub model: Option<String>,
    /// The context window in force when the messages were fixed.
    pub context_window: Option<u64>,
    /// The system prompt.
    pub system: Option<String>,
    /// The tool definitions.
    pub tools: Vec<Value>,
    /// The header's `config`.
    pub config: Value,
    /// The derived messages, in order.
    pub messages: Vec<Message>,
    /// The meter's price of each message, parallel to `messages`.
    #[serde(skip)]
    pub message_prices: Vec<u64>,
    /// The meter's prices of the parts.
    pub estimate: Estimate,
    /// The meter's full measurement when the messages were fixed (what the compaction policy
    /// saw for this request).
    pub meter: Figure,
    /// The provider's reported usage, from the step's `assistant/message` (or its `usage`
    /// chunk).
    pub reported: Option<Reported>,
    /// The replay cursor at which the messages were fixed.
    #[serde(skip)]
    pub cursor: usize,
}

/// The replay cursor at which a step's request messages were fixed: before the lowest seq the
/// step's `assistant/message` cites, else before the message, else before the step's first
/// chunk, else `fallback` (the call has not started streaming).
pub fn request_cursor(log: &EventLog, step: &ModelStep, fallback: usize) -> usize {
    if let Some(message) = step.message {
        return match log.sources(message).and_then(|s| s.iter().min()) {
            Some(&0) => 0,
            Some(&lowest) => log
                .cursor_for_seq_near(lowest - 1, step.start.get() + 1)
                .min(message.get()),
            None => message.get(),
        };
    }
    step.first_chunk.map_or(fallback, EventIdx::get)
}

/// The request of the model call in force after the first `cursor` events: the last step
/// whose `step/start` is among them. `scratch` is a surface of `log` the function seeks to
/// the request's cursor (keep it between calls: seeking is cheap, building is not).
pub fn request_at(
    log: &EventLog,
    meter: &Meter,
    cursor: usize,
    scratch: &mut Surface,
) -> Option<Request> {
    let step = *meter.step_at(cursor)?;
    Some(request_of_step(log, meter, &step, cursor, scratch))
}

/// The request of one model step (see [`request_at`]).
pub fn request_of_step(
    log: &EventLog,
    meter: &Meter,
    step: &ModelStep,
    fallback: usize,
    scratch: &mut Surface,
) -> Request {
    let at = request_cursor(log, step, fallback.max(step.start.get() + 1));
    scratch.seek(log, at);
    let (messages, message_prices) = scratch
        .nodes()
        .filter_map(|n| Some((message_of(log, n)?, meter.price(n))))
        .unzip();
    let header = meter.header_at(at);
    let figure = meter.at(at);
    let estimate = estimate_of(header, figure.surface);
    let start_data = log.data_value(step.start);
    let message_data = step.message.map(|m| log.data_value(m));
    let source_str = |key: &str| {
        message_data
            .as_ref()
            .and_then(|d| d.pointer(&format!("/message/source/{key}")))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Request {
        turn: start_data.get("turn").and_then(Value::as_u64),
        step: start_data.get("step").and_then(Value::as_u64),
        seq: log.event(step.start).seq,
        message_seq: step.message.map(|m| log.event(m).seq),
        messages_before_seq: log.events.get(at).map(|e| e.seq),
        provider: header
            .and_then(|h| h.config_str("provider"))
            .map(str::to_string)
            .or_else(|| source_str("provider")),
        model: header
            .and_then(|h| h.config_str("model"))
            .map(str::to_string)
            .or_else(|| source_str("model")),
        context_window: meter.window_at(at),
        system: header.and_then(|h| h.system.clone()),
        tools: header.map(RequestHeader::tool_values).unwrap_or_default(),
        config: header.map_or(Value::Null, |h| h.config.clone()),
        messages,
        message_prices,
        estimate,
        meter: figure,
        reported: reported_usage(log, meter, step).map(Reported::from),
        cursor: at,
    }
}

fn estimate_of(header: Option<&RequestHeader>, messages: u64) -> Estimate {
    let system = header.map_or(0, RequestHeader::system_price);
    let tools = header.map_or(0, RequestHeader::tools_price);
    Estimate {
        system,
        tools,
        messages,
        total: system + tools + messages,
    }
}

/// The step's reported usage: its `assistant/message`'s `usage`, else the `usage` chunk it
/// cites, else a `usage` chunk read while the step was open.
pub fn reported_usage(log: &EventLog, meter: &Meter, step: &ModelStep) -> Option<Usage> {
    if let Some(m) = step.message {
        if let Some(u) = usage_of(log, m) {
            return Some(u);
        }
        let cited = log.sources(m).unwrap_or(&[]);
        if let Some(u) = cited
            .iter()
            .filter_map(|&s| log.find_seq(s))
            .find_map(|i| usage_chunk(log, i))
        {
            return Some(u);
        }
    }
    let first = step.first_chunk?;
    let end = meter
        .step_position(step)
        .and_then(|k| meter.steps().get(k + 1))
        .map_or(log.len(), |next| next.start.get());
    (first.get()..end).find_map(|i| usage_chunk(log, EventIdx(i as u32)))
}

/// Whether event `idx` can be a `usage` chunk: an `assistant/chunk` that is not a packed
/// member (packed rows hold only deltas) and, written as a line, names the key. Nothing is
/// parsed: a log without usage has every chunk of every step looked at.
pub fn may_be_usage_chunk(log: &EventLog, idx: EventIdx) -> bool {
    if log.event_type(idx) != EventType::AssistantChunk {
        return false;
    }
    match log.event(idx).text() {
        EventText::PackedMember { .. } => false,
        EventText::Line { .. } => memchr::memmem::find(log.line_text(idx), b"\"usage\"").is_some(),
        EventText::Synthesized(_) => true,
    }
}

fn usage_chunk(log: &EventLog, idx: EventIdx) -> Option<Usage> {
    if !may_be_usage_chunk(log, idx) {
        return None;
    }
    let data = log.data_value(idx);
    let chunk = data.get("chunk")?;
    if chunk.get("type").and_then(Value::as_str) != Some("usage") {
        return None;
    }
    Usage::from_value(chunk.get("usage")?).ok()
}
