//! What the policy reads from a message event's text: the code points of a tool result's text
//! blocks (the pruner's size test), read from the raw JSON without building a tree, and the
//! price a prune would leave (built on the parsed tree, only for a node the replay prunes).
//! The `tool-call` blocks of an `assistant/message` (the tool pairing of a summary's range)
//! the meter counts as it prices the message ([`surface_engine::meter::tool_call_blocks`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::node::Node;
use super::settings::{PRUNE_MARKER, PrunerSettings};
use surface_engine::meter::blocks_price;
use surface_engine::{EventIdx, EventLog};

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

/// What pruning the `tool/result` event `idx` with `pruner` would leave (docs/policy.md):
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
}
