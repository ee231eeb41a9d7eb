//! Decoding `events` rows (JSON text, Zstandard BLOB `data`, varint `source_event_seqs`,
//! packed chunk rows) into an [`EventBatch`] and its text arena. Every scalar row becomes one
//! synthesized JSONL-style line in the arena; a bad row becomes a problem with its seq and
//! the other rows still load (docs/check.md).

use std::borrow::Cow;
use std::io::Read as _;

use rusqlite::types::ValueRef;
use serde_json::value::RawValue;

use super::envelope::{parse_sources, parse_surface_op};
use super::limits::ReadLimits;
use super::packed_rows::{PackedInput, push_packed_members};
use super::varint::decode_seq_list;
use surface_engine::{
    ChunkKind, EventBatch, EventText, LogProblem, NewEvent, ProblemKind, SurfaceOp,
};

/// The columns of one `events` row, in `SELECT` order (missing columns read as NULL).
pub struct RawRow<'a> {
    /// `seq`.
    pub seq: ValueRef<'a>,
    /// `type`.
    pub type_name: ValueRef<'a>,
    /// `time`.
    pub time: ValueRef<'a>,
    /// `data`: JSON TEXT, or a Zstandard BLOB of it (schema 17).
    pub data: ValueRef<'a>,
    /// `source_event_seqs`: JSON TEXT, or a varint BLOB (schema 17).
    pub sources: ValueRef<'a>,
    /// `surface_op`: JSON TEXT.
    pub op: ValueRef<'a>,
    /// `ignorable`: NULL, 1, or 0 for a packed row (schemas 15, 17).
    pub ignorable: ValueRef<'a>,
}

/// Accumulates rows into a text arena and a batch, holding each row to the per-event limit
/// (a longer one is a `line.too-long` problem with its seq) and the arena to the total.
pub struct RowReader {
    /// Offset of `arena` in the log's text (non-zero when rows are appended to a loaded log).
    base: u64,
    /// The per-event limit, in bytes.
    max_event: usize,
    /// The most bytes `base` plus the arena may hold.
    max_total: u64,
    /// The greatest `seq` column value read, bad rows included (live follow resumes after it).
    pub max_row_seq: Option<u64>,
    arena: Vec<u8>,
    batch: EventBatch,
    scratch: Vec<u64>,
}

impl RowReader {
    /// A reader whose arena will be appended to a log text of `base` bytes, held to `limits`.
    pub fn new(base: u64, limits: &ReadLimits) -> Self {
        RowReader {
            base,
            max_event: limits.event_len(),
            max_total: limits.total_bytes(),
            max_row_seq: None,
            arena: Vec::new(),
            batch: EventBatch::default(),
            scratch: Vec::new(),
        }
    }

    /// True once the text read passes the total limit (the caller stops reading).
    pub fn too_large(&self) -> bool {
        self.base.saturating_add(self.arena.len() as u64) > self.max_total
    }

    /// The total limit, in bytes.
    pub fn max_total(&self) -> u64 {
        self.max_total
    }

    /// The arena and the batch read so far.
    pub fn finish(self) -> (Vec<u8>, EventBatch) {
        (self.arena, self.batch)
    }

    /// Reads one row: pushes its event(s), or a problem.
    pub fn row(&mut self, row: &RawRow<'_>) {
        let seq = match row.seq {
            ValueRef::Integer(s) if s >= 0 => s as u64,
            other => {
                return self.batch.problems.push(LogProblem {
                    kind: ProblemKind::BadRecord,
                    line: None,
                    seq: None,
                    offset: None,
                    bytes: None,
                    message: format!(
                        "a row has seq {} (not a non-negative integer); skipped",
                        describe(other)
                    ),
                });
            }
        };
        self.max_row_seq = Some(self.max_row_seq.map_or(seq, |m| m.max(seq)));
        match self.event_row(seq, row) {
            Ok(()) => {}
            Err(RowFail::Bad(msg)) => self.batch.problems.push(LogProblem::bad_row(seq, msg)),
            Err(RowFail::TooLong(len)) => {
                self.batch
                    .problems
                    .push(LogProblem::too_long_row(seq, len, self.max_event as u64))
            }
        }
    }

