//! Stream chunks and packed chunk rows read from their JSON bytes in one forward scan: the
//! piece an `assistant/chunk` contributes and the delta lengths of a packed row.

use super::anchor::{DeltaKind, Piece, piece_of_chunk};
use super::blocks::{CHUNK_HEAD, ENVELOPE_HEAD, Known, block_or_known, string_or_skip};
use super::chunk_line::chunk_line;
use super::scan::{Scanner, once};
use crate::{ChunkKind, EventIdx, EventLog, EventText, PackedData};

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
pub(super) fn fast_piece(bytes: &[u8], known: &[Known<'_>]) -> Option<Piece> {
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

/// The piece of a chunk's scanned facts, by the rules of [`piece_of_chunk`].
fn piece_from(c: ChunkFacts<'_>) -> Option<Piece> {
    let len = |f: Option<Option<usize>>| f.flatten().unwrap_or(0);
    Some(match (c.kind?, c.index) {
        (b"block-start", Some(index)) => Piece::Start {
            index,
            kind: c.block_type.flatten().and_then(DeltaKind::of_block_name),
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
/// A chunk line written as the harness writes it is read from its literals first
/// ([`super::chunk_line`]).
pub fn chunk_piece_with(log: &EventLog, idx: EventIdx, known: &[Known<'_>]) -> Piece {
    // A line the store did not vouch for as plain (a number with an exponent, a lone
    // surrogate escape, deep nesting) may be one a `Value` parse refuses, where the reference
    // reads no chunk at all: it is read as the reference reads it.
    let e = log.event(idx);
    if !e.is_plain() && matches!(e.text(), EventText::Line { .. }) {
        return chunk_piece_reference(log, idx);
    }
    // The harness's layout is read straight from the arena, even a mapped file's: the literal
    // reader is a plain-byte reader (bounds-checked, no UTF-8 or other property assumed of
    // what it read, its digits tested as they are summed), so bytes rewritten under it give a
    // wrong figure or `None`, never a panic — as a copy taken mid-write would.
    if matches!(e.text(), EventText::Line { .. })
        && let Some(piece) = chunk_line(log.line_text(idx), known)
    {
        return piece;
    }
    // The scan validates what it reads: a line that may change under it is copied first
    // (`with_event_bytes`).
    log.with_event_bytes(idx, |bytes| fast_piece(bytes, known))
        .unwrap_or_else(|| chunk_piece_reference(log, idx))
}

/// [`chunk_piece`] where one scan of the chunk event gives it; `None` where the fast path gives
/// up (and [`chunk_piece`] asks the reference). For tests, as [`super::node_price_fast`].
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

/// How much of a packed row [`RowDeltas::head`] reads: the harness writes `turn`, `step` and
/// `index` before the member arrays, well inside this.
const ROW_HEAD_BYTES: usize = 256;

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
    /// (only its first [`ROW_HEAD_BYTES`] bytes are read, or copied out of a mapped file; a row
    /// whose index lies further in is read whole).
    pub fn head(log: &EventLog, row: u32) -> Option<(DeltaKind, u64)> {
        let kind = log.packed_rows.get(row as usize)?.kind;
        let bytes = log.packed_row_head(row, ROW_HEAD_BYTES)?;
        let mut index = None;
        let mut s = Scanner::new(&bytes);
        // The walk stops (fails) as soon as the index is read. A number that runs into the
        // end of the bytes read may be cut short, so it counts only with a byte after it.
        let _ = s.object(|s, key| match key {
            b"index" => {
                index = s.unsigned();
                if s.peek().is_none() {
                    index = None;
                }
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
