//! Pricing straight from an event's JSON bytes in one forward scan ([`super::scan`]), without
//! building a JSON tree: the node price of a surface event (with an `assistant/message`'s
//! usage and streamed price), a request's context window. Blocks are read by
//! [`super::blocks`], stream chunks and packed rows by [`super::chunks`].
//! Shapes the fast path does not know — an unknown block type, an era's wrapper messages, a
//! field with an unexpected JSON type, a repeated key, an escaped key — fall back to the
//! tree-based reference ([`super::price`], [`super::anchor::piece_of_chunk`]), so the fast
//! path answers only where it gives the reference's answer (the tests hold the two equal).

use serde_json::Value;

use super::anchor::Usage;
use super::blocks::{ENVELOPE_HEAD, Known, blocks};
use super::price::{OVERHEAD, message_price};
use super::scan::{Scanner, once};
use super::tool_calls::tool_call_blocks;
use super::window::{BadWindow, context_window};
use crate::EventType;
use crate::{EventIdx, EventLog, message_of};
use surface_scan::byte_masks::skip_digits;

// --- Blocks and messages ---------------------------------------------------------------
/// A `content` member as the message rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    /// An array of known blocks: its length, the sum of their prices and how many are
    /// `tool-call` blocks.
    Blocks(usize, u64, usize),
    /// Anything else (null, a string, an object, an array with an unknown block).
    Other,
}

/// A `content` member; its blocks are added to `seen`.
fn content<'a>(s: &mut Scanner<'a>, seen: &mut Vec<Known<'a>>) -> Option<Content> {
    if s.peek()? == b'['
        && let Some((list, sum)) = s.attempt(blocks)
    {
        let n = list.len();
        let calls = list.iter().filter(|k| k.is_tool_call()).count();
        seen.extend(list);
        return Some(Content::Blocks(n, sum, calls));
    }
    s.skip().map(|()| Content::Other)
}

/// `data.message`: an object with its `content` (if any), or something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inner {
    Object(Option<Content>),
    Other,
}

/// What one scan of a message event yields.
#[derive(Debug, Default)]
struct Facts<'a> {
    content: Option<Content>,
    message: Option<Inner>,
    /// `data.usage` as written, and read when its counts are plain integers.
    usage: Option<(&'a [u8], Option<Usage>)>,
    /// Every block priced on the way.
    blocks: Vec<Known<'a>>,
}

fn scan_message(bytes: &[u8]) -> Option<Facts<'_>> {
    Scanner::new(bytes).member(&ENVELOPE_HEAD, |s| {
        if s.peek()? != b'{' {
            return None;
        }
        let mut f = Facts::default();
        let mut seen = Vec::new();
        s.object(|s, key| match key {
            b"content" => once(&mut f.content, content(s, &mut seen)?),
            b"message" => {
                let inner = if s.peek()? == b'{' {
                    let mut c = None;
                    s.object(|s, key| match key {
                        b"content" => once(&mut c, content(s, &mut seen)?),
                        _ => s.skip(),
                    })?;
                    Inner::Object(c)
                } else {
                    s.skip()?;
                    Inner::Other
                };
                once(&mut f.message, inner)
            }
            b"usage" => {
                if s.at_null() {
                    s.skip()
                } else if let Some((usage, raw)) = s.attempt(|s| s.consumed(usage_object)) {
                    once(&mut f.usage, (raw, Some(usage)))
                } else {
                    once(&mut f.usage, (s.value()?, None))
                }
            }
            _ => s.skip(),
        })?;
        f.blocks = seen;
        Some(f)
    })
}

/// The node price from the facts, where the message rules give it without a tree.
fn price_of(kind: EventType, f: &Facts<'_>) -> Option<u64> {
    let priced = |c: Option<Content>| match c? {
        Content::Blocks(_, sum, _) => Some(OVERHEAD + sum),
        Content::Other => None,
    };
    match (kind, f.message, f.content) {
        (EventType::UserMessage, _, Some(c)) => priced(Some(c)),
        (EventType::AssistantMessage, Some(Inner::Object(Some(c))), _)
        | (EventType::AssistantMessage, None, Some(c)) => match c {
            Content::Blocks(0, _, _) => Some(0),
            c => priced(Some(c)),
        },
        (EventType::ToolResult, Some(Inner::Object(Some(c))), _) => priced(Some(c)),
        // The era without identified messages: one tool-result block around the content.
        (EventType::ToolResult, None, Some(c)) => priced(Some(c)).map(|p| p + OVERHEAD),
        _ => None,
    }
}

