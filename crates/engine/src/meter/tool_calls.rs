//! The `tool-call` blocks of an `assistant/message` (docs/policy.md's pairing count), read
//! from its bytes. The meter counts them as it prices the message, from the blocks its scan
//! already read ([`super::raw`]), and asks [`tool_call_blocks`] only for the shapes that scan
//! leaves; the policy reads the count from the meter ([`crate::Meter::tool_calls`]).

use memchr::memmem;
use serde_json::Value;

use super::scan::{Scanner, once};

/// The `tool-call` blocks of an `assistant/message` (docs/policy.md's pairing count): the
/// elements of its message's `content` (`data.message.content` when `data.message` is an
/// object, else `data.content`) whose `type` is `tool-call` — nothing else of the event, not
/// the arguments of a call nor a block nested in another. Most messages never mention the word
/// (nor hold a `\u` escape that could spell it) and are not read; the rest are walked once with
/// the meter's byte scanner, and the shapes it leaves (an escape in a key or a type, a key
/// given twice, `data.message` or a block that is not an object) are read as a tree, the last
/// of repeated keys winning as in JavaScript.
pub fn tool_call_blocks(bytes: &[u8]) -> u16 {
    if memmem::find(bytes, b"tool-call").is_none() && memmem::find(bytes, b"\\u").is_none() {
        return 0;
    }
    let count = scanned_tool_call_blocks(bytes).unwrap_or_else(|| tree_tool_call_blocks(bytes));
    count.min(usize::from(u16::MAX)) as u16
}

/// [`tool_call_blocks`] in the usual shapes; `None` for the tree to read the rest.
fn scanned_tool_call_blocks(bytes: &[u8]) -> Option<usize> {
    let mut s = Scanner::new(bytes);
    let mut data = None;
    s.object(|s, key| match key {
        b"data" => once(&mut data, scanned_data(s)?),
        _ => s.skip(),
    })?;
    if !s.rest().is_empty() {
        return None;
    }
    Some(data.flatten().unwrap_or(0))
}

/// `data`'s calls (`Some(None)` for a `null` data).
fn scanned_data(s: &mut Scanner<'_>) -> Option<Option<usize>> {
    if s.at_null() {
        s.skip()?;
        return Some(None);
    }
    let (mut message, mut content) = (None, None);
    s.object(|s, key| match key {
        b"message" => once(&mut message, scanned_message(s)?),
        b"content" => once(&mut content, scanned_calls(s)?),
        _ => s.skip(),
    })?;
    Some(message.flatten().or(content.flatten()).or(Some(0)))
}

/// `data.message`'s calls: `None` inside when it is `null` or has no `content`.
fn scanned_message(s: &mut Scanner<'_>) -> Option<Option<usize>> {
    if s.at_null() {
        s.skip()?;
        return Some(None);
    }
    let mut content = None;
    s.object(|s, key| match key {
        b"content" => once(&mut content, scanned_calls(s)?),
        _ => s.skip(),
    })?;
    Some(content.flatten())
}

/// The `tool-call` blocks of a `content` array (`Some(None)` for `null`).
fn scanned_calls(s: &mut Scanner<'_>) -> Option<Option<usize>> {
    if s.at_null() {
        s.skip()?;
        return Some(None);
    }
    let mut calls = 0;
    s.array(|s| {
        let mut kind = None;
        s.object(|s, key| match key {
            b"type" => {
                let value = if s.at_null() {
                    s.skip()?;
                    None
                } else {
                    Some(s.plain_string()?)
                };
                once(&mut kind, value)
            }
            _ => s.skip(),
        })?;
        calls += usize::from(kind.flatten() == Some(b"tool-call".as_slice()));
        Some(())
    })?;
    Some(Some(calls))
}

fn tree_tool_call_blocks(bytes: &[u8]) -> usize {
    let Ok(event) = serde_json::from_slice::<Value>(bytes) else {
        return 0;
    };
    let Some(data) = event.get("data").filter(|d| d.is_object()) else {
        return 0;
    };
    let message = data.get("message").filter(|m| m.is_object());
    let content = message
        .and_then(|m| m.get("content"))
        .filter(|c| !c.is_null())
        .or_else(|| data.get("content"))
        .and_then(Value::as_array);
    content.map_or(0, |blocks| {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool-call"))
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_are_the_blocks_of_the_message() {
        let calls = |json: &str| tool_call_blocks(json.as_bytes());
        assert_eq!(
            calls(r#"{"data":{"message":{"content":[{"type":"text","text":"hi"}]}}}"#),
            0
        );
        let two = r#"{"data":{"message":{"content":[{"type":"tool-call","id":"a","name":"n","arguments":"{}"},{"type":"tool-call","id":"b","name":"n","arguments":"{}"}]}}}"#;
        assert_eq!(calls(two), 2);
        // Spaced JSON, the flat shape, and a block without an id are blocks all the same.
        let spaced =
            r#"{"data": {"content": [{"type": "tool-call", "name": "n", "arguments": "{}"}]}}"#;
        assert_eq!(calls(spaced), 1);
        // A quoted mention is no call.
        let quoted = r#"{"data":{"message":{"content":[{"type":"text","text":"a \"type\":\"tool-call\" here"}]}}}"#;
        assert_eq!(calls(quoted), 0);
        // Nor is the compact text anywhere else in the event: an argument object, a block
        // nested in a tool result, another field of data.
        let nested = r#"{"data":{"message":{"content":[{"type":"tool-call","id":"a","name":"n","arguments":{"then":{"type":"tool-call"}}},{"type":"tool-result","content":[{"type":"tool-call","id":"x"}]}]},"note":{"type":"tool-call"}}}"#;
        assert_eq!(calls(nested), 1);
        // data.message not an object: the message is data itself.
        let flat = r#"{"data":{"message":"m","content":[{"type":"tool-call","id":"a"}]}}"#;
        assert_eq!(calls(flat), 1);
        // A repeated key: the last one, as JavaScript reads it.
        let repeated = r#"{"data":{"content":[],"content":[{"type":"tool-call","id":"a"}]}}"#;
        assert_eq!(calls(repeated), 1);
        // The byte scanner and the tree read the usual shapes alike.
        for json in [
            two,
            spaced,
            nested,
            flat,
            r#"{"data":{"message":{"role":"user"},"content":[{"type":"tool-call"}]}}"#,
            r#"{"data":{"message":{"content":null},"content":[{"type":"tool-call"}]}}"#,
            r#"{"data":{"message":null,"content":[{"type":null},{"type":"tool-call"}]}}"#,
            r#"{"data":{"content":[{"type":"tool-call"},"tool-call",3]}}"#,
            r#"{"data":{"content":[{"type":"tool\u002dcall"}]}}"#,
            r#"{"data":null,"tool-call":1}"#,
            r#"{"tool-call":1}"#,
        ] {
            let tree = tree_tool_call_blocks(json.as_bytes());
            if let Some(scanned) = scanned_tool_call_blocks(json.as_bytes()) {
                assert_eq!(scanned, tree, "{json}");
            }
            assert_eq!(usize::from(calls(json)), tree, "{json}");
        }
        assert_eq!(
            calls(r#"{"data":{"content":[{"type":"tool\u002dcall"}]}}"#),
            1,
            "an escape is read"
        );
    }
}