    fn event_row(&mut self, seq: u64, row: &RawRow<'_>) -> Result<(), RowFail> {
        let ValueRef::Text(type_bytes) = row.type_name else {
            return Err(format!("row type is {}, not text", describe(row.type_name)).into());
        };
        let type_name = std::str::from_utf8(type_bytes)
            .map_err(|_| "row type is not valid UTF-8".to_string())?;
        let time = match row.time {
            ValueRef::Integer(t) => Some(t),
            _ => None,
        };
        let ignorable = match row.ignorable {
            ValueRef::Null => None,
            ValueRef::Integer(i @ (0 | 1)) => Some(i == 1),
            other => {
                return Err(RowFail::Bad(format!(
                    "ignorable is {} (expected NULL, 0 or 1)",
                    describe(other)
                )));
            }
        };
        let data = data_text(row.data, self.max_event)?;
        if ignorable == Some(false) {
            return Ok(self.packed_row(seq, type_name, time, &data, row)?);
        }
        let data = json(&data, "data")?;
        let op_text = optional_json(row.op, "surface_op")?;
        let op = op_text.map_or(SurfaceOp::None, |t| parse_surface_op(t.get()));
        let (sources_text, has_sources) = self.sources(seq, row.sources)?;
        let start = self.arena.len();
        write_line(
            &mut self.arena,
            &Line {
                type_name,
                seq,
                time,
                data,
                sources: sources_text.as_deref(),
                op: op_text,
                ignorable: ignorable == Some(true),
            },
        );
        let written = self.arena.len() - start;
        if written > self.max_event {
            self.arena.truncate(start);
            return Err(RowFail::TooLong(Some(written as u64)));
        }
        // Within the per-event limit, which is at most `u32::MAX`.
        let len = u32::try_from(written).unwrap_or(u32::MAX);
        self.batch.push(NewEvent {
            seq,
            time,
            type_name,
            op,
            sources: has_sources.then_some(self.scratch.as_slice()),
            line: 0,
            text: EventText::Line {
                start: self.base + start as u64,
                len,
            },
            plain: false,
        });
        Ok(())
    }

    /// Decodes `source_event_seqs` into `scratch`. Returns the JSON text to write into the
    /// line (if any) and whether the event has a list. A JSON list of non-seqs is kept as
    /// written with a provenance problem, as in JSONL; a bad BLOB fails the row.
    fn sources(&mut self, seq: u64, value: ValueRef<'_>) -> Result<(Option<String>, bool), String> {
        self.scratch.clear();
        let text = match value {
            ValueRef::Null => return Ok((None, false)),
            ValueRef::Blob(blob) => {
                decode_seq_list(blob, &mut self.scratch)?;
                let list = serde_json::to_string(&self.scratch).map_err(|e| e.to_string())?;
                return Ok((Some(list), true));
            }
            other => optional_json(other, "source_event_seqs")?.map(|r| r.get().to_string()),
        };
        let Some(text) = text else {
            return Ok((None, false));
        };
        match parse_sources(&text, &mut self.scratch) {
            Ok(present) => Ok((Some(text), present)),
            Err(msg) => {
                self.batch.problems.push(LogProblem {
                    kind: ProblemKind::BadProvenance,
                    line: None,
                    seq: Some(seq),
                    offset: None,
                    bytes: None,
                    message: msg,
                });
                Ok((Some(text), false))
            }
        }
    }