/// What the meter reads of one surface-eligible event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeFacts {
    /// The price of its derived message.
    pub price: u64,
    /// Its readable `data.usage`.
    pub usage: Option<Usage>,
    /// For an `assistant/message` with usage and `sourceEventSeqs`: the price of the message
    /// the provider streamed (`A`), assembled from the cited chunks.
    pub streamed: Option<u64>,
    /// For an `assistant/message`: its `tool-call` blocks ([`tool_call_blocks`]); 0 for any
    /// other event.
    pub calls: u16,
}

/// The price of an event's derived message (0 when it yields none, e.g. an empty
/// `assistant/message`).
pub fn node_price(log: &EventLog, idx: EventIdx) -> u64 {
    node_facts(log, idx).price
}

/// Everything the meter reads of a surface-eligible event, from one scan of its text (the
/// streamed price reads the cited chunks too). Independent of every other event's state.
pub fn node_facts(log: &EventLog, idx: EventIdx) -> NodeFacts {
    log.with_event_bytes(idx, |bytes| facts_of_bytes(log, idx, bytes))
}

/// [`node_facts`] from the event's bytes (a line of a mapped file already copied).
fn facts_of_bytes(log: &EventLog, idx: EventIdx, bytes: &[u8]) -> NodeFacts {
    let assistant = log.event_type(idx) == EventType::AssistantMessage;
    let streamed = |usage: Option<Usage>, known: &[Known<'_>]| {
        let sources = log.sources(idx).filter(|_| assistant && usage.is_some())?;
        Some(super::stream::streamed_price_with(log, sources, known))
    };
    let Some(facts) = scan_message(bytes) else {
        let usage = usage_of(log, idx);
        return NodeFacts {
            price: node_price_reference(log, idx),
            usage,
            streamed: streamed(usage, &[]),
            calls: if assistant {
                tool_call_blocks(bytes)
            } else {
                0
            },
        };
    };
    let usage = facts.usage.and_then(|(raw, read)| {
        read.or_else(|| {
            let v = serde_json::from_slice::<Value>(raw).ok()?;
            Usage::from_value(&v).ok()
        })
    });
    let calls = if assistant {
        calls_of(&facts).unwrap_or_else(|| tool_call_blocks(bytes))
    } else {
        0
    };
    NodeFacts {
        price: price_of(log.event_type(idx), &facts)
            .unwrap_or_else(|| node_price_reference(log, idx)),
        usage,
        streamed: streamed(usage, &facts.blocks),
        calls,
    }
}

/// The `tool-call` blocks of a message as [`tool_call_blocks`] counts them, where the scan's
/// facts give them: the blocks of `data.message.content` when `data.message` is an object
/// with a `content`, else of `data.content`. `None` where the content that counts is not an
/// array of known blocks (a `null` content, whose message then counts `data.content`, an
/// unknown block, an escape in a type): [`tool_call_blocks`] reads those bytes itself.
fn calls_of(f: &Facts<'_>) -> Option<u16> {
    let counted = match (f.message, f.content) {
        (Some(Inner::Object(Some(c))), _) => c,
        (_, Some(c)) => c,
        (_, None) => return Some(0),
    };
    match counted {
        Content::Blocks(_, _, calls) => Some(calls.min(usize::from(u16::MAX)) as u16),
        Content::Other => None,
    }
}

/// [`node_price`] where one forward scan of the event's bytes gives it; `None` where the fast
/// path gives up (and [`node_price`] asks the reference). Not on any hot path: the pricers
/// call the scan themselves; this lets tests assert that the fast path ran.
pub fn node_price_fast(log: &EventLog, idx: EventIdx) -> Option<u64> {
    price_of(log.event_type(idx), &scan_message(&log.event_bytes(idx))?)
}

/// [`node_price`] through the derived [`crate::Message`] as a JSON tree: the
/// reference the fast path is tested against.
pub fn node_price_reference(log: &EventLog, idx: EventIdx) -> u64 {
    message_of(log, idx).map_or(0, |m| message_price(&m))
}

// --- Request context and usage --------------------------------------------------------

/// A usage object whose counts are plain non-negative integers (else the tree reads it).
fn fast_usage(raw: &[u8]) -> Option<Usage> {
    usage_object(&mut Scanner::new(raw))
}

/// [`fast_usage`] at the scanner's cursor.
fn usage_object(s: &mut Scanner<'_>) -> Option<Usage> {
    let (mut input, mut read, mut write, mut output) = (None, None, None, None);
    s.object(|s, key| match key {
        b"inputTokens" => once(&mut input, s.unsigned()?),
        b"cacheReadTokens" => once(&mut read, s.unsigned()?),
        b"cacheWriteTokens" => once(&mut write, s.unsigned()?),
        b"outputTokens" => once(&mut output, s.unsigned()?),
        _ => s.skip(),
    })?;
    Some(Usage {
        input: input.unwrap_or(0),
        cache_read: read.unwrap_or(0),
        cache_write: write.unwrap_or(0),
        output: output.unwrap_or(0),
    })
}

