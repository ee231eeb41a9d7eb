//! Expanding one packed chunk row (JSONL line or SQLite row) into its member
//! `assistant/chunk` events, shared by the JSONL and SQLite readers.

use surface_engine::EventType;
use surface_engine::{
    ChunkKind, EventBatch, EventText, NewEvent, PackedData, PackedRow, SurfaceOp,
};

/// Where a packed row's `data` object sits and what the row says about its first member.
pub struct PackedInput<'a> {
    /// The storage tag (`text-chunks`, ...), for messages.
    pub row_type: &'a str,
    /// The delta kind of that tag.
    pub kind: ChunkKind,
    /// The `data` object's JSON text; it must be the arena bytes at `data_start`.
    pub data_json: &'a str,
    /// Byte offset of `data_json` in the log's text arena.
    pub data_start: u64,
    /// `seq0` (JSONL) or the row's `seq` (SQLite).
    pub seq0: u64,
    /// `time0` (JSONL) or the row's `time` (SQLite).
    pub time0: i64,
    /// 1-based line of the row (JSONL), or 0 (SQLite).
    pub line: u32,
}

/// Validates the row strictly and pushes one member event per element. Returns the member
/// count, or the sentence describing a malformed row (nothing is pushed then).
pub fn push_packed_members(
    batch: &mut EventBatch,
    input: &PackedInput<'_>,
) -> Result<usize, String> {
    let decoded = PackedData::parse(input.kind, input.data_json)
        .map_err(|msg| format!("malformed {}: {msg}", input.row_type))?;
    let times = decoded.member_times(input.time0)?;
    push_members(batch, input, times.len(), times.into_iter())
}

/// Pushes the row and its `count` members with their `times`, unless their seqs overflow.
fn push_members(
    batch: &mut EventBatch,
    input: &PackedInput<'_>,
    count: usize,
    times: impl Iterator<Item = i64>,
) -> Result<usize, String> {
    if input.seq0.checked_add(count as u64).is_none() {
        return Err(format!(
            "malformed {}: member seqs overflow",
            input.row_type
        ));
    }
    let row = batch.push_packed_row(PackedRow {
        kind: input.kind,
        start: input.data_start,
        len: input.data_json.len() as u32,
    });
    for (k, time) in times.enumerate() {
        batch.push(NewEvent {
            seq: input.seq0 + k as u64,
            time: Some(time),
            type_name: EventType::AssistantChunk.spelled(),
            op: SurfaceOp::None,
            sources: None,
            line: input.line,
            text: EventText::PackedMember {
                row,
                member: k as u32,
            },
            plain: false,
        });
    }
    Ok(count)
}

/// The member count of a packed row's `data`, or `None` when the row is malformed.
pub fn packed_member_count(kind: ChunkKind, data_json: &str) -> Option<usize> {
    PackedData::parse(kind, data_json)
        .ok()
        .map(|d| d.member_count())
}
