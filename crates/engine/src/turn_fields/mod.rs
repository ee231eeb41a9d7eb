//! The few payload fields the turn/tool pass needs (turn, step, call ids, error code, tool-call
//! block ids) and the message-shape check needs (role, id, source, content kinds, the first
//! block), read straight from an event's JSON text without building a JSON tree: tool results
//! and messages can be large, and a long log has many of them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

mod parts;
mod scan;

pub use parts::JsonKind;
use parts::{Ids, Parts, Source, UsualData, UsualMessage};
use scan::scanned_parts;

/// What the message-shape check reads from a surface event. "The message" is `data.message`
/// when that is an object (identified messages, from 2026-07-28), else `data` itself.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct MessageShape {
    /// Kind of `data`.
    pub data: JsonKind,
    /// Kind of `data.message`.
    pub message: JsonKind,
    /// The message's `role`, when a string.
    pub role: Option<String>,
    /// Kind of the message's `role`.
    pub role_kind: JsonKind,
    /// Kind of the message's `id`.
    pub id: JsonKind,
    /// Kind of the message's `content`.
    pub content: JsonKind,
    /// Kind of the message's `source`.
    pub source: JsonKind,
    /// `source.kind`, when a string.
    pub source_kind: Option<String>,
    /// `source.callId`, when a string.
    pub source_call_id: Option<String>,
    /// `data.provenance` is present (flat `assistant/message` from 2026-07-17).
    pub provenance: bool,
    /// Kind of `data.callId` (flat `tool/result`).
    pub flat_call_id: JsonKind,
    /// Number of content blocks (when content is an array).
    pub blocks: usize,
    /// `type` of the first content block.
    pub first_block_type: Option<String>,
    /// `toolCallId` of the first content block, when a string.
    pub first_block_tool_call_id: Option<String>,
}

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
    /// `data` is an object.
    pub is_object: bool,
    /// `data.trigger` is present and not null (`turn/start` before 2026-08-05).
    pub has_trigger: bool,
    /// An identified message: `data.message.id` or `data.id` is a string.
    pub identified: bool,
    /// The fields of the message-shape check.
    pub shape: MessageShape,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    turn: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    step: Option<&'a RawValue>,
    #[serde(rename = "callId", borrow, default, deserialize_with = "present")]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    content: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    message: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    trigger: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    role: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    source: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    provenance: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Message<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    role: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    source: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    content: Option<&'a RawValue>,
}

/// Keeps a field that is present, `null` included (plain `Option` reads `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
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

fn non_negative(raw: Option<&str>) -> Option<u64> {
    let t = raw?;
    t.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| t.parse().ok())?
}

fn string(raw: Option<&str>) -> Option<String> {
    serde_json::from_str::<Cow<'_, str>>(raw?)
        .ok()
        .map(Cow::into_owned)
}

// --- The fast path: one pass over the event for the usual, well-formed shapes. ------------

#[derive(Deserialize)]
struct FastEnvelope<'a> {
    #[serde(borrow, default, deserialize_with = "strict")]
    data: Option<FastData<'a>>,
}

#[derive(Deserialize)]
struct FastData<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    turn: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    step: Option<&'a RawValue>,
    #[serde(rename = "callId", borrow, default, deserialize_with = "present")]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "strict")]
    content: Option<Vec<Ids<'a>>>,
    #[serde(borrow, default, deserialize_with = "strict")]
    message: Option<FastMessage<'a>>,
    #[serde(borrow, default, deserialize_with = "strict")]
    error: Option<Ids<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    trigger: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    role: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "strict")]
    source: Option<Source<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    provenance: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FastMessage<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    role: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "strict")]
    source: Option<Source<'a>>,
    #[serde(borrow, default, deserialize_with = "strict")]
    content: Option<Vec<Ids<'a>>>,
}

/// A present field must have the type's own shape (`null` included): anything else fails the
/// fast path, and the lenient path reads the event instead.
fn strict<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// One serde pass for well-formed events: `data`, `data.message`, the content blocks, `source`
/// and `error` all have their usual shapes. `None` sends the event to the lenient path, which
/// gives the same result for these shapes and a defined one for every other.
fn fast_parts(event_json: &str) -> Option<Parts<'_>> {
    let env: FastEnvelope<'_> = serde_json::from_str(event_json).ok()?;
    let data = env.data?;
    let usual = UsualData {
        turn: data.turn.map(RawValue::get),
        step: data.step.map(RawValue::get),
        call_id: data.call_id.map(RawValue::get),
        content: data.content,
        message: data.message.map(|m| UsualMessage {
            role: m.role.map(RawValue::get),
            id: m.id.map(RawValue::get),
            source: m.source,
            content: m.content,
        }),
        error: data.error,
        trigger: data.trigger.map(RawValue::get),
        role: data.role.map(RawValue::get),
        id: data.id.map(RawValue::get),
        source: data.source,
        provenance: data.provenance.map(RawValue::get),
    };
    Some(usual.into_parts())
}

