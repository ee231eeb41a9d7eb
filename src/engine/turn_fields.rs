//! The few payload fields the turn/tool pass needs (turn, step, call ids, error code, tool-call
//! block ids), read straight from an event's JSON text without building a JSON tree: tool
//! results and messages can be large, and a long log has many of them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// What the turn pass reads from one event.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TurnFields {
    /// `data.turn` when it is a non-negative integer.
    pub turn: Option<u64>,
    /// `data.step` when it is a non-negative integer.
    pub step: Option<u64>,
    /// `data.callId` (`tool/call`, flat `tool/result`).
    pub call_id: Option<String>,
    /// The call a HEAD `tool/result` answers (`message.source.callId`, else the first block's
    /// `toolCallId`).
    pub message_call_id: Option<String>,
    /// `data.error.code`.
    pub error_code: Option<String>,
    /// Ids of `tool-call` blocks in `data.message.content` or `data.content`.
    pub tool_call_ids: Vec<String>,
    /// `data.message` is an object (HEAD identified messages).
    pub has_message: bool,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(borrow, default)]
    turn: Option<&'a RawValue>,
    #[serde(borrow, default)]
    step: Option<&'a RawValue>,
    #[serde(rename = "callId", borrow, default)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Message<'a> {
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Ids<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "callId", borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    code: Option<Cow<'a, str>>,
}

/// Parses `raw` as `T`, or the default when it has another shape.
fn lenient<'a, T: Deserialize<'a> + Default>(raw: Option<&'a RawValue>) -> T {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default()
}

/// The blocks of a content array, each read leniently.
fn blocks(raw: Option<&RawValue>) -> Vec<Ids<'_>> {
    let items: Vec<&RawValue> = lenient(raw);
    items.into_iter().map(|b| lenient(Some(b))).collect()
}

fn non_negative(raw: Option<&RawValue>) -> Option<u64> {
    let t = raw?.get();
    t.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| t.parse().ok())?
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<Cow<'_, str>>(raw?.get())
        .ok()
        .map(Cow::into_owned)
}

/// Reads the fields from an event's JSON text (all empty when it has another shape).
pub fn turn_fields(event_json: &str) -> TurnFields {
    let env: Option<Envelope<'_>> = serde_json::from_str(event_json).ok();
    let data: Data<'_> = lenient(env.and_then(|e| e.data));
    let message: Option<Message<'_>> = data
        .message
        .filter(|m| m.get().starts_with('{'))
        .map(|m| lenient(Some(m)));
    let content = message.as_ref().and_then(|m| m.content).or(data.content);
    let tool_call_ids = blocks(content)
        .into_iter()
        .filter(|b| b.kind.as_deref() == Some("tool-call"))
        .filter_map(|b| b.id.map(Cow::into_owned))
        .collect();
    let message_call_id = message.as_ref().and_then(|m| {
        let source: Ids<'_> = lenient(m.source);
        source
            .call_id
            .or_else(|| blocks(m.content).into_iter().next()?.tool_call_id)
            .map(Cow::into_owned)
    });
    let error: Ids<'_> = lenient(data.error);
    TurnFields {
        turn: non_negative(data.turn),
        step: non_negative(data.step),
        call_id: string(data.call_id),
        message_call_id,
        error_code: error.code.map(Cow::into_owned),
        tool_call_ids,
        has_message: message.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_identified_shapes() {
        let flat = turn_fields(
            r#"{"type":"tool/result","seq":5,"data":{"turn":1,"step":2,"callId":"c1","content":[],"error":{"code":"TOOL_NOT_STARTED"}}}"#,
        );
        assert_eq!((flat.turn, flat.step), (Some(1), Some(2)));
        assert_eq!(flat.call_id.as_deref(), Some("c1"));
        assert_eq!(flat.error_code.as_deref(), Some("TOOL_NOT_STARTED"));
        assert!(!flat.has_message);

        let head = turn_fields(
            r#"{"type":"tool/result","data":{"turn":1,"message":{"source":{"kind":"tool","callId":"c2"},"content":[{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"x"}]}]}}}"#,
        );
        assert_eq!(head.message_call_id.as_deref(), Some("c2"));
        assert!(head.has_message);

        let asst = turn_fields(
            r#"{"data":{"turn":1,"step":1,"message":{"content":[{"type":"text","text":"a"},{"type":"tool-call","id":"t1","name":"bash","arguments":"{}"}]}}}"#,
        );
        assert_eq!(asst.tool_call_ids, ["t1"]);
    }

    #[test]
    fn odd_shapes_are_empty_not_errors() {
        assert_eq!(turn_fields("not json"), TurnFields::default());
        assert_eq!(turn_fields(r#"{"data":"text"}"#), TurnFields::default());
        let f = turn_fields(
            r#"{"data":{"turn":1.5,"step":-1,"content":[1,{"type":"tool-call","id":"k"}]}}"#,
        );
        assert_eq!((f.turn, f.step), (None, None));
        assert_eq!(f.tool_call_ids, ["k"]);
    }
}
