//! The price of the message a provider streamed (`A`, docs/meter.md): its chunks assembled
//! block by block, in the order each index first appears.

use super::anchor::{DeltaKind, Piece};
use super::blocks::Known;
use super::chunks::{RowDeltas, chunk_piece_with};
use super::price::OVERHEAD;
use super::utf16::ceil4;
use crate::EventType;
use crate::{EventIdx, EventLog, EventText};

/// One block being assembled.
#[derive(Clone, Debug)]
struct Building {
    index: u64,
    /// The first `block-end` of this index: its price and whether it is a tool call.
    ended: Option<(u64, bool)>,
    kind: Option<DeltaKind>,
    len: usize,
    name_len: usize,
    /// Position of the chunk the name came from (the last non-empty name wins).
    name_at: usize,
}

/// Assembles the streamed message block by block, in the order each index first appears.
#[derive(Clone, Debug, Default)]
pub struct Assembler {
    blocks: Vec<Building>,
    max_tokens: bool,
    /// Chunks taken in so far.
    pushed: usize,
}

impl Assembler {
    fn block(&mut self, index: u64) -> &mut Building {
        let at = match self.blocks.iter().position(|b| b.index == index) {
            Some(at) => at,
            None => {
                self.blocks.push(Building {
                    index,
                    ended: None,
                    kind: None,
                    len: 0,
                    name_len: 0,
                    name_at: 0,
                });
                self.blocks.len() - 1
            }
        };
        &mut self.blocks[at]
    }

    /// Takes in the next chunk.
    pub fn push(&mut self, piece: Piece) {
        self.pushed += 1;
        let at = self.pushed;
        match piece {
            Piece::Start { index, kind } => {
                let b = self.block(index);
                b.kind = b.kind.or(kind);
            }
            Piece::Delta {
                index,
                kind,
                len,
                name_len,
            } => {
                let b = self.block(index);
                b.kind = b.kind.or(Some(kind));
                b.len += len;
                if let Some(n) = name_len {
                    b.name_len = n;
                    b.name_at = at;
                }
            }
            Piece::End {
                index,
                price,
                tool_call,
            } => {
                let b = self.block(index);
                b.ended = b.ended.or(Some((price, tool_call)));
            }
            Piece::Finish { max_tokens } => self.max_tokens |= max_tokens,
            Piece::Other => {}
        }
    }

    /// Takes in a chunk that changes nothing but the position: a packed member after another
    /// of its row, whose block exists already and whose length is added later.
    pub fn skip(&mut self) {
        self.pushed += 1;
    }

    /// The position the next [`Assembler::push`] takes.
    pub fn position(&self) -> usize {
        self.pushed + 1
    }

    /// Whether a `block-end` of `index` was taken in.
    pub fn has_end(&self, index: u64) -> bool {
        self.blocks
            .iter()
            .any(|b| b.index == index && b.ended.is_some())
    }

    /// Adds the length (and name) of a delta pushed earlier at position `at` with length 0
    /// (a packed member read once its block is known to need it).
    pub fn add_delta(&mut self, at: usize, index: u64, len: usize, name_len: Option<usize>) {
        let b = self.block(index);
        b.len += len;
        if let Some(n) = name_len
            && at >= b.name_at
        {
            b.name_len = n;
            b.name_at = at;
        }
    }

    /// `A`: `4 + Σ block` over the assembled blocks (tool calls dropped after a `max-tokens`
    /// finish), or 0 when no block results.
    pub fn price(&self) -> u64 {
        let mut any = false;
        let mut sum = 0;
        for b in &self.blocks {
            let (price, tool_call) = match (b.ended, b.kind) {
                (Some(end), _) => end,
                (None, Some(DeltaKind::ToolCall)) => {
                    (ceil4(b.name_len) + ceil4(b.len) + OVERHEAD, true)
                }
                (None, Some(_)) => (ceil4(b.len) + OVERHEAD, false),
                (None, None) => continue,
            };
            if tool_call && self.max_tokens {
                continue;
            }
            any = true;
            sum += price;
        }
        if any { OVERHEAD + sum } else { 0 }
    }
}

/// `A` for an `assistant/message` citing `sources`: its streamed message assembled from the
/// cited `assistant/chunk` events.
pub fn streamed_price(log: &EventLog, sources: &[u64]) -> u64 {
    streamed_price_with(log, sources, &[])
}