/// Field by field, tolerating any shape (a field with another shape reads as absent).
pub(super) fn lenient_parts(event_json: &str) -> Parts<'_> {
    let env: Option<Envelope<'_>> = serde_json::from_str(event_json).ok();
    let raw_data = env.and_then(|e| e.data);
    let data: Data<'_> = lenient(raw_data);
    let message: Option<Message<'_>> = data
        .message
        .filter(|m| m.get().starts_with('{'))
        .map(|m| lenient(Some(m)));
    let content = message.as_ref().and_then(|m| m.content).or(data.content);
    // "The message": data.message when it is an object, else data itself.
    let (role, id, source) = match &message {
        Some(m) => (m.role, m.id, m.source),
        None => (data.role, data.id, data.source),
    };
    Parts {
        data: JsonKind::of(raw_data.map(RawValue::get)),
        turn: data.turn.map(RawValue::get),
        step: data.step.map(RawValue::get),
        call_id: data.call_id.map(RawValue::get),
        trigger: data.trigger.map(RawValue::get),
        provenance: data.provenance.map(RawValue::get),
        message: JsonKind::of(data.message.map(RawValue::get)),
        role: role.map(RawValue::get),
        id: id.map(RawValue::get),
        source: JsonKind::of(source.map(RawValue::get)),
        src: lenient(source),
        content: JsonKind::of(content.map(RawValue::get)),
        blocks: blocks(content),
        error: lenient(data.error),
    }
}

/// Reads the fields from an event's JSON text (all empty when it has another shape).
pub fn turn_fields(event_json: &str) -> TurnFields {
    turn_fields_of_bytes(event_json.as_bytes())
}

/// [`turn_fields`] of an event's bytes: the byte scanner reads the usual shapes without a
/// UTF-8 pass over the whole text; the serde paths (after a lossy conversion, as
/// [`EventLog::event_json`](crate::EventLog::event_json) makes) read the rest.
pub fn turn_fields_of_bytes(event_json: &[u8]) -> TurnFields {
    if let Some(parts) = scanned_parts(event_json) {
        return build(parts);
    }
    let text = String::from_utf8_lossy(event_json);
    build(fast_parts(&text).unwrap_or_else(|| lenient_parts(&text)))
}

pub(super) fn build(p: Parts<'_>) -> TurnFields {
    let has_message = p.message == JsonKind::Object;
    let tool_call_ids = p
        .blocks
        .iter()
        .filter(|b| b.kind.as_deref() == Some("tool-call"))
        .filter_map(|b| b.id.as_deref().map(str::to_string))
        .collect();
    let first = p.blocks.first();
    let message_call_id = has_message
        .then(|| {
            p.src
                .call_id
                .as_deref()
                .or_else(|| first?.tool_call_id.as_deref())
                .map(str::to_string)
        })
        .flatten();
    let shape = MessageShape {
        data: p.data,
        message: p.message,
        role: string(p.role),
        role_kind: JsonKind::of(p.role),
        id: JsonKind::of(p.id),
        content: p.content,
        source: p.source,
        source_kind: p.src.kind.as_deref().map(str::to_string),
        source_call_id: p.src.call_id.as_deref().map(str::to_string),
        provenance: !matches!(
            JsonKind::of(p.provenance),
            JsonKind::Missing | JsonKind::Null
        ),
        flat_call_id: JsonKind::of(p.call_id),
        blocks: p.blocks.len(),
        first_block_type: first.and_then(|b| b.kind.as_deref().map(str::to_string)),
        first_block_tool_call_id: first.and_then(|b| b.tool_call_id.as_deref().map(str::to_string)),
    };
    TurnFields {
        turn: non_negative(p.turn),
        step: non_negative(p.step),
        call_id: string(p.call_id),
        message_call_id,
        error_code: p.error.code.as_deref().map(str::to_string),
        tool_call_ids,
        has_message,
        is_object: shape.data == JsonKind::Object,
        has_trigger: !matches!(JsonKind::of(p.trigger), JsonKind::Missing | JsonKind::Null),
        identified: shape.id == JsonKind::String,
        shape,
    }
}

