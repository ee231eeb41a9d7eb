//! The shape a surface event's payload must have for the harness to read a message from it
//! (docs/parity.md; the older shapes HEAD still upgrades:
//! docs/parity.md#evidence-that-sets-an-upper-bound).
//!
//! Every era accepts the flat payloads (`data.content`, a `tool/result`'s `data.callId`) and,
//! from 2026-07-28, identified messages (`data.message` with `id`, `role`, `content`,
//! `source`). HEAD checks an identified message strictly — a `tool/result`'s message holds
//! exactly one `tool-result` block whose `toolCallId` is its `source.callId` — and cannot
//! upgrade a flat `assistant/message` without `provenance` (the E2 shape). Older harnesses
//! never checked shapes at load, so there the same problems are warnings (docs/parity.md).
//! Only the fields named here are checked: sources and block kinds vary too much between eras
//! and plugins to be refused.

use super::era::Era;
use super::event_type::EventType;
use super::turn_fields::{JsonKind, MessageShape};

/// The first shape problem of an event of `type_name`, as a sentence, or `None`.
pub fn shape_problem(type_name: &str, s: &MessageShape, era: Era) -> Option<String> {
    if s.data != JsonKind::Object {
        return Some(format!(
            "{type_name} data is {}, not an object: there is no message to read",
            s.data.describe()
        ));
    }
    if !matches!(s.message, JsonKind::Missing | JsonKind::Object) {
        return Some(format!(
            "data.message is {}, not an object",
            s.message.describe()
        ));
    }
    let identified = s.message == JsonKind::Object;
    let at = if identified { "data.message" } else { "data" };
    match EventType::of(type_name) {
        EventType::UserMessage => common(s, at, "user", false),
        EventType::AssistantMessage => {
            if identified {
                common(s, at, "assistant", true)
            } else if era == Era::Head && !s.provenance {
                Some(
                    "flat assistant/message without provenance (the 2026-06 shape): HEAD cannot \
                     upgrade it to an identified message"
                        .to_string(),
                )
            } else {
                content_array(s, at)
            }
        }
        EventType::ToolResult => {
            if identified {
                common(s, at, "user", true).or_else(|| tool_result_message(s))
            } else if s.flat_call_id != JsonKind::String {
                Some(format!(
                    "tool/result has no data.message and its data.callId is {}: there is no \
                     tool result to read",
                    s.flat_call_id.describe()
                ))
            } else {
                content_array(s, at)
            }
        }
        // context/message and steering/message: content, flat or in a message.
        _ => content_array(s, at),
    }
}

fn content_array(s: &MessageShape, at: &str) -> Option<String> {
    (s.content != JsonKind::Array).then(|| {
        format!(
            "{at}.content is {}, not an array of content blocks",
            s.content.describe()
        )
    })
}

/// `content` an array, `role` as expected (when `strict`, or whenever present), and for an
/// identified message (`strict`) a string `id` and an object `source`.
fn common(s: &MessageShape, at: &str, role: &str, strict: bool) -> Option<String> {
    if let Some(p) = content_array(s, at) {
        return Some(p);
    }
    if (strict || s.role_kind != JsonKind::Missing) && s.role.as_deref() != Some(role) {
        return Some(match &s.role {
            Some(r) => format!("{at}.role is {r:?}, not {role:?}"),
            None => format!("{at}.role is {}, not {role:?}", s.role_kind.describe()),
        });
    }
    if (strict || s.id != JsonKind::Missing) && s.id != JsonKind::String {
        return Some(format!("{at}.id is {}, not a string", s.id.describe()));
    }
    if strict && s.source != JsonKind::Object {
        return Some(format!(
            "{at}.source is {}, not an object",
            s.source.describe()
        ));
    }
    None
}

