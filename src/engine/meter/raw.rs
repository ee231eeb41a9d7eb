//! Pricing straight from an event's JSON text, in one borrowed parse without building a JSON
//! tree: the node price of a surface event (with an `assistant/message`'s usage) and the piece
//! a stream chunk contributes. Shapes the fast path does not know — an unknown block type, an
//! era's wrapper messages, a field with an unexpected JSON type, a duplicate key — fall back to
//! the tree-based reference ([`super::price`], [`super::anchor::piece_of_chunk`]), so the fast
//! path answers only where it gives the reference's answer (the tests hold the two equal).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::anchor::{DeltaKind, Piece, Usage, piece_of_chunk};
use super::price::{OVERHEAD, message_price};
use super::utf16::{ceil4, utf16_len_of_literal};
use crate::engine::{EventIdx, EventLog, message_of};

// --- Messages --------------------------------------------------------------------------

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
    #[serde(borrow)]
    message: Option<Inner<'a>>,
    #[serde(borrow)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Inner<'a> {
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<Vec<Block<'a>>>,
}

/// The price of a block of a known type with fields of their JSON types; `None` otherwise.
fn fast_block(b: &Block<'_>) -> Option<u64> {
    let len = |raw: Option<&RawValue>| utf16_len_of_literal(raw?.get());
    let price = match b.kind.as_deref()? {
        "text" | "reasoning" => ceil4(len(b.text)?),
        "tool-call" => ceil4(len(b.name)?) + ceil4(len(b.arguments)?),
        "tool-result" => fast_blocks(b.content.as_deref()?)?,
        _ => return None,
    };
    Some(price + OVERHEAD)
}

fn fast_blocks(blocks: &[Block<'_>]) -> Option<u64> {
    blocks.iter().map(fast_block).sum()
}

/// What one pass over a message event's text yields.
struct Facts<'a> {
    /// The node price, when the fast path knows the shape.
    price: Option<u64>,
    /// `data.usage` as written.
    usage: Option<&'a RawValue>,
}

fn facts<'a>(type_name: &str, json: &'a str) -> Option<Facts<'a>> {
    let data = serde_json::from_str::<Event<'a>>(json).ok()?.data?;
    let inner = data.message.as_ref().and_then(|m| m.content.as_deref());
    let price = match type_name {
        "user/message" => data
            .content
            .as_deref()
            .and_then(|c| Some(OVERHEAD + fast_blocks(c)?)),
        "assistant/message" => match (&data.message, inner, data.content.as_deref()) {
            (Some(_), Some(content), _) | (None, _, Some(content)) => {
                if content.is_empty() {
                    Some(0)
                } else {
                    fast_blocks(content).map(|p| OVERHEAD + p)
                }
            }
            _ => None,
        },
        "tool/result" => match (&data.message, inner, data.content.as_deref()) {
            (Some(_), Some(content), _) => fast_blocks(content).map(|p| OVERHEAD + p),
            // The era without identified messages: one tool-result block around the content.
            (None, _, Some(content)) => fast_blocks(content).map(|p| OVERHEAD + p + OVERHEAD),
            _ => None,
        },
        _ => None,
    };
    Some(Facts {
        price,
        usage: data.usage,
    })
}

/// The price of an event's derived message (0 when it yields none, e.g. an empty
/// `assistant/message`).
pub fn node_price(log: &EventLog, idx: EventIdx) -> u64 {
    node_price_and_usage(log, idx).0
}

/// [`node_price`], and the event's readable `data.usage`, from one parse of its text.
pub fn node_price_and_usage(log: &EventLog, idx: EventIdx) -> (u64, Option<Usage>) {
    let json = log.event_json(idx);
    let Some(found) = facts(log.type_name(idx), &json) else {
        return (node_price_reference(log, idx), usage_of(log, idx));
    };
    let usage = found
        .usage
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|v| Usage::from_value(&v).ok());
    let price = found
        .price
        .unwrap_or_else(|| node_price_reference(log, idx));
    (price, usage)
}

