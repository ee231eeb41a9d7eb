//! What the policy reads from a message event's text: the `tool-call` blocks of an
//! `assistant/message` (the tool pairing of a summary's range) and the code points of a tool
//! result's text blocks (the pruner's size test), both read from the raw JSON without building
//! a tree, and the price a prune would leave (built on the parsed tree, only for a node the
//! replay prunes).

use std::borrow::Cow;
use std::collections::HashMap;

use memchr::memmem;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::node::Node;
use super::settings::{PRUNE_MARKER, PrunerSettings};
use crate::meter::blocks_price;
use crate::meter::scan::{Scanner, once};
use crate::{EventIdx, EventLog};

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow, default)]
    message: Option<MessageBody<'a>>,
    #[serde(borrow, default)]
    content: Option<Vec<Block<'a>>>,
}

#[derive(Deserialize)]
struct MessageBody<'a> {
    #[serde(borrow, default)]
    content: Option<Vec<Block<'a>>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<Vec<Block<'a>>>,
}

/// The `tool-call` blocks of an `assistant/message` (viewer-spec §10.2's pairing count): the
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

/// Exact code points of tool results, read from the log once per replay for the nodes that
/// hold only an upper bound (see [`Node::chars`]).
#[derive(Clone, Debug, Default)]
pub struct ExactChars(HashMap<u32, u64>);

impl ExactChars {
    /// The exact code points of `node`'s text blocks.
    pub fn of(&mut self, log: &EventLog, node: &Node) -> u64 {
        if node.chars_exact {
            return u64::from(node.chars);
        }
        *self
            .0
            .entry(node.event)
            .or_insert_with(|| tool_result_chars(log, EventIdx(node.event)))
    }
}

/// Code points of the text blocks inside a `tool/result` event's `tool-result` content (the
/// flat shape's `content` for older eras); 0 when the event has none or cannot be read, or
/// `idx` is not an event of `log`.
pub fn tool_result_chars(log: &EventLog, idx: EventIdx) -> u64 {
    if idx.get() >= log.len() {
        return 0;
    }
    let bytes = log.event_bytes(idx);
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(&bytes) else {
        return 0;
    };
    let Some(data) = envelope.data else {
        return 0;
    };
    let text_chars = |inner: &[Block<'_>]| -> u64 {
        inner
            .iter()
            .filter(|b| b.kind.as_deref() == Some("text"))
            .filter_map(|b| b.text.and_then(|t| json_string_chars(t.get())))
            .sum()
    };
    match (data.message, data.content) {
        (Some(message), _) => message.content.map_or(0, |blocks| {
            blocks
                .iter()
                .filter(|b| b.kind.as_deref() == Some("tool-result"))
                .filter_map(|b| b.content.as_deref())
                .map(text_chars)
                .sum()
        }),
        (None, Some(content)) => text_chars(&content),
        (None, None) => 0,
    }
}

/// Code points of the string a JSON string literal (quotes included) denotes, counted on the
/// literal: escapes count as the one character they stand for, a surrogate pair as one.
/// `None` when `literal` is not a string.
pub fn json_string_chars(literal: &str) -> Option<u64> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut count = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\\' {
            if bytes.get(i + 1) == Some(&b'u') {
                let unit = hex4(bytes.get(i + 2..i + 6));
                let high = unit.is_some_and(|u| (0xD800..0xDC00).contains(&u));
                let low_follows = bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && hex4(bytes.get(i + 8..i + 12))
                        .is_some_and(|u| (0xDC00..0xE000).contains(&u));
                i += if high && low_follows { 12 } else { 6 };
            } else {
                i += 2;
            }
            count += 1;
        } else {
            // A UTF-8 lead byte or ASCII starts a code point; continuation bytes do not.
            if b & 0xC0 != 0x80 {
                count += 1;
            }
            i += 1;
        }
    }
    Some(count)
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let text = std::str::from_utf8(digits?).ok()?;
    u32::from_str_radix(text, 16).ok()
}

/// A pruned tool result: its price and the code points its text keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruned {
    /// The meter's price of the pruned message.
    pub price: u64,
    /// Code points of its text blocks together.
    pub chars: u64,
}

