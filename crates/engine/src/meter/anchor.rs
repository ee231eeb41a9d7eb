//! The values the usage anchor (docs/meter.md) is built from: the provider's reported usage
//! `P` of an `assistant/message`, where the baseline comes from, and the piece each
//! `assistant/chunk` contributes to the streamed message (assembled in [`super::stream`]).

use serde_json::Value;

pub use crate::delta_kind::DeltaKind;

use super::price::block_price;
use super::utf16::utf16_len;

/// Where the meter's baseline comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BaselineKind {
    /// Nothing to measure yet: no header and an empty surface.
    #[default]
    None,
    /// The meter's own heuristic.
    Estimated,
    /// The provider's reported usage.
    Usage,
}

impl BaselineKind {
    /// `"none"`, `"estimated"` or `"usage"`.
    pub fn as_str(self) -> &'static str {
        match self {
            BaselineKind::None => "none",
            BaselineKind::Estimated => "estimated",
            BaselineKind::Usage => "usage",
        }
    }
}

/// A provider's reported token usage (`TokenUsage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// `inputTokens`.
    pub input: u64,
    /// `cacheReadTokens`.
    pub cache_read: u64,
    /// `cacheWriteTokens`.
    pub cache_write: u64,
    /// `outputTokens`.
    pub output: u64,
}

/// The usage fields the meter adds, with their JSON names.
const USAGE_FIELDS: [&str; 4] = [
    "inputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "outputTokens",
];

impl Usage {
    /// Reads a `usage` object. Missing fields are 0; `Err` names the first field that is not
    /// a non-negative integer (or says the usage is not an object).
    pub fn from_value(v: &Value) -> Result<Usage, String> {
        let Some(map) = v.as_object() else {
            return Err("usage is not an object".into());
        };
        let mut out = [0u64; 4];
        for (slot, key) in out.iter_mut().zip(USAGE_FIELDS) {
            match map.get(key) {
                None | Some(Value::Null) => {}
                Some(n) => {
                    *slot = token_count(n)
                        .ok_or_else(|| format!("usage.{key} is not a non-negative integer"))?
                }
            }
        }
        let [input, cache_read, cache_write, output] = out;
        Ok(Usage {
            input,
            cache_read,
            cache_write,
            output,
        })
    }

    /// `P`: input + cache read + cache write + output (reasoning tokens are not added).
    pub fn total(&self) -> u64 {
        self.prompt() + self.output
    }

    /// The prompt side: input + cache read + cache write.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }
}

/// A token count: a non-negative integer (`12` or `12.0`).
fn token_count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        let f = v.as_f64()?;
        (f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
    })
}

// --- Stream assembly -------------------------------------------------------------------

/// What one stream chunk contributes to the assembled message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// `block-start` of a block type.
    Start {
        /// Block index.
        index: u64,
        /// The block type, when it is one the assembler builds from deltas.
        kind: Option<DeltaKind>,
    },
    /// A text, reasoning or tool-call delta.
    Delta {
        /// Block index.
        index: u64,
        /// Which delta.
        kind: DeltaKind,
        /// UTF-16 length of `text` (text, reasoning) or `argumentsDelta` (tool call).
        len: usize,
        /// UTF-16 length of a non-empty `name` of a tool-call delta.
        name_len: Option<usize>,
    },
    /// `block-end` with the finished block.
    End {
        /// Block index.
        index: u64,
        /// The block's price.
        price: u64,
        /// Whether the block is a `tool-call`.
        tool_call: bool,
    },
    /// `finish`; `max_tokens` when its reason is `max-tokens`.
    Finish {
        /// The reason's kind is `max-tokens`.
        max_tokens: bool,
    },
    /// Anything else (usage, unknown chunks, events that are not chunks).
    Other,
}

/// The piece a stream chunk (`data.chunk` of an `assistant/chunk`) contributes.
pub fn piece_of_chunk(chunk: &Value) -> Piece {
    let Some(kind) = chunk.get("type").and_then(Value::as_str) else {
        return Piece::Other;
    };
    let index = chunk.get("index").and_then(Value::as_u64);
    let str_len = |key: &str| chunk.get(key).and_then(Value::as_str).map(utf16_len);
    match (kind, index) {
        ("block-start", Some(index)) => Piece::Start {
            index,
            kind: chunk
                .get("blockType")
                .and_then(Value::as_str)
                .and_then(DeltaKind::of_block_type),
        },
        ("block-end", Some(index)) => match chunk.get("block") {
            Some(block) => Piece::End {
                index,
                price: block_price(block),
                tool_call: block.get("type").and_then(Value::as_str) == Some("tool-call"),
            },
            None => Piece::Other,
        },
        ("finish", _) => Piece::Finish {
            max_tokens: chunk.pointer("/reason/kind").and_then(Value::as_str) == Some("max-tokens"),
        },
        (delta, Some(index)) => match DeltaKind::of_delta_type(delta) {
            Some(DeltaKind::ToolCall) => Piece::Delta {
                index,
                kind: DeltaKind::ToolCall,
                len: str_len("argumentsDelta").unwrap_or(0),
                name_len: str_len("name").filter(|&n| n > 0),
            },
            Some(kind) => Piece::Delta {
                index,
                kind,
                len: str_len("text").unwrap_or(0),
                name_len: None,
            },
            None => Piece::Other,
        },
        _ => Piece::Other,
    }
}