/// [`node_price`] through the derived [`crate::engine::Message`] as a JSON tree: the
/// reference the fast path is tested against.
pub fn node_price_reference(log: &EventLog, idx: EventIdx) -> u64 {
    message_of(log, idx).map_or(0, |m| message_price(&m))
}

/// The readable `data.usage` of an event (`None` when absent or malformed).
pub fn usage_of(log: &EventLog, idx: EventIdx) -> Option<Usage> {
    usage_field(log, idx)?.ok()
}

// --- Request context and usage --------------------------------------------------------

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow)]
    data: Option<FieldsData<'a>>,
}

#[derive(Deserialize)]
struct FieldsData<'a> {
    #[serde(rename = "contextWindow", borrow)]
    context_window: Option<&'a RawValue>,
    #[serde(borrow)]
    usage: Option<&'a RawValue>,
}

/// One field of an event's `data`, parsed on its own (`None` when absent or null; the whole
/// `data` as a tree when the borrowed parse fails, e.g. on a duplicate key).
fn data_field(
    log: &EventLog,
    idx: EventIdx,
    pick: for<'a> fn(&FieldsData<'a>) -> Option<&'a RawValue>,
    key: &str,
) -> Option<Value> {
    let json = log.event_json(idx);
    match serde_json::from_str::<Fields<'_>>(&json) {
        Ok(f) => f
            .data
            .as_ref()
            .and_then(pick)
            .and_then(|raw| serde_json::from_str(raw.get()).ok()),
        Err(_) => log.data_value(idx).get(key).cloned(),
    }
    .filter(|v: &Value| !v.is_null())
}

/// The `contextWindow` of a `request/context`: `Ok(None)` when absent, `Err` when it is not a
/// positive integer.
pub fn context_window_of(log: &EventLog, idx: EventIdx) -> Result<Option<u64>, ()> {
    let window = data_field(log, idx, |d| d.context_window, "contextWindow");
    super::findings::context_window(window.as_ref())
}

/// The `data.usage` of an event as written and read: `None` when absent, `Err` with the reason
/// when it is not token counts.
pub fn usage_field(log: &EventLog, idx: EventIdx) -> Option<Result<Usage, String>> {
    data_field(log, idx, |d| d.usage, "usage").map(|u| Usage::from_value(&u))
}

// --- Stream chunks ---------------------------------------------------------------------

#[derive(Deserialize)]
struct ChunkEvent<'a> {
    #[serde(borrow)]
    data: ChunkData<'a>,
}

#[derive(Deserialize)]
struct ChunkData<'a> {
    #[serde(borrow)]
    chunk: Chunk<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    index: Option<u64>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments_delta: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    block_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    block: Option<&'a RawValue>,
    #[serde(borrow)]
    reason: Option<Reason<'a>>,
}

#[derive(Deserialize)]
struct Reason<'a> {
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
}

fn fast_piece(json: &str) -> Option<Piece> {
    let chunk = serde_json::from_str::<ChunkEvent<'_>>(json)
        .ok()?
        .data
        .chunk;
    let len = |raw: Option<&RawValue>| utf16_len_of_literal(raw?.get());
    let piece = match (chunk.kind.as_ref(), chunk.index) {
        ("block-start", Some(index)) => Piece::Start {
            index,
            kind: match chunk.block_type.as_deref()? {
                "text" => Some(DeltaKind::Text),
                "reasoning" => Some(DeltaKind::Reasoning),
                "tool-call" => Some(DeltaKind::ToolCall),
                _ => None,
            },
        },
        ("block-end", Some(index)) => {
            let raw = chunk.block?;
            let block: Block<'_> = serde_json::from_str(raw.get()).ok()?;
            let price = fast_block(&block)?;
            Piece::End {
                index,
                price,
                tool_call: block.kind.as_deref() == Some("tool-call"),
            }
        }
        ("text-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::Text,
            len: len(chunk.text)?,
            name_len: None,
        },
        ("reasoning-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::Reasoning,
            len: len(chunk.text)?,
            name_len: None,
        },
        ("tool-call-delta", Some(index)) => Piece::Delta {
            index,
            kind: DeltaKind::ToolCall,
            len: len(chunk.arguments_delta)?,
            name_len: match chunk.name {
                None => None,
                Some(raw) => Some(utf16_len_of_literal(raw.get())?).filter(|&n| n > 0),
            },
        },
        ("finish", _) => Piece::Finish {
            max_tokens: chunk.reason?.kind.as_deref() == Some("max-tokens"),
        },
        ("usage", _) => Piece::Other,
        _ => return None,
    };
    Some(piece)
}

