//! The text of a surface node as the audit reads it (for salient terms and for showing a
//! summary beside what it shadowed): its message's texts, reasoning, tool names, the values
//! inside tool-call arguments (not their keys) and tool results' inner texts — plus the tool
//! call a `tool/result` answers. One borrowed parse of the event; shapes it does not know fall
//! back to the derived message ([`surface_engine::message_of`]). [`super::answered::answered_call`] reads
//! only the call.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use surface_engine::EventType;
use surface_engine::{EventIdx, EventLog, message_of};

/// What the audit reads from one surface node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeText {
    /// The node's text, its pieces separated by newlines.
    pub text: String,
    /// The call a `tool/result` answers (`message.source.callId`, `data.callId` or the first
    /// block's `toolCallId`).
    pub call_id: Option<String>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
    #[serde(borrow)]
    message: Option<Inner<'a>>,
    #[serde(rename = "callId", borrow)]
    call_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Inner<'a> {
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
    #[serde(borrow)]
    source: Option<Source<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Source<'a> {
    #[serde(rename = "callId", borrow)]
    pub(super) call_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: Option<Cow<'a, str>>,
}

/// The text and answered call of the surface node at `idx` (nothing when `idx` is not an event
/// of `log`).
pub fn node_text(log: &EventLog, idx: EventIdx) -> NodeText {
    let mut text = String::new();
    let call_id = node_text_into(log, idx, &mut text);
    NodeText { text, call_id }
}

/// [`node_text`] into `text` (emptied first; a buffer the caller reuses from node to node, not
/// one grown afresh for each), returning the answered call.
pub fn node_text_into(log: &EventLog, idx: EventIdx, text: &mut String) -> Option<String> {
    text.clear();
    if idx.get() >= log.len() {
        return None;
    }
    let kind = log.event_type(idx);
    // The eras that wrap context in tags are read through the derived message.
    let wrapped = kind.is_wrapper_message();
    let read = log.with_event_json(idx, |json| match serde_json::from_str::<Event<'_>>(json) {
        Ok(Event { data: Some(data) }) if !wrapped => Some(fast(kind, data, text)),
        Ok(Event { data: None }) => Some(None),
        _ => None,
    });
    read.unwrap_or_else(|| {
        let NodeText {
            text: slow_text,
            call_id,
        } = slow(log, idx);
        text.clear();
        text.push_str(&slow_text);
        call_id
    })
}

fn fast(kind: EventType, data: Data<'_>, text: &mut String) -> Option<String> {
    let (inner_content, source_call) = match data.message {
        Some(m) => (m.content, m.source.and_then(|s| s.call_id)),
        None => (None, None),
    };
    let content = match (kind, data.content, inner_content) {
        (EventType::UserMessage, Some(c), _) | (_, None, Some(c)) | (_, Some(c), None) => c,
        (_, Some(_), Some(c)) => c,
        (_, None, None) => Vec::new(),
    };
    for b in &content {
        block_text(b, text);
    }
    if kind == EventType::ToolResult {
        source_call
            .or(data.call_id)
            .or_else(|| content.first().and_then(|b| b.tool_call_id.clone()))
            .map(Cow::into_owned)
    } else {
        None
    }
}

fn push(text: &mut String, piece: &str) {
    if piece.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(piece);
}

fn block_text(b: &Block<'_>, text: &mut String) {
    match b.kind.as_deref() {
        Some("text" | "reasoning" | "thinking") => push(text, b.text.as_deref().unwrap_or("")),
        Some("tool-call") => {
            push(text, b.name.as_deref().unwrap_or(""));
            push_arguments(text, b.arguments.as_deref().unwrap_or(""));
        }
        Some("tool-result") => {
            for inner in b.content.as_deref().unwrap_or(&[]) {
                block_text(inner, text);
            }
        }
        _ => {}
    }
}

/// The text of a tool call as a node's text holds it — its name, then its arguments' values —
/// into `text` (emptied first).
pub fn call_text_into(name: &str, arguments: &str, text: &mut String) {
    text.clear();
    push(text, name);
    push_arguments(text, arguments);
}

/// The values inside tool-call arguments (the raw text when it is not JSON).
fn push_arguments(text: &mut String, arguments: &str) {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v) => push_values(text, &v),
        Err(_) => push(text, arguments),
    }
}

fn push_values(text: &mut String, v: &Value) {
    match v {
        Value::String(s) => push(text, s),
        Value::Number(n) => push(text, &n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| push_values(text, i)),
        Value::Object(map) => map.values().for_each(|i| push_values(text, i)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// The tree-based reading, for shapes the borrowed parse does not know.
fn slow(log: &EventLog, idx: EventIdx) -> NodeText {
    let Some(message) = message_of(log, idx) else {
        return NodeText::default();
    };
    let mut text = String::new();
    for b in &message.content {
        value_block_text(b, &mut text);
    }
    let call_id = (log.event_type(idx) == EventType::ToolResult)
        .then(|| {
            let data = log.data_value(idx);
            data.pointer("/message/source/callId")
                .or_else(|| data.get("callId"))
                .or_else(|| message.content.first().and_then(|b| b.get("toolCallId")))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .flatten();
    NodeText { text, call_id }
}

fn value_block_text(b: &Value, text: &mut String) {
    let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
    match b.get("type").and_then(Value::as_str) {
        Some("text" | "reasoning" | "thinking") => push(text, s("text")),
        Some("tool-call") => {
            push(text, s("name"));
            match b.get("arguments") {
                Some(Value::String(a)) => push_arguments(text, a),
                Some(other) => push_values(text, other),
                None => {}
            }
        }
        Some("tool-result") => {
            for inner in b
                .get("content")
                .and_then(Value::as_array)
                .unwrap_or(&Vec::new())
            {
                value_block_text(inner, text);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_past_the_log_has_no_text() {
        assert_eq!(
            node_text(&EventLog::default(), EventIdx(3)),
            NodeText::default()
        );
    }
}