/// One member of an event's `data`: `Ok` with what `fast` read from its raw JSON when it
/// answers, else `Err` with the member parsed on its own (`None` when absent or null; read
/// from the whole `data` as a tree when the scan fails, e.g. on a repeated key). The event's
/// bytes are scanned once either way.
fn data_field_with<T>(
    log: &EventLog,
    idx: EventIdx,
    key: &str,
    fast: impl FnOnce(&[u8]) -> Option<T>,
) -> Result<T, Option<Value>> {
    // The line is read from the thread's reused copy (one per request context in a long
    // log: no allocation each).
    let value = log.with_event_bytes(idx, |bytes| match data_member_raw(bytes, key) {
        Some(Some(raw)) => match fast(raw) {
            Some(read) => Ok(read),
            None => Err(serde_json::from_slice(raw).ok()),
        },
        Some(None) => Err(None),
        None => Err(log.data_value(idx).get(key).cloned()),
    });
    value.map_err(|value| value.filter(|v: &Value| !v.is_null()))
}

/// The raw JSON of member `key` of an event's `data` object: `Some(None)` when absent,
/// `None` when the scan cannot tell (another shape, a repeated key: read the tree instead).
fn data_member_raw<'b>(bytes: &'b [u8], key: &str) -> Option<Option<&'b [u8]>> {
    Scanner::new(bytes).member(&ENVELOPE_HEAD, |s| {
        if s.peek()? != b'{' {
            return s.skip().map(|()| None);
        }
        let mut member = None;
        s.object(|s, k| {
            if k == key.as_bytes() {
                once(&mut member, s.value()?)
            } else {
                s.skip()
            }
        })?;
        Some(member)
    })
}

/// The `contextWindow` of a `request/context`: `Ok(None)` when absent, `Err` when it is not a
/// positive integer.
pub fn context_window_of(log: &EventLog, idx: EventIdx) -> Result<Option<u64>, BadWindow> {
    // The usual window, plain digits, straight from the bytes; anything else through a tree.
    let plain = |raw: &[u8]| {
        let digits = std::str::from_utf8(raw)
            .ok()
            .filter(|_| skip_digits(raw, 0) == raw.len());
        digits?.parse::<u64>().ok().filter(|&w| w > 0)
    };
    match data_field_with(log, idx, "contextWindow", plain) {
        Ok(window) => Ok(Some(window)),
        Err(window) => context_window(window.as_ref()),
    }
}

/// The `data.usage` of an event as written and read: `None` when absent, `Err` with the reason
/// when it is not token counts.
pub fn usage_field(log: &EventLog, idx: EventIdx) -> Option<Result<Usage, String>> {
    // The usual usage (plain counts) straight from the bytes; anything else through the tree.
    match data_field_with(log, idx, "usage", fast_usage) {
        Ok(usage) => Some(Ok(usage)),
        Err(usage) => usage.map(|u| Usage::from_value(&u)),
    }
}