/// A ToolResultMessage: `source {kind:"tool", callId}` and exactly one `tool-result` block
/// answering that call.
fn tool_result_message(s: &MessageShape) -> Option<String> {
    if s.source_kind.as_deref() != Some("tool") {
        return Some(format!(
            "data.message.source.kind is {}, not \"tool\"",
            s.source_kind
                .as_deref()
                .map_or("missing".to_string(), |k| format!("{k:?}"))
        ));
    }
    let Some(call) = &s.source_call_id else {
        return Some("data.message.source.callId is missing or not a string".to_string());
    };
    if s.blocks != 1 || s.first_block_type.as_deref() != Some("tool-result") {
        return Some(format!(
            "data.message.content must be exactly one tool-result block; it has {} block(s){}",
            s.blocks,
            s.first_block_type
                .as_deref()
                .map_or(String::new(), |t| format!(", the first a {t:?}"))
        ));
    }
    match &s.first_block_tool_call_id {
        Some(id) if id == call => None,
        Some(id) => Some(format!(
            "the tool-result block's toolCallId {id:?} is not source.callId {call:?}"
        )),
        None => Some("the tool-result block has no string toolCallId".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn_fields::turn_fields;

    fn problem(type_name: &str, data: &str, era: Era) -> Option<String> {
        let f = turn_fields(&format!(r#"{{"type":"{type_name}","data":{data}}}"#));
        shape_problem(type_name, &f.shape, era)
    }

    const RESULT: &str = r#"{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[]}],"role":"user","id":"t1"}}"#;

    #[test]
    fn good_shapes_of_every_era() {
        let ok = |t, d| assert_eq!(problem(t, d, Era::Head), None, "{t} {d}");
        ok("tool/result", RESULT);
        ok(
            "tool/result",
            r#"{"turn":1,"callId":"c","content":[],"isError":false}"#,
        );
        ok(
            "user/message",
            r#"{"content":[],"source":{"kind":"user"},"role":"user","id":"u"}"#,
        );
        ok("user/message", r#"{"content":[],"source":{"kind":"user"}}"#);
        ok(
            "assistant/message",
            r#"{"turn":1,"message":{"role":"assistant","content":[],"source":{"kind":"model"},"id":"a"}}"#,
        );
        ok(
            "assistant/message",
            r#"{"turn":1,"content":[],"provenance":{"provider":"p","model":"m"}}"#,
        );
        ok(
            "context/message",
            r#"{"content":[],"source":{"kind":"plugin"}}"#,
        );
        // The E2 assistant shape is fine for its own era, not for HEAD.
        let e2 = r#"{"turn":1,"step":1,"content":[{"type":"text","text":"hi"}]}"#;
        assert_eq!(problem("assistant/message", e2, Era::SurfaceMerge), None);
        assert!(problem("assistant/message", e2, Era::Head).is_some());
    }

    #[test]
    fn tool_result_message_rules() {
        let bad = |d: &str, needle: &str| {
            let p = problem("tool/result", d, Era::Head).expect(d);
            assert!(p.contains(needle), "{p}");
        };
        bad(
            &RESULT.replace(r#""toolCallId":"c1""#, r#""toolCallId":"c2""#),
            "is not source.callId",
        );
        bad(
            &RESULT.replace(r#""kind":"tool""#, r#""kind":"user""#),
            "not \"tool\"",
        );
        bad(
            &RESULT.replace(
                r#""content":[]}]"#,
                r#""content":[]},{"type":"text","text":"x"}]"#,
            ),
            "2 block(s)",
        );
        bad(
            &RESULT.replace(r#""type":"tool-result""#, r#""type":"text""#),
            "the first a \"text\"",
        );
        bad(
            &RESULT.replace(r#""role":"user""#, r#""role":"tool""#),
            "role",
        );
        bad(&RESULT.replace(r#","id":"t1""#, ""), "id is missing");
        bad(r#"{"turn":1}"#, "no data.message");
        bad(r#"{"turn":1,"message":"x"}"#, "not an object");
        bad(r#"{"turn":1,"callId":"c","content":"x"}"#, "not an array");
        bad(
            r#"{"turn":1,"message":{"role":"user","id":"t","source":{"kind":"tool","callId":"c"},"content":{}}}"#,
            "not an array",
        );
        assert!(problem("tool/result", r#""text""#, Era::Head).is_some());
    }

    #[test]
    fn user_message_rules() {
        let p = problem(
            "user/message",
            r#"{"content":[],"role":"assistant"}"#,
            Era::Head,
        );
        assert!(p.unwrap().contains("role"));
        let p = problem("user/message", r#"{"content":[],"id":7}"#, Era::Head);
        assert!(p.unwrap().contains("id is a number"));
        assert!(problem("user/message", r#"{"text":"hi"}"#, Era::Adr).is_some());
    }
}
