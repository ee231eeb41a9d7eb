//! Pricing straight from an event's JSON bytes in one forward scan ([`super::scan`]), without
//! building a JSON tree: the node price of a surface event (with an `assistant/message`'s
//! usage), the piece a stream chunk contributes, and the delta lengths of a packed row.
//! Shapes the fast path does not know — an unknown block type, an era's wrapper messages, a
//! field with an unexpected JSON type, a repeated key, an escaped key — fall back to the
//! tree-based reference ([`super::price`], [`super::anchor::piece_of_chunk`]), so the fast
//! path answers only where it gives the reference's answer (the tests hold the two equal).

use serde_json::Value;

use super::anchor::{DeltaKind, Piece, Usage, piece_of_chunk};
use super::price::{OVERHEAD, message_price};
use super::scan::{Head, Literal, Scanner, once};
use super::utf16::ceil4;
use crate::{ChunkKind, EventIdx, EventLog, PackedData, message_of};
use surface_scan::byte_masks::skip_digits;

// --- Blocks and messages ---------------------------------------------------------------

/// A string member's UTF-16 length, or `None` inside when the member is not a string.
fn string_or_skip(s: &mut Scanner<'_>) -> Option<Option<usize>> {
    if s.peek()? == b'"' {
        s.string_len().map(Some)
    } else {
        s.skip().map(|()| None)
    }
}

/// A block the fast path priced: its exact JSON text, so that the same text met again (a
/// `block-end` chunk repeating a message's block) is priced by comparing bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known<'a> {
    raw: &'a [u8],
    price: u64,
    tool_call: bool,
}

/// A block's price and whether it is a tool call, for a block of a known type whose fields
/// have their JSON types; `None` otherwise (the caller falls back).
fn block(s: &mut Scanner<'_>) -> Option<(u64, bool)> {
    let mut kind: Option<&[u8]> = None;
    let (mut text, mut name, mut arguments) = (None, None, None);
    let mut content: Option<Option<u64>> = None;
    s.object(|s, key| match key {
        b"type" => once(&mut kind, s.plain_string()?),
        b"text" => once(&mut text, string_or_skip(s)?),
        b"name" => once(&mut name, string_or_skip(s)?),
        b"arguments" => once(&mut arguments, string_or_skip(s)?),
        b"content" => once(&mut content, blocks_or_skip(s)?),
        _ => s.skip(),
    })?;
    let price = match kind? {
        b"text" | b"reasoning" => ceil4(text.flatten()?),
        b"tool-call" => ceil4(name.flatten()?) + ceil4(arguments.flatten()?),
        b"tool-result" => content.flatten()?,
        _ => return None,
    };
    Some((price + OVERHEAD, kind == Some(b"tool-call")))
}

/// A block met again: priced by its text when it equals a known block, else scanned.
fn block_or_known(s: &mut Scanner<'_>, known: &[Known<'_>]) -> Option<(u64, bool)> {
    let rest = s.rest();
    match known.iter().find(|k| rest.starts_with(k.raw)) {
        Some(k) => {
            s.advance(k.raw.len());
            Some((k.price, k.tool_call))
        }
        None => block(s),
    }
}

/// An array of known blocks: the blocks with their text, and the sum of their prices.
fn blocks<'a>(s: &mut Scanner<'a>) -> Option<(Vec<Known<'a>>, u64)> {
    let (mut list, mut sum) = (Vec::new(), 0u64);
    s.array(|s| {
        let ((price, tool_call), raw) = s.consumed(block)?;
        sum += price;
        list.push(Known {
            raw,
            price,
            tool_call,
        });
        Some(())
    })
    .map(|()| (list, sum))
}

/// A `content` member priced as blocks when it is an array of known blocks; `None` inside
/// when it is anything else (then skipped).
fn blocks_or_skip(s: &mut Scanner<'_>) -> Option<Option<u64>> {
    if s.peek()? == b'['
        && let Some((_, sum)) = s.attempt(blocks)
    {
        return Some(Some(sum));
    }
    s.skip().map(|()| None)
}

/// A `content` member as the message rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    /// An array of known blocks: its length and the sum of their prices.
    Blocks(usize, u64),
    /// Anything else (null, a string, an object, an array with an unknown block).
    Other,
}