    fn packed_row(
        &mut self,
        seq: u64,
        type_name: &str,
        time: Option<i64>,
        data: &str,
        row: &RawRow<'_>,
    ) -> Result<(), String> {
        let Some(kind) = ChunkKind::from_row_type(type_name) else {
            return Err(format!(
                "ignorable = 0 marks a packed row, but its type {type_name:?} is not text-chunks, reasoning-chunks or tool-call-chunks"
            ));
        };
        if !matches!(row.sources, ValueRef::Null) || !matches!(row.op, ValueRef::Null) {
            return Err(format!(
                "malformed packed row: {type_name} with source_event_seqs or surface_op (they must be NULL)"
            ));
        }
        let Some(time0) = time else {
            return Err(format!(
                "malformed packed row: {type_name} without an integer time"
            ));
        };
        let start = self.arena.len();
        self.arena.extend_from_slice(data.as_bytes());
        let input = PackedInput {
            row_type: type_name,
            kind,
            data_json: data,
            data_start: self.base + start as u64,
            seq0: seq,
            time0,
            line: 0,
        };
        push_packed_members(&mut self.batch, &input)
            .map(|_| ())
            .inspect_err(|_| {
                self.arena.truncate(start);
            })
    }
}

/// The parts of one synthesized event line.
struct Line<'a> {
    type_name: &'a str,
    seq: u64,
    time: Option<i64>,
    data: &'a RawValue,
    sources: Option<&'a str>,
    op: Option<&'a RawValue>,
    ignorable: bool,
}

/// Appends `{"type":…,"seq":…,"time":…,"data":…[,"sourceEventSeqs":…][,"surfaceOp":…]
/// [,"ignorable":true]}` (the key order upstream's JSONL writer uses).
fn write_line(a: &mut Vec<u8>, line: &Line<'_>) {
    a.extend_from_slice(b"{\"type\":");
    // Serializing a &str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *a, line.type_name);
    a.extend_from_slice(format!(",\"seq\":{}", line.seq).as_bytes());
    if let Some(t) = line.time {
        a.extend_from_slice(format!(",\"time\":{t}").as_bytes());
    }
    a.extend_from_slice(b",\"data\":");
    a.extend_from_slice(line.data.get().as_bytes());
    if let Some(s) = line.sources {
        a.extend_from_slice(b",\"sourceEventSeqs\":");
        a.extend_from_slice(s.as_bytes());
    }
    if let Some(o) = line.op {
        a.extend_from_slice(b",\"surfaceOp\":");
        a.extend_from_slice(o.get().as_bytes());
    }
    if line.ignorable {
        a.extend_from_slice(b",\"ignorable\":true");
    }
    a.push(b'}');
}

/// Why a row was not read.
#[derive(Debug)]
pub enum RowFail {
    /// Malformed, in this sentence.
    Bad(String),
    /// Longer than the per-event limit: this many bytes (`None`: a BLOB, not decompressed
    /// past the limit).
    TooLong(Option<u64>),
}

impl From<String> for RowFail {
    fn from(msg: String) -> Self {
        RowFail::Bad(msg)
    }
}

/// The `data` column as JSON text: TEXT as is, a BLOB decompressed (schema 17) in a stream of
/// at most `max` + 1 bytes (never sized by what the frame declares). Longer than `max` bytes:
/// [`RowFail::TooLong`].
pub fn data_text(value: ValueRef<'_>, max: usize) -> Result<Cow<'_, str>, RowFail> {
    match value {
        ValueRef::Text(t) if t.len() > max => Err(RowFail::TooLong(Some(t.len() as u64))),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .map(Cow::Borrowed)
            .map_err(|_| RowFail::Bad("data is not valid UTF-8".to_string())),
        ValueRef::Blob(b) => decompress(b, max).map(Cow::Owned),
        other => Err(RowFail::Bad(format!(
            "data is {}, not JSON text or a Zstandard BLOB",
            describe(other)
        ))),
    }
}

fn decompress(blob: &[u8], max: usize) -> Result<String, RowFail> {
    if !blob.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        return Err(RowFail::Bad(format!(
            "data is a {}-byte BLOB that is not Zstandard-compressed",
            blob.len()
        )));
    }
    let decoder = zstd::stream::read::Decoder::new(blob)
        .map_err(|e| RowFail::Bad(format!("data BLOB cannot be decompressed: {e}")))?;
    let mut out = Vec::new();
    decoder
        .take(max as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| RowFail::Bad(format!("data BLOB does not decompress: {e}")))?;
    if out.len() > max {
        return Err(RowFail::TooLong(None));
    }
    String::from_utf8(out)
        .map_err(|_| RowFail::Bad("decompressed data is not valid UTF-8".to_string()))
}