/// [`streamed_price`], with the blocks of the message itself: a `block-end` that repeats one
/// of them byte for byte is priced without a scan. A packed row's deltas are read only for a
/// block index that has no `block-end` (the end wins over deltas), once per row.
pub fn streamed_price_with(log: &EventLog, sources: &[u64], known: &[Known<'_>]) -> u64 {
    let chunk_type = log.types.id_of(EventType::AssistantChunk);
    let mut assembler = Assembler::default();
    // Packed members wait until every block-end is known, as runs of consecutive members of
    // one row cited one after the other (what a streamed row is).
    let mut packed: Vec<PackedRun> = Vec::new();
    let mut heads: Option<(u32, Option<(DeltaKind, u64)>)> = None;
    // Cited chunks are usually consecutive events: try the event after the last one first.
    let mut next: Option<usize> = None;
    for &seq in sources {
        let guess = next.filter(|&i| {
            log.events
                .get(i)
                .is_some_and(|e| e.seq == seq && e.takes_part())
        });
        let Some(idx) = guess
            .map(|i| EventIdx(i as u32))
            .or_else(|| log.find_seq(seq))
        else {
            continue;
        };
        next = Some(idx.get() + 1);
        let e = log.event(idx);
        if Some(e.kind) != chunk_type {
            continue;
        }
        match e.text() {
            EventText::PackedMember { row, member } => {
                // The next member of the run pushed just before: the same block, no length
                // yet, so only the position moves.
                if let Some(run) = packed.last_mut()
                    && run.row == row
                    && run.members.end == member
                    && run.last + 1 == assembler.position()
                {
                    run.members.end += 1;
                    run.last += 1;
                    assembler.skip();
                    continue;
                }
                if heads.as_ref().is_none_or(|(r, _)| *r != row) {
                    heads = Some((row, RowDeltas::head(log, row)));
                }
                if let Some((_, Some((kind, index)))) = heads {
                    packed.push(PackedRun {
                        last: assembler.position(),
                        row,
                        members: member..member + 1,
                        index,
                    });
                    assembler.push(Piece::Delta {
                        index,
                        kind,
                        len: 0,
                        name_len: None,
                    });
                }
            }
            _ => assembler.push(chunk_piece_with(log, idx, known)),
        }
    }
    let mut rows: Option<(u32, Option<RowDeltas>)> = None;
    for run in packed {
        if assembler.has_end(run.index) {
            continue;
        }
        if rows.as_ref().is_none_or(|(r, _)| *r != run.row) {
            rows = Some((run.row, RowDeltas::read(log, run.row)));
        }
        if let Some((_, Some(deltas))) = &rows {
            let members = run.members.start as usize..run.members.end as usize;
            let (len, name_len) = deltas.members(members);
            // One delta per member, each with the row's name: the name of the run's last
            // member is the one that counts, and the lengths add up.
            assembler.add_delta(run.last, run.index, len, name_len);
        }
    }
    assembler.price()
}

/// Consecutive members of one packed row, cited one after the other.
struct PackedRun {
    /// The assembler position of the run's last member.
    last: usize,
    row: u32,
    members: std::ops::Range<u32>,
    /// The row's block index.
    index: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meter::anchor::{Usage, piece_of_chunk};
    use serde_json::Value;
    use serde_json::json;

    fn assemble(chunks: &[Value]) -> u64 {
        let mut a = Assembler::default();
        for c in chunks {
            a.push(piece_of_chunk(c));
        }
        a.price()
    }

    #[test]
    fn deltas_are_concatenated_per_index_in_first_appearance_order() {
        let chunks = [
            json!({"type":"block-start","index":1,"blockType":"reasoning"}),
            json!({"type":"reasoning-delta","index":1,"text":"abc"}),
            json!({"type":"text-delta","index":0,"text":"de"}),
            json!({"type":"reasoning-delta","index":1,"text":"fgh"}),
            json!({"type":"text-delta","index":0,"text":"😀"}),
            json!({"type":"usage","usage":{"inputTokens":3}}),
        ];
        // reasoning "abcfgh": 2 + 4; text "de😀" (4 units): 1 + 4; message: 4.
        assert_eq!(assemble(&chunks), 15);
    }

    #[test]
    fn the_first_block_end_wins_over_deltas() {
        let chunks = [
            json!({"type":"text-delta","index":0,"text":"x"}),
            json!({"type":"block-end","index":0,"block":{"type":"text","text":"123456789"}}),
            json!({"type":"block-end","index":0,"block":{"type":"text","text":"1"}}),
        ];
        assert_eq!(assemble(&chunks), 4 + 3 + 4);
    }

    #[test]
    fn tool_calls_from_deltas_use_the_last_non_empty_name() {
        let chunks = [
            json!({"type":"tool-call-delta","index":0,"id":"c","name":"read_file","argumentsDelta":"{\"pa"}),
            json!({"type":"tool-call-delta","index":0,"id":"c","name":"","argumentsDelta":"th\":1}"}),
            json!({"type":"tool-call-delta","index":0,"id":"c","name":"bash","argumentsDelta":""}),
        ];
        // name "bash": 1; arguments {"path":1} (10 units): 3; block 4; message 4.
        assert_eq!(assemble(&chunks), 12);
    }

    #[test]
    fn max_tokens_drops_tool_calls() {
        let mut chunks = vec![
            json!({"type":"text-delta","index":0,"text":"abcd"}),
            json!({"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"bash","arguments":"{}"}}),
        ];
        assert_eq!(assemble(&chunks), 4 + 5 + 6);
        chunks.push(json!({"type":"finish","reason":{"kind":"max-tokens"}}));
        assert_eq!(assemble(&chunks), 4 + 5);
        // Only a tool call, dropped: no block results.
        assert_eq!(assemble(&chunks[1..]), 0);
    }

    #[test]
    fn usage_fields() {
        let u = Usage::from_value(
            &json!({"inputTokens":10,"outputTokens":2,"cacheReadTokens":5,"reasoningTokens":7}),
        )
        .unwrap();
        assert_eq!((u.total(), u.prompt()), (17, 15));
        assert!(
            Usage::from_value(&json!({"inputTokens":"10"}))
                .unwrap_err()
                .contains("inputTokens")
        );
        assert!(Usage::from_value(&json!({"outputTokens":-1})).is_err());
        assert!(Usage::from_value(&json!(3)).is_err());
        assert_eq!(
            Usage::from_value(&json!({"inputTokens":4.0}))
                .unwrap()
                .input,
            4
        );
    }
}
