//! Events as the HEAD harness reads them, for the comparison: the older message shapes it
//! upgrades in memory when it loads an older log (docs/parity.md) are upgraded before two
//! events are compared, so that a run compared with a copy of itself written by another era's
//! harness shows no divergence where HEAD would read the same thing.
//!
//! Upgraded: a pre-identity `user/message` gets its `role`; an `assistant/message` with flat
//! `content` (and `provenance`) is wrapped into `message` with its `source`; a flat
//! `tool/result` (`callId`, `content`, `isError`) is wrapped into a tool-result message; a
//! `turn/start` loses its `trigger`. Ids are left out of the comparison, so none is made up.
//! Anything else is compared as written.

use serde_json::{Map, Value, json};

/// `event` upgraded to the HEAD shape, or `None` when it already has it (or is not an event).
pub fn upgraded(event: &Value) -> Option<Value> {
    let kind = event.get("type")?.as_str()?;
    let data = event.get("data")?.as_object()?;
    let new = match kind {
        "user/message" if !data.contains_key("role") && data.contains_key("content") => {
            let mut d = data.clone();
            d.insert("role".to_string(), json!("user"));
            d
        }
        "assistant/message" if !data.contains_key("message") && data.contains_key("content") => {
            assistant(data)
        }
        "tool/result" if !data.contains_key("message") && data.contains_key("content") => {
            tool_result(data)
        }
        "turn/start" if data.contains_key("trigger") => {
            let mut d = data.clone();
            d.remove("trigger");
            d
        }
        _ => return None,
    };
    let mut out = event.clone();
    out["data"] = Value::Object(new);
    Some(out)
}

/// `{turn, step, content, provenance: {provider, model}, usage?}` →
/// `{turn, step, message: {role, content, source: {kind: "model", provider, model}}, usage?}`.
fn assistant(data: &Map<String, Value>) -> Map<String, Value> {
    let mut d = data.clone();
    let content = d.remove("content").unwrap_or(Value::Null);
    let mut message = Map::new();
    message.insert("role".to_string(), json!("assistant"));
    message.insert("content".to_string(), content);
    if let Some(Value::Object(p)) = d.remove("provenance") {
        let mut source = Map::new();
        source.insert("kind".to_string(), json!("model"));
        for key in ["provider", "model"] {
            if let Some(v) = p.get(key) {
                source.insert(key.to_string(), v.clone());
            }
        }
        message.insert("source".to_string(), Value::Object(source));
    }
    d.insert("message".to_string(), Value::Object(message));
    d
}

/// `{turn, step, callId, content, isError}` → `{turn, step, message: {role: "user", source:
/// {kind: "tool", callId}, content: [{type: "tool-result", toolCallId, content, isError}]}}`.
fn tool_result(data: &Map<String, Value>) -> Map<String, Value> {
    let mut d = data.clone();
    let call_id = d.remove("callId").unwrap_or(Value::Null);
    let content = d.remove("content").unwrap_or(Value::Null);
    let is_error = d.remove("isError").unwrap_or(json!(false));
    let message = json!({
        "role": "user",
        "source": {"kind": "tool", "callId": call_id},
        "content": [{"type": "tool-result", "toolCallId": call_id, "content": content,
                     "isError": is_error}],
    });
    d.insert("message".to_string(), message);
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::same_content::first_difference;

    #[test]
    fn older_message_shapes_read_as_head_reads_them() {
        let pairs = [
            (
                json!({"type": "user/message", "data": {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}}),
                json!({"type": "user/message", "data": {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}, "role": "user", "id": "u1"}}),
            ),
            (
                json!({"type": "assistant/message", "data": {"turn": 1, "step": 1,
                    "content": [{"type": "text", "text": "ok"}],
                    "provenance": {"provider": "p", "model": "m"}, "usage": {"outputTokens": 3}}}),
                json!({"type": "assistant/message", "data": {"turn": 1, "step": 1,
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                                "source": {"kind": "model", "provider": "p", "model": "m"}, "id": "a1"},
                    "usage": {"outputTokens": 3}}}),
            ),
            (
                json!({"type": "tool/result", "data": {"turn": 1, "step": 1, "callId": "c",
                    "content": [{"type": "text", "text": "out"}], "isError": false}}),
                json!({"type": "tool/result", "data": {"turn": 1, "step": 1, "message": {
                    "source": {"kind": "tool", "callId": "c"},
                    "content": [{"type": "tool-result", "toolCallId": "c",
                                 "content": [{"type": "text", "text": "out"}], "isError": false}],
                    "role": "user", "id": "t1"}}}),
            ),
            (
                json!({"type": "turn/start", "data": {"turn": 1, "trigger": {"kind": "message"}}}),
                json!({"type": "turn/start", "data": {"turn": 1}}),
            ),
        ];
        for (old, head) in &pairs {
            let up = upgraded(old).unwrap();
            assert_eq!(first_difference(&up, head), None, "{old} → {up}");
            assert_eq!(upgraded(head), None, "{head} is HEAD's shape already");
        }
    }

    #[test]
    fn other_events_are_left_as_written() {
        for e in [
            json!({"type": "step/start", "data": {"turn": 1}}),
            json!({"type": "user/message"}),
            json!("not an event"),
        ] {
            assert_eq!(upgraded(&e), None);
        }
    }
}