/// What pruning the `tool/result` event `idx` with `pruner` would leave (viewer-spec §10.2):
/// the first `head_chars` and last `tail_chars` code points of its text blocks together, the
/// marker in the first text block that overlaps the removed span, text blocks left empty
/// dropped, other blocks kept. `None` when the text is not over the pruner's threshold, the
/// event cannot be read or `idx` is not an event of `log` (a node the replay made up).
pub fn pruned(log: &EventLog, idx: EventIdx, pruner: &PrunerSettings) -> Option<Pruned> {
    if idx.get() >= log.len() {
        return None;
    }
    let data = log.event_value(idx)?.get("data")?.clone();
    let (blocks, flat) = match data.get("message").filter(|m| m.is_object()) {
        Some(message) => (message.get("content")?.as_array()?.clone(), false),
        None => (data.get("content")?.as_array()?.clone(), true),
    };
    let mut blocks = blocks;
    let total: u64 = inner_texts(&blocks, flat)
        .map(|t| t.chars().count() as u64)
        .sum();
    if total <= pruner.threshold_chars {
        return None;
    }
    let cut_from = pruner.head_chars;
    let cut_to = total.saturating_sub(pruner.tail_chars).max(cut_from);
    let mut offset = 0u64;
    let mut marker_placed = false;
    let prune_inner = |inner: &mut Vec<Value>, offset: &mut u64, marker_placed: &mut bool| {
        inner.retain_mut(|b| {
            if b.get("type").and_then(Value::as_str) != Some("text") {
                return true;
            }
            let Some(text) = b.get("text").and_then(Value::as_str) else {
                return true;
            };
            let chars: Vec<char> = text.chars().collect();
            let (start, end) = (*offset, *offset + chars.len() as u64);
            *offset = end;
            let keep = |from: u64, to: u64| -> String {
                let (a, b) = (from.clamp(start, end), to.clamp(start, end));
                chars[(a - start) as usize..(b - start) as usize]
                    .iter()
                    .collect()
            };
            let mut new_text = keep(start, cut_from);
            if !*marker_placed && start < cut_to && end > cut_from {
                new_text.push_str(PRUNE_MARKER);
                *marker_placed = true;
            }
            new_text.push_str(&keep(cut_to, end));
            if new_text.is_empty() {
                return false;
            }
            b["text"] = Value::String(new_text);
            true
        });
    };
    if flat {
        prune_inner(&mut blocks, &mut offset, &mut marker_placed);
    } else {
        for block in blocks.iter_mut() {
            if block.get("type").and_then(Value::as_str) != Some("tool-result") {
                continue;
            }
            if let Some(inner) = block.get_mut("content").and_then(Value::as_array_mut) {
                prune_inner(inner, &mut offset, &mut marker_placed);
            }
        }
    }
    let chars = inner_texts(&blocks, flat)
        .map(|t| t.chars().count() as u64)
        .sum();
    let price = if flat {
        // The flat shape's message is one tool-result block holding `content`.
        let block = serde_json::json!({"type": "tool-result", "content": blocks});
        blocks_price([&block])
    } else {
        blocks_price(&blocks)
    };
    Some(Pruned { price, chars })
}

/// The text of every text block inside the tool-result content of `blocks`.
fn inner_texts(blocks: &[Value], flat: bool) -> impl Iterator<Item = &str> {
    let inner: Vec<&Value> = if flat {
        blocks.iter().collect()
    } else {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool-result"))
            .filter_map(|b| b.get("content").and_then(Value::as_array))
            .flatten()
            .collect()
    };
    inner
        .into_iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_count_code_points() {
        assert_eq!(json_string_chars(r#""abc""#), Some(3));
        assert_eq!(json_string_chars(r#""a\nb\"""#), Some(4));
        assert_eq!(json_string_chars(r#""\u00e9\ud83d\ude00x""#), Some(3));
        assert_eq!(json_string_chars("\"数😀\""), Some(2));
        assert_eq!(json_string_chars("12"), None);
    }

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