/// The piece an `assistant/chunk` event read from its own line contributes.
pub fn chunk_piece(log: &EventLog, idx: EventIdx) -> Piece {
    let json = log.event_json(idx);
    fast_piece(&json).unwrap_or_else(|| chunk_piece_reference(log, idx))
}

/// [`chunk_piece`] through the event as a JSON tree: the reference.
pub fn chunk_piece_reference(log: &EventLog, idx: EventIdx) -> Piece {
    log.data_value(idx)
        .get("chunk")
        .map_or(Piece::Other, piece_of_chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_shapes_take_the_fast_path() {
        let head_assistant = r#"{"type":"assistant/message","seq":9,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"reasoning","text":"abcd"},{"type":"tool-call","id":"c","name":"bash","arguments":"{\"a\":1}"}],"id":"a"},"usage":{"inputTokens":20,"outputTokens":4}},"sourceEventSeqs":[3],"surfaceOp":"append"}"#;
        let f = facts("assistant/message", head_assistant).unwrap();
        assert_eq!(f.price, Some(4 + (1 + 4) + (1 + 2 + 4)));
        assert_eq!(
            f.usage.map(RawValue::get),
            Some(r#"{"inputTokens":20,"outputTokens":4}"#)
        );
        let flat_result = r#"{"type":"tool/result","seq":5,"data":{"callId":"c","content":[{"type":"text","text":"x\u00e9"}],"isError":false}}"#;
        assert_eq!(
            facts("tool/result", flat_result).unwrap().price,
            Some(4 + (1 + 4) + 4)
        );
        let user = r#"{"type":"user/message","seq":4,"data":{"content":[],"role":"user"}}"#;
        assert_eq!(facts("user/message", user).unwrap().price, Some(4));
    }

    #[test]
    fn unusual_shapes_fall_back() {
        let image =
            r#"{"type":"user/message","seq":4,"data":{"content":[{"type":"image","url":"u"}]}}"#;
        assert_eq!(facts("user/message", image).unwrap().price, None);
        let wrapped = r#"{"type":"context/message","seq":4,"data":{"content":[]}}"#;
        assert_eq!(facts("context/message", wrapped).unwrap().price, None);
        let duplicate = r#"{"type":"user/message","seq":4,"data":{"content":[],"content":[]}}"#;
        assert!(facts("user/message", duplicate).is_none());
    }

    #[test]
    fn chunks_take_the_fast_path() {
        let delta = r#"{"type":"assistant/chunk","seq":9,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c","name":"bash","argumentsDelta":"{\"a\""}}}"#;
        assert_eq!(
            fast_piece(delta),
            Some(Piece::Delta {
                index: 0,
                kind: DeltaKind::ToolCall,
                len: 4,
                name_len: Some(4)
            })
        );
        let end = r#"{"type":"assistant/chunk","seq":9,"data":{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"text","text":"hello"}}}}"#;
        assert_eq!(
            fast_piece(end),
            Some(Piece::End {
                index: 1,
                price: 2 + 4,
                tool_call: false
            })
        );
    }
}