/// `text` as one JSON value.
fn json<'t>(text: &'t str, column: &str) -> Result<&'t RawValue, String> {
    serde_json::from_str::<&RawValue>(text).map_err(|e| format!("{column} is not JSON: {e}"))
}

/// A nullable JSON-text column (`NULL` is absent; any other storage class fails the row).
fn optional_json<'v>(value: ValueRef<'v>, column: &str) -> Result<Option<&'v RawValue>, String> {
    match value {
        ValueRef::Null => Ok(None),
        ValueRef::Text(t) => {
            let text =
                std::str::from_utf8(t).map_err(|_| format!("{column} is not valid UTF-8"))?;
            json(text, column).map(Some)
        }
        other => Err(format!("{column} is {}, not JSON text", describe(other))),
    }
}

/// A short description of a value for messages.
fn describe(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => format!("the REAL {f}"),
        ValueRef::Text(t) => format!(
            "the text {:?}",
            String::from_utf8_lossy(&t[..t.len().min(40)])
        ),
        ValueRef::Blob(b) => format!("a {}-byte BLOB", b.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(seq: i64, data: ValueRef<'a>) -> RawRow<'a> {
        RawRow {
            seq: ValueRef::Integer(seq),
            type_name: ValueRef::Text(b"user/message"),
            time: ValueRef::Integer(1),
            data,
            sources: ValueRef::Null,
            op: ValueRef::Null,
            ignorable: ValueRef::Null,
        }
    }

    #[test]
    fn rows_past_the_event_limit_are_skipped_with_their_seq() {
        let limits = ReadLimits::default().with_event_bytes(100);
        let mut reader = RowReader::new(0, &limits);
        let long = format!("\"{}\"", "x".repeat(200));
        let packed = zstd::bulk::compress(long.as_bytes(), 1).unwrap();
        reader.row(&row(0, ValueRef::Text(b"{}")));
        reader.row(&row(1, ValueRef::Text(long.as_bytes())));
        reader.row(&row(2, ValueRef::Blob(&packed)));
        let fits = format!("\"{}\"", "y".repeat(70));
        reader.row(&row(3, ValueRef::Text(fits.as_bytes())));
        reader.row(&row(4, ValueRef::Text(b"{}")));
        let (_, batch) = reader.finish();
        let seqs: Vec<u64> = batch.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [0, 4]);
        let problems: Vec<_> = batch
            .problems
            .iter()
            .map(|p| (p.kind, p.seq, p.message.split(" is ").next().unwrap()))
            .collect();
        assert_eq!(
            problems,
            [
                (ProblemKind::TooLong, Some(1), "row of 202 bytes"),
                (ProblemKind::TooLong, Some(2), "row"),
                (ProblemKind::TooLong, Some(3), "row of 120 bytes"),
            ]
        );
    }

    #[test]
    fn the_reader_says_when_the_text_passes_the_total() {
        let limits = ReadLimits::default().with_total_bytes(500);
        let mut reader = RowReader::new(300, &limits);
        reader.row(&row(0, ValueRef::Text(b"{}")));
        assert!(!reader.too_large());
        for seq in 1..5 {
            reader.row(&row(seq, ValueRef::Text(b"{\"a\":1}")));
        }
        assert!(reader.too_large(), "300 + 5 lines pass 500 bytes");
        assert_eq!(reader.max_total(), 500);
    }
}