/// Events in the shapes both quick readers read (test cases shared by their tests).
#[cfg(test)]
pub(super) const USUAL_SHAPES: [&str; 5] = [
    r#"{"type":"tool/result","data":{"turn":1,"step":2,"message":{"source":{"kind":"tool","callId":"c2"},"content":[{"type":"tool-result","toolCallId":"c2","content":[]}],"role":"user","id":"t-1"},"error":{"code":"X"}}}"#,
    r#"{"data":{"turn":1,"step":1,"content":[{"type":"tool-call","id":"k","name":"n"}],"provenance":null,"trigger":null}}"#,
    r#"{"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u","callId":null}}"#,
    r#"{"data":{"message":{"role":"assistant","id":7},"content":[{"type":null}]}}"#,
    r#"{"data":{"turn":1,"trigger":{"kind":"continuation"}}}"#,
];

/// Shapes both quick readers leave to the lenient reader (test cases shared by their tests).
#[cfg(test)]
pub(super) const UNUSUAL_SHAPES: [&str; 7] = [
    r#"{"data":"text"}"#,
    r#"{"data":{"message":null}}"#,
    r#"{"data":{"content":[1,{"type":"tool-call","id":"k"}]}}"#,
    r#"{"data":{"source":"user"}}"#,
    r#"{"data":{"content":[{"id":5}]}}"#,
    r#"{"data":null}"#,
    r#"{"seq":3}"#,
];

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
        assert!(!flat.identified);
        assert_eq!(flat.shape.flat_call_id, JsonKind::String);
        assert_eq!(flat.shape.content, JsonKind::Array);

        let head = turn_fields(
            r#"{"type":"tool/result","data":{"turn":1,"message":{"source":{"kind":"tool","callId":"c2"},"content":[{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"x"}]}],"role":"user","id":"t-1"}}}"#,
        );
        assert_eq!(head.message_call_id.as_deref(), Some("c2"));
        assert!(head.has_message);
        assert!(head.identified);
        let s = &head.shape;
        assert_eq!(s.role.as_deref(), Some("user"));
        assert_eq!(s.source_kind.as_deref(), Some("tool"));
        assert_eq!(s.source_call_id.as_deref(), Some("c2"));
        assert_eq!(s.blocks, 1);
        assert_eq!(s.first_block_type.as_deref(), Some("tool-result"));
        assert_eq!(s.first_block_tool_call_id.as_deref(), Some("c2"));

        let asst = turn_fields(
            r#"{"data":{"turn":1,"step":1,"message":{"content":[{"type":"text","text":"a"},{"type":"tool-call","id":"t1","name":"bash","arguments":"{}"}]}}}"#,
        );
        assert_eq!(asst.tool_call_ids, ["t1"]);
        assert_eq!(asst.shape.id, JsonKind::Missing);

        let user = turn_fields(
            r#"{"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u"}}"#,
        );
        assert!(user.identified);
        assert_eq!(user.shape.message, JsonKind::Missing);
    }

    #[test]
    fn trigger_and_kinds() {
        let old = turn_fields(r#"{"data":{"turn":1,"trigger":{"kind":"continuation"}}}"#);
        assert!(old.has_trigger && old.is_object);
        let head = turn_fields(r#"{"data":{"turn":1}}"#);
        assert!(!head.has_trigger && head.is_object);
        let odd = turn_fields(r#"{"data":{"content":"text","message":7,"role":null}}"#);
        assert_eq!(odd.shape.content, JsonKind::String);
        assert_eq!(odd.shape.message, JsonKind::Number);
        assert_eq!(odd.shape.role_kind, JsonKind::Null);
        assert_eq!(turn_fields(r#"{"seq":1}"#).shape.data, JsonKind::Missing);
    }

    /// The fast path must read exactly what the lenient path reads, whenever it succeeds.
    #[test]
    fn fast_and_lenient_paths_agree() {
        for c in USUAL_SHAPES {
            let fast = build(fast_parts(c).expect(c));
            assert_eq!(fast, build(lenient_parts(c)), "{c}");
        }
        for c in UNUSUAL_SHAPES {
            assert!(fast_parts(c).is_none(), "{c}");
        }
    }

    #[test]
    fn odd_shapes_are_empty_not_errors() {
        assert_eq!(turn_fields("not json"), TurnFields::default());
        let text = turn_fields(r#"{"data":"text"}"#);
        assert_eq!(text.shape.data, JsonKind::String);
        assert!(!text.is_object);
        let f = turn_fields(
            r#"{"data":{"turn":1.5,"step":-1,"content":[1,{"type":"tool-call","id":"k"}]}}"#,
        );
        assert_eq!((f.turn, f.step), (None, None));
        assert_eq!(f.tool_call_ids, ["k"]);
    }
}