/// A `content` member; its blocks are added to `seen`.
fn content<'a>(s: &mut Scanner<'a>, seen: &mut Vec<Known<'a>>) -> Option<Content> {
    if s.peek()? == b'['
        && let Some((list, sum)) = s.attempt(blocks)
    {
        let n = list.len();
        seen.extend(list);
        return Some(Content::Blocks(n, sum));
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

/// How the harness writes an event up to its `data` (see [`Scanner::member`]).
const ENVELOPE_HEAD: Head = Head::new(
    &[
        Literal::new(br#"{"type":"#),
        Literal::new(br#","seq":"#),
        Literal::new(br#","time":"#),
        Literal::new(br#","data":"#),
    ],
    b"data",
);

/// How the harness writes a stream chunk's `data` up to its `chunk`.
const CHUNK_HEAD: Head = Head::new(
    &[
        Literal::new(br#"{"turn":"#),
        Literal::new(br#","step":"#),
        Literal::new(br#","chunk":"#),
    ],
    b"chunk",
);

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
fn price_of(type_name: &str, f: &Facts<'_>) -> Option<u64> {
    let priced = |c: Option<Content>| match c? {
        Content::Blocks(_, sum) => Some(OVERHEAD + sum),
        Content::Other => None,
    };
    match (type_name, f.message, f.content) {
        ("user/message", _, Some(c)) => priced(Some(c)),
        ("assistant/message", Some(Inner::Object(Some(c))), _)
        | ("assistant/message", None, Some(c)) => match c {
            Content::Blocks(0, _) => Some(0),
            c => priced(Some(c)),
        },
        ("tool/result", Some(Inner::Object(Some(c))), _) => priced(Some(c)),
        // The era without identified messages: one tool-result block around the content.
        ("tool/result", None, Some(c)) => priced(Some(c)).map(|p| p + OVERHEAD),
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
}

/// The price of an event's derived message (0 when it yields none, e.g. an empty
/// `assistant/message`).
pub fn node_price(log: &EventLog, idx: EventIdx) -> u64 {
    node_facts(log, idx).price
}

/// Everything the meter reads of a surface-eligible event, from one scan of its text (the
/// streamed price reads the cited chunks too). Independent of every other event's state.
pub fn node_facts(log: &EventLog, idx: EventIdx) -> NodeFacts {
    let bytes = log.event_bytes(idx);
    let assistant = log.type_name(idx) == "assistant/message";
    let streamed = |usage: Option<Usage>, known: &[Known<'_>]| {
        let sources = log.sources(idx).filter(|_| assistant && usage.is_some())?;
        Some(super::anchor::streamed_price_with(log, sources, known))
    };
    let Some(facts) = scan_message(&bytes) else {
        let usage = usage_of(log, idx);
        return NodeFacts {
            price: node_price_reference(log, idx),
            usage,
            streamed: streamed(usage, &[]),
        };
    };
    let usage = facts.usage.and_then(|(raw, read)| {
        read.or_else(|| {
            let v = serde_json::from_slice::<Value>(raw).ok()?;
            Usage::from_value(&v).ok()
        })
    });
    NodeFacts {
        price: price_of(log.type_name(idx), &facts)
            .unwrap_or_else(|| node_price_reference(log, idx)),
        usage,
        streamed: streamed(usage, &facts.blocks),
    }
}

/// [`node_price`] where one forward scan of the event's bytes gives it; `None` where the fast
/// path gives up (and [`node_price`] asks the reference). Not on any hot path: the pricers
/// call the scan themselves; this lets tests assert that the fast path ran.
pub fn node_price_fast(log: &EventLog, idx: EventIdx) -> Option<u64> {
    price_of(log.type_name(idx), &scan_message(&log.event_bytes(idx))?)
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
    let bytes = log.event_bytes(idx);
    let value = match data_member_raw(&bytes, key) {
        Some(Some(raw)) => match fast(raw) {
            Some(read) => return Ok(read),
            None => serde_json::from_slice(raw).ok(),
        },
        Some(None) => None,
        None => log.data_value(idx).get(key).cloned(),
    };
    Err(value.filter(|v: &Value| !v.is_null()))
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
pub fn context_window_of(
    log: &EventLog,
    idx: EventIdx,
) -> Result<Option<u64>, super::findings::BadWindow> {
    // The usual window, plain digits, straight from the bytes; anything else through a tree.
    let plain = |raw: &[u8]| {
        let digits = std::str::from_utf8(raw)
            .ok()
            .filter(|_| skip_digits(raw, 0) == raw.len());
        digits?.parse::<u64>().ok().filter(|&w| w > 0)
    };
    match data_field_with(log, idx, "contextWindow", plain) {
        Ok(window) => Ok(Some(window)),
        Err(window) => super::findings::context_window(window.as_ref()),
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

// --- Stream chunks ---------------------------------------------------------------------

/// What one scan of a chunk's `data.chunk` yields.
#[derive(Default)]
struct ChunkFacts<'a> {
    kind: Option<&'a [u8]>,
    index: Option<u64>,
    text: Option<Option<usize>>,
    arguments_delta: Option<Option<usize>>,
    name: Option<Option<usize>>,
    block_type: Option<Option<&'a [u8]>>,
    block: Option<(u64, bool)>,
    reason_kind: Option<Option<&'a [u8]>>,
}

/// The piece, by the rules of [`piece_of_chunk`], where one scan of the chunk event gives it.
fn fast_piece(bytes: &[u8], known: &[Known<'_>]) -> Option<Piece> {
    Scanner::new(bytes).member(&ENVELOPE_HEAD, |s| {
        if s.peek()? != b'{' {
            return None;
        }
        s.member(&CHUNK_HEAD, |s| {
            if s.peek()? != b'{' {
                return None;
            }
            let mut c = ChunkFacts::default();
            s.object(|s, key| match key {
                b"type" => once(&mut c.kind, s.plain_string()?),
                b"index" => once(&mut c.index, s.unsigned()?),
                b"text" => once(&mut c.text, string_or_skip(s)?),
                b"argumentsDelta" => once(&mut c.arguments_delta, string_or_skip(s)?),
                b"name" => once(&mut c.name, string_or_skip(s)?),
                b"blockType" => {
                    let t = if s.peek()? == b'"' {
                        Some(s.plain_string()?)
                    } else {
                        s.skip()?;
                        None
                    };
                    once(&mut c.block_type, t)
                }
                b"block" => once(&mut c.block, block_or_known(s, known)?),
                b"reason" => {
                    let mut kind = None;
                    if s.peek()? == b'{' {
                        s.object(|s, key| match key {
                            b"kind" if s.peek()? == b'"' => once(&mut kind, s.plain_string()?),
                            b"kind" => {
                                s.skip()?;
                                once(&mut kind, &b""[..])
                            }
                            _ => s.skip(),
                        })?;
                    } else {
                        s.skip()?;
                    }
                    once(&mut c.reason_kind, kind)
                }
                _ => s.skip(),
            })?;
            // Turned into the (smaller) piece here, so the facts never leave this frame.
            piece_from(c)
        })
    })
}

fn delta_kind(name: &[u8]) -> Option<DeltaKind> {
    match name {
        b"text" => Some(DeltaKind::Text),
        b"reasoning" => Some(DeltaKind::Reasoning),
        b"tool-call" => Some(DeltaKind::ToolCall),
        _ => None,
    }
}

/// The piece of a chunk's scanned facts, by the rules of [`piece_of_chunk`].
fn piece_from(c: ChunkFacts<'_>) -> Option<Piece> {
    let len = |f: Option<Option<usize>>| f.flatten().unwrap_or(0);
    Some(match (c.kind?, c.index) {
        (b"block-start", Some(index)) => Piece::Start {
            index,
            kind: c.block_type.flatten().and_then(delta_kind),
        },
        (b"block-end", Some(index)) => match c.block {
            Some((price, tool_call)) => Piece::End {
                index,
                price,
                tool_call,
            },
            None => Piece::Other,
        },
        (b"finish", _) => Piece::Finish {
            max_tokens: c.reason_kind.flatten() == Some(b"max-tokens"),
        },
        (b"text-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::Text,
            len: len(c.text),
            name_len: None,
        },
        (b"reasoning-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::Reasoning,
            len: len(c.text),
            name_len: None,
        },
        (b"tool-call-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::ToolCall,
            len: len(c.arguments_delta),
            name_len: c.name.flatten().filter(|&n| n > 0),
        },
        _ => Piece::Other,
    })
}

/// The piece an `assistant/chunk` event read from its own line contributes.
pub fn chunk_piece(log: &EventLog, idx: EventIdx) -> Piece {
    chunk_piece_with(log, idx, &[])
}

/// [`chunk_piece`], pricing a `block-end` block equal to one of `known` without scanning it.
pub fn chunk_piece_with(log: &EventLog, idx: EventIdx, known: &[Known<'_>]) -> Piece {
    fast_piece(&log.event_bytes(idx), known).unwrap_or_else(|| chunk_piece_reference(log, idx))
}

/// [`chunk_piece`] where one scan of the chunk event gives it; `None` where the fast path gives
/// up (and [`chunk_piece`] asks the reference). For tests, as [`node_price_fast`].
pub fn chunk_piece_fast(log: &EventLog, idx: EventIdx) -> Option<Piece> {
    fast_piece(&log.event_bytes(idx), &[])
}

/// [`chunk_piece`] through the event as a JSON tree: the reference.
pub fn chunk_piece_reference(log: &EventLog, idx: EventIdx) -> Piece {
    log.data_value(idx)
        .get("chunk")
        .map_or(Piece::Other, piece_of_chunk)
}

// --- Packed rows -----------------------------------------------------------------------

/// What the meter needs of a packed chunk row: its members' delta lengths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowDeltas {
    kind: DeltaKind,
    index: u64,
    /// UTF-16 length of a non-empty `name` (tool-call rows).
    name_len: Option<usize>,
    /// UTF-16 length of each member's text or arguments delta.
    lens: Vec<usize>,
}

impl RowDeltas {
    /// Reads packed row `row` of `log` (a scan, else the strict decoder). `None` when the row
    /// does not decode (its members then contribute nothing, as in the reference).
    pub fn read(log: &EventLog, row: u32) -> Option<RowDeltas> {
        let kind = log.packed_rows.get(row as usize)?.kind;
        let bytes = log.packed_row_bytes(row)?;
        Self::scan(kind, &bytes).or_else(|| Self::decode(kind, &bytes))
    }

    fn scan(kind: ChunkKind, bytes: &[u8]) -> Option<RowDeltas> {
        let mut s = Scanner::new(bytes);
        let (mut index, mut name, mut lens) = (None, None, None);
        let pieces_key: &[u8] = match kind {
            ChunkKind::ToolCall => b"args",
            _ => b"texts",
        };
        s.object(|s, key| match key {
            b"index" => once(&mut index, s.unsigned()?),
            b"name" => once(&mut name, s.string_len()?),
            k if k == pieces_key => {
                let mut v = Vec::new();
                s.array(|s| {
                    v.push(s.string_len()?);
                    Some(())
                })?;
                once(&mut lens, v)
            }
            _ => s.skip(),
        })?;
        Some(RowDeltas {
            kind: delta_kind_of(kind),
            index: index?,
            name_len: name.filter(|&n| n > 0),
            lens: lens?,
        })
    }

    fn decode(kind: ChunkKind, bytes: &[u8]) -> Option<RowDeltas> {
        let text = std::str::from_utf8(bytes).ok()?;
        let data = PackedData::parse(kind, text).ok()?;
        Some(RowDeltas {
            kind: delta_kind_of(kind),
            index: data.index(),
            name_len: data.name().map(super::utf16::utf16_len).filter(|&n| n > 0),
            lens: (0..data.member_count())
                .map(|k| data.piece(k).map_or(0, super::utf16::utf16_len))
                .collect(),
        })
    }

    /// The delta kind and block index of packed row `row`, read from the start of the row
    /// (the long text arrays after the index are not scanned).
    pub fn head(log: &EventLog, row: u32) -> Option<(DeltaKind, u64)> {
        let kind = log.packed_rows.get(row as usize)?.kind;
        let bytes = log.packed_row_bytes(row)?;
        let mut index = None;
        let mut s = Scanner::new(&bytes);
        // The walk stops (fails) as soon as the index is read.
        let _ = s.object(|s, key| match key {
            b"index" => {
                index = s.unsigned();
                None
            }
            _ => s.skip(),
        });
        match index {
            Some(i) => Some((delta_kind_of(kind), i)),
            None => Self::read(log, row).map(|d| (d.kind, d.index)),
        }
    }

    /// The UTF-16 length of member `member`'s delta and the row's non-empty tool name.
    pub fn member(&self, member: usize) -> (usize, Option<usize>) {
        (
            self.lens.get(member).copied().unwrap_or(0),
            match self.kind {
                DeltaKind::ToolCall => self.name_len,
                _ => None,
            },
        )
    }

    /// The summed UTF-16 length of the deltas of `members` and the row's non-empty tool name.
    pub fn members(&self, members: std::ops::Range<usize>) -> (usize, Option<usize>) {
        // Members past the row's own count have no delta (as in `member`).
        let end = members.end.min(self.lens.len());
        let sum = self
            .lens
            .get(members.start.min(end)..end)
            .map_or(0, |l| l.iter().sum());
        (sum, self.member(usize::MAX).1)
    }

    /// The piece member `member` contributes.
    pub fn piece(&self, member: usize) -> Piece {
        Piece::Delta {
            index: self.index,
            kind: self.kind,
            len: self.lens.get(member).copied().unwrap_or(0),
            name_len: match self.kind {
                DeltaKind::ToolCall => self.name_len,
                _ => None,
            },
        }
    }
}

fn delta_kind_of(kind: ChunkKind) -> DeltaKind {
    match kind {
        ChunkKind::Text => DeltaKind::Text,
        ChunkKind::Reasoning => DeltaKind::Reasoning,
        ChunkKind::ToolCall => DeltaKind::ToolCall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(type_name: &str, json: &str) -> Option<u64> {
        price_of(type_name, &scan_message(json.as_bytes())?)
    }

    #[test]
    fn the_usual_shapes_take_the_fast_path() {
        let head_assistant = r#"{"type":"assistant/message","seq":9,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"reasoning","text":"abcd"},{"type":"tool-call","id":"c","name":"bash","arguments":"{\"a\":1}"}],"id":"a"},"usage":{"inputTokens":20,"outputTokens":4}},"sourceEventSeqs":[3],"surfaceOp":"append"}"#;
        let f = scan_message(head_assistant.as_bytes()).unwrap();
        assert_eq!(
            price_of("assistant/message", &f),
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

    #[test]
    fn chunks_take_the_fast_path() {
        let delta = r#"{"type":"assistant/chunk","seq":9,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c","name":"bash","argumentsDelta":"{\"a\""}}}"#;
        assert_eq!(
            fast_piece(delta.as_bytes(), &[]),
            Some(Piece::Delta {
                index: 0,
                kind: DeltaKind::ToolCall,
                len: 4,
                name_len: Some(4)
            })
        );
        let end = r#"{"type":"assistant/chunk","seq":9,"data":{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"text","text":"hello"}}}}"#;
        assert_eq!(
            fast_piece(end.as_bytes(), &[]),
            Some(Piece::End {
                index: 1,
                price: 2 + 4,
                tool_call: false
            })
        );
        let finish = r#"{"type":"assistant/chunk","seq":9,"data":{"chunk":{"type":"finish","reason":{"kind":"max-tokens"}}}}"#;
        assert_eq!(
            fast_piece(finish.as_bytes(), &[]),
            Some(Piece::Finish { max_tokens: true })
        );
    }

    #[test]
    fn packed_rows_scan_like_the_decoder() {
        let row = r#"{"turn":1,"step":1,"index":2,"id":"c","name":"bash","dt":[0,1],"args":["{","\"a😀","}"]}"#.as_bytes();
        let scanned = RowDeltas::scan(ChunkKind::ToolCall, row).unwrap();
        assert_eq!(
            scanned,
            RowDeltas::decode(ChunkKind::ToolCall, row).unwrap()
        );
        assert_eq!(scanned.lens, vec![1, 4, 1]);
        assert_eq!(
            scanned.piece(1),
            Piece::Delta {
                index: 2,
                kind: DeltaKind::ToolCall,
                len: 4,
                name_len: Some(4)
            }
        );
    }
}
