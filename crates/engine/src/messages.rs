//! The model's messages derived from surface nodes, for every era's payload shape
//! (docs/format.md rule 9, docs/parity.md). Their token prices are the meter's
//! ([`crate::meter`]).

use serde::Serialize;
use serde_json::{Value, json};

use super::event::EventIdx;
use super::event_type::EventType;
use super::log::EventLog;
use super::readable::read_value;
use super::surface::Surface;

/// One derived message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// Seq of the surface node it comes from.
    pub seq: u64,
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// Content blocks, as in the log.
    pub content: Vec<Value>,
    /// The message id (HEAD identified messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Why the event's JSON could not be read into a message (its `content` is then empty):
    /// `messages` prints it so that nothing vanishes silently; `check` reports the event as
    /// `message.shape`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// The message an event of `type_name` with payload `data` contributes, if any.
pub fn message_from(seq: u64, kind: EventType, data: &Value) -> Option<Message> {
    let inner = data.get("message").filter(|m| m.is_object());
    let id = inner
        .and_then(|m| m.get("id"))
        .or_else(|| data.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let declared_role = inner
        .and_then(|m| m.get("role"))
        .or_else(|| data.get("role"))
        .and_then(Value::as_str)
        .filter(|r| matches!(*r, "user" | "assistant" | "system"));
    let blocks = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let (role, content) = match kind {
        EventType::UserMessage => (
            declared_role.unwrap_or("user"),
            blocks(
                data.get("content")
                    .or_else(|| inner.and_then(|m| m.get("content"))),
            ),
        ),
        EventType::AssistantMessage => {
            let content = blocks(
                inner
                    .and_then(|m| m.get("content"))
                    .or_else(|| data.get("content")),
            );
            if content.is_empty() {
                return None;
            }
            ("assistant", content)
        }
        EventType::ToolResult => match inner {
            Some(m) => ("user", blocks(m.get("content"))),
            None => {
                let mut block = json!({
                    "type": "tool-result",
                    "toolCallId": data.get("callId").cloned().unwrap_or(Value::Null),
                    "content": data.get("content").cloned().unwrap_or_else(|| json!([])),
                });
                if let Some(e) = data.get("isError") {
                    block["isError"] = e.clone();
                }
                ("user", vec![block])
            }
        },
        EventType::ContextMessage | EventType::SteeringMessage => match inner {
            Some(m) => (declared_role.unwrap_or("user"), blocks(m.get("content"))),
            None => {
                let tag = if kind == EventType::ContextMessage {
                    "context"
                } else {
                    "steering"
                };
                let kind = data.pointer("/source/kind").cloned().unwrap_or(Value::Null);
                let mut content =
                    vec![json!({"type": "text", "text": format!("<{tag} source={kind}>")})];
                content.extend(blocks(data.get("content")));
                content.push(json!({"type": "text", "text": format!("</{tag}>")}));
                ("user", content)
            }
        },
        _ => return None,
    };
    Some(Message {
        seq,
        role: role.to_string(),
        content,
        id,
        unreadable: None,
    })
}

/// The message of one event of the log, if it yields one. `Err` says why the event's JSON
/// cannot be read at all (nesting past the reader's limit, a number out of range); lone
/// surrogate escapes are read as U+FFFD.
pub fn read_message(log: &EventLog, idx: EventIdx) -> Result<Option<Message>, String> {
    let value = read_value(&log.event_json(idx))?;
    let data = match value {
        Value::Object(mut map) => map.remove("data").unwrap_or(Value::Null),
        _ => Value::Null,
    };
    Ok(message_from(log.event(idx).seq, log.event_type(idx), &data))
}

/// The message of one event of the log, if it yields one. An eligible event whose JSON cannot
/// be read yields a message with no content and [`Message::unreadable`] set.
pub fn message_of(log: &EventLog, idx: EventIdx) -> Option<Message> {
    read_message(log, idx).unwrap_or_else(|reason| {
        let role = match log.event_type(idx) {
            EventType::AssistantMessage => "assistant",
            t if t.is_surface_eligible() => "user",
            _ => return None,
        };
        Some(Message {
            seq: log.event(idx).seq,
            role: role.to_string(),
            content: Vec::new(),
            id: None,
            unreadable: Some(reason),
        })
    })
}

/// The messages of the surface at its cursor, in surface order. In legacy mode this is the
/// legacy linear scan (every eligible event in log order), because that is what the legacy
/// surface holds.
pub fn derive_messages(log: &EventLog, surface: &Surface) -> Vec<Message> {
    surface
        .nodes()
        .filter_map(|idx| message_of(log, idx))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_era_shape() {
        let e1 = json!({"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}});
        assert_eq!(
            message_from(1, EventType::of("user/message"), &e1)
                .unwrap()
                .content,
            vec![json!({"type":"text","text":"hi"})]
        );

        let head_asst = json!({"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"x"}],"id":"a-1"}});
        let m = message_from(2, EventType::of("assistant/message"), &head_asst).unwrap();
        assert_eq!(
            (m.role.as_str(), m.id.as_deref()),
            ("assistant", Some("a-1"))
        );

        let empty = json!({"turn":1,"step":1,"content":[]});
        assert!(message_from(3, EventType::of("assistant/message"), &empty).is_none());

        let flat = json!({"callId":"c1","content":[{"type":"text","text":"ok"}],"isError":false});
        let m = message_from(4, EventType::of("tool/result"), &flat).unwrap();
        assert_eq!(m.content[0]["type"], "tool-result");
        assert_eq!(m.content[0]["toolCallId"], "c1");

        let ctx = json!({"content":[{"type":"text","text":"AGENTS"}],"source":{"kind":"plugin"}});
        let m = message_from(5, EventType::of("context/message"), &ctx).unwrap();
        assert_eq!(m.content[0]["text"], "<context source=\"plugin\">");
        assert_eq!(m.content[2]["text"], "</context>");
        assert!(message_from(6, EventType::of("tool/call"), &json!({})).is_none());
    }
}