/// The readable `data.usage` of an event (`None` when absent or malformed).
pub fn usage_of(log: &EventLog, idx: EventIdx) -> Option<Usage> {
    usage_field(log, idx)?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(type_name: &str, json: &str) -> Option<u64> {
        price_of(EventType::of(type_name), &scan_message(json.as_bytes())?)
    }

    #[test]
    fn the_usual_shapes_take_the_fast_path() {
        let head_assistant = r#"{"type":"assistant/message","seq":9,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"reasoning","text":"abcd"},{"type":"tool-call","id":"c","name":"bash","arguments":"{\"a\":1}"}],"id":"a"},"usage":{"inputTokens":20,"outputTokens":4}},"sourceEventSeqs":[3],"surfaceOp":"append"}"#;
        let f = scan_message(head_assistant.as_bytes()).unwrap();
        assert_eq!(
            price_of(EventType::AssistantMessage, &f),
            Some(4 + (1 + 4) + (1 + 2 + 4))
        );
        let usage = Usage {
            input: 20,
            output: 4,
            ..Usage::default()
        };
        assert_eq!(
            f.usage,
            Some((&br#"{"inputTokens":20,"outputTokens":4}"#[..], Some(usage)))
        );
        let flat_result = r#"{"type":"tool/result","seq":5,"data":{"callId":"c","content":[{"type":"text","text":"x\u00e9"}],"isError":false}}"#;
        assert_eq!(price("tool/result", flat_result), Some(4 + (1 + 4) + 4));
        let user = r#"{"type":"user/message","seq":4,"data":{"content":[],"role":"user"}}"#;
        assert_eq!(price("user/message", user), Some(4));
        let empty = r#"{"type":"assistant/message","seq":4,"data":{"message":{"content":[]}}}"#;
        assert_eq!(price("assistant/message", empty), Some(0));
    }

    /// A log of raw lines (each kept byte for byte), every event appended to the surface.
    fn raw_log(lines: &[&str]) -> EventLog {
        let mut text = Vec::new();
        let mut batch = crate::EventBatch::default();
        for (k, line) in lines.iter().enumerate() {
            let start = text.len() as u64;
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
            let v: Value = serde_json::from_str(line).unwrap();
            batch.push(crate::NewEvent {
                seq: v["seq"].as_u64().unwrap(),
                time: None,
                type_name: v["type"].as_str().unwrap(),
                op: crate::SurfaceOp::Append,
                sources: None,
                line: k as u32 + 1,
                text: crate::EventText::Line {
                    start,
                    len: line.len() as u32,
                },
                plain: false,
            });
        }
        EventLog::new(None, text, batch)
    }

    /// The meter's count of a message's `tool-call` blocks, from its scan or from the bytes
    /// the scan leaves, is the one [`tool_call_blocks`] reads from the bytes alone, whatever
    /// the shape; other events count none.
    #[test]
    fn the_calls_counted_with_the_price_are_those_of_the_bytes() {
        let call = r#"{"type":"tool-call","id":"a","name":"n","arguments":"{}"}"#;
        let text = r#"{"type":"text","text":"a \"type\":\"tool-call\" here"}"#;
        let data = [
            format!(r#"{{"message":{{"content":[{call},{call},{text}]}}}}"#),
            format!(r#"{{"message":{{"content":[{text}]}},"content":[{call}]}}"#),
            format!(r#"{{"content":[{call}],"message":{{"role":"assistant"}}}}"#),
            format!(r#"{{"message":{{"content":null}},"content":[{call},{call}]}}"#),
            format!(r#"{{"message":null,"content":[{call}]}}"#),
            format!(r#"{{"message":"m","content":[{call}]}}"#),
            format!(r#"{{"content":[{call}],"content":[]}}"#),
            format!(r#"{{"content":[{call},{{"type":"image","url":"u"}}]}}"#),
            r#"{"content":[{"type":"tool\u002dcall","id":"a","name":"n","arguments":"{}"}]}"#
                .to_string(),
            format!(r#"{{"message":{{"content":[{{"type":"tool-call","name":5}},{call}]}}}}"#),
            format!(r#"{{"message":{{"content":[]}},"content":[{call}]}}"#),
            r#"{"content":"tool-call"}"#.to_string(),
            r#"{"note":{"type":"tool-call"}}"#.to_string(),
            "null".to_string(),
        ];
        let mut lines: Vec<String> = data
            .iter()
            .enumerate()
            .map(|(k, d)| format!(r#"{{"type":"assistant/message","seq":{k},"data":{d}}}"#))
            .collect();
        lines.push(format!(
            r#"{{"type":"user/message","seq":99,"data":{{"content":[{call}]}}}}"#
        ));
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let log = raw_log(&lines);
        let counts: Vec<u16> = log.indices().map(|i| node_facts(&log, i).calls).collect();
        let expected: Vec<u16> = lines
            .iter()
            .enumerate()
            .map(|(k, line)| {
                if k < data.len() {
                    tool_call_blocks(line.as_bytes())
                } else {
                    0
                }
            })
            .collect();
        assert_eq!(counts, expected);
        assert_eq!(
            &counts[..data.len()],
            [2, 0, 1, 2, 1, 1, 0, 1, 1, 2, 0, 0, 0, 0],
            "the cases differ"
        );
    }

    #[test]
    fn unusual_shapes_fall_back() {
        let image =
            r#"{"type":"user/message","seq":4,"data":{"content":[{"type":"image","url":"u"}]}}"#;
        assert_eq!(price("user/message", image), None);
        let wrapped = r#"{"type":"context/message","seq":4,"data":{"content":[]}}"#;
        assert_eq!(price("context/message", wrapped), None);
        let repeated = r#"{"type":"user/message","seq":4,"data":{"content":[],"content":[]}}"#;
        assert!(scan_message(repeated.as_bytes()).is_none());
        let escaped_key = r#"{"type":"user/message","seq":4,"data":{"con\u0074ent":[]}}"#;
        assert!(scan_message(escaped_key.as_bytes()).is_none());
        let not_a_string =
            r#"{"type":"user/message","seq":4,"data":{"content":[{"type":"text","text":5}]}}"#;
        assert_eq!(price("user/message", not_a_string), None);
    }
}
