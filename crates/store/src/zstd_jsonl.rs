//! Zstandard-compressed JSONL (`session.jsonl.zstd`, docs/parity.md): concatenated
//! frames, walked by their structure and decoded one at a time, so that a bad frame costs
//! only itself.
//!
//! Decisions (docs/check.md):
//! - The decoded text of every good frame is concatenated and read by [`read_jsonl`]; line
//!   numbers in findings count lines of that **decompressed** text.
//! - A complete frame that does not decode (bad data or checksum) is a
//!   [`ProblemKind::CorruptFrame`] with its byte offset. Its output is dropped (the checksum
//!   cannot vouch for it) and the frames after it are still read: each frame is an
//!   independent batch of lines. If the text before the dropped frame ends mid-line, a line
//!   break is inserted so that the fragment and the next frame's first line stay separate
//!   (each then is a bad line of its own).
//! - Bytes that are not a frame are skipped up to the next frame magic and reported once as a
//!   corrupt frame at their offset.
//! - A structurally incomplete final frame is decoded as far as its complete blocks go; the
//!   partial last line is then a torn tail by the normal JSONL rules, with the frame's offset
//!   attached. When the cut falls on a line boundary, a torn-tail problem for the lost rest
//!   of the frame is recorded instead.
//! - Skippable frames (`0x184D2A5?`) are ignored.

use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer, ResetDirective, get_error_name};

use super::jsonl::read_jsonl_with;
use super::limits::{ReadLimits, ReadStop};
use super::progress::LoadProgress;
use super::zstd_sink::{Output, Sink, Tail, saturating_u32};
use surface_engine::{EventLog, LogProblem, ProblemKind};

/// Little-endian bytes of the frame magic `0xFD2FB528`.
const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Skippable frame magics are `0x184D2A50..=0x184D2A5F`.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// A frame's declared content size is believed up to this many times its compressed size.
const MAX_RATIO: u64 = 64;
/// At most this much output space is reserved up front (never a frame's declared size: a
/// header may declare anything).
const MAX_RESERVE: u64 = 256 << 20;

/// What the structure at one offset of the file is.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    /// A structurally complete frame of `len` bytes, with its declared content size.
    Frame {
        len: usize,
        content_size: Option<u64>,
    },
    /// A skippable frame of `len` bytes.
    Skippable { len: usize },
    /// A frame (or its magic) that runs past the end of the file.
    Truncated,
    /// `len` bytes that are not a frame; `why` says what is wrong.
    Junk { len: usize, why: &'static str },
}

/// Decodes the frames and reads the JSONL inside, holding the text to `limits`: a line past
/// the per-event limit is dropped as it streams by (a `line.too-long` problem; an empty line
/// keeps its place, so later line numbers stay true), and decoding stops with
/// [`ReadStop::TooLarge`] once more than the total limit was decoded.
pub fn read_zstd_jsonl(
    bytes: &[u8],
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Result<EventLog, ReadStop> {
    let pieces = scan(bytes);
    // Declared content sizes are only a hint (a corrupt header may declare anything).
    let estimate = pieces.iter().fold(0u64, |sum, (_, p)| match p {
        Piece::Frame { len, content_size } => {
            let cap = *len as u64 * MAX_RATIO;
            sum.saturating_add(content_size.map_or(*len as u64 * 5, |c| c.min(cap)))
        }
        _ => sum,
    });
    if let Some(p) = progress {
        p.set_total((bytes.len() as u64).saturating_add(estimate));
    }
    let reserve = estimate.min(MAX_RESERVE).min(limits.total_bytes());
    let mut sink = Sink::new(limits, Some(limits.event_len()));
    sink.text.reserve(usize::try_from(reserve).unwrap_or(0));
    let mut problems = Vec::new();
    let mut torn_frame = None;
    let mut dctx = DCtx::try_create();
    for (offset, piece) in pieces {
        let frame_bytes = &bytes[offset..];
        match piece {
            Piece::Skippable { .. } => {}
            Piece::Junk { len, why } => {
                sink.end_line();
                problems.push(corrupt(
                    offset,
                    format!(
                        "{len} bytes at byte offset {offset} are not a Zstandard frame ({why}); skipped{}",
                        lost_at(&sink.text)
                    ),
                ));
            }
            Piece::Frame { len, .. } => {
                let before = sink.mark();
                match decode(dctx.as_mut(), &frame_bytes[..len], &mut sink, progress) {
                    Decoded::Complete => {}
                    Decoded::Stopped(stop) => return Err(stop),
                    outcome => {
                        sink.restore(before);
                        sink.end_line();
                        let why = match outcome {
                            Decoded::Failed(e) => e,
                            _ => "the frame ends before its data does".to_string(),
                        };
                        problems.push(corrupt(
                            offset,
                            format!(
                                "Zstandard frame at byte offset {offset} ({len} bytes) does not decode: {why}; its lines are skipped{}",
                                lost_at(&sink.text)
                            ),
                        ));
                    }
                }
            }
            Piece::Truncated => {
                let error = match decode(dctx.as_mut(), frame_bytes, &mut sink, progress) {
                    Decoded::Stopped(stop) => return Err(stop),
                    Decoded::Failed(e) => Some(e),
                    Decoded::Complete | Decoded::Incomplete => None,
                };
                torn_frame = Some((offset, frame_bytes.len(), error));
            }
        }
        if let Some(p) = progress {
            p.advance(match piece {
                Piece::Frame { len, .. } | Piece::Skippable { len } | Piece::Junk { len, .. } => {
                    len as u64
                }
                Piece::Truncated => (bytes.len() - offset) as u64,
            });
            if p.is_cancelled() {
                return Err(ReadStop::Cancelled);
            }
        }
    }
    let (text, too_long) = sink.finish();
    if let Some(p) = progress {
        p.set_total(bytes.len() as u64 + text.len() as u64);
    }
    let last_line = saturating_u32(memchr::memchr_iter(b'\n', &text).count() as u64 + 1);
    let mut log = read_jsonl_with(text, progress, limits).ok_or(ReadStop::Cancelled)?;
    if let Some((offset, len, error)) = torn_frame {
        note_torn_frame(&mut log, last_line, offset as u64, len, error);
    }
    log.problems.extend(too_long);
    log.problems.extend(problems);
    Ok(log)
}

/// Decodes the structurally complete frames at the start of `bytes` (a file suffix that starts
/// at a frame boundary) and stops before an incomplete final frame, which a live writer may
/// still be finishing. Returns the decoded text, the number of bytes consumed, and the problems
/// met, with offsets counted from `base` (the suffix's offset in the file); or
/// [`ReadStop::TooLarge`] once more than `budget` bytes were decoded. Used by live follow (the
/// lines are held to the per-event limit when they are parsed).
pub fn decode_complete_frames(
    bytes: &[u8],
    base: u64,
    budget: u64,
) -> Result<(Vec<u8>, usize, Vec<LogProblem>), ReadStop> {
    let limits = ReadLimits::default().with_total_bytes(budget);
    let mut sink = Sink::new(&limits, None);
    let mut problems = Vec::new();
    let mut dctx = DCtx::try_create();
    let mut at = 0;
    while at < bytes.len() {
        let offset = base as usize + at;
        match scan_piece(&bytes[at..]) {
            Piece::Truncated => break,
            Piece::Skippable { len } => at += len,
            Piece::Junk { len, why } => {
                problems.push(corrupt(
                    offset,
                    format!("{len} bytes at byte offset {offset} are not a Zstandard frame ({why}); skipped"),
                ));
                at += len;
            }
            Piece::Frame { len, .. } => {
                let before = sink.mark();
                match decode(dctx.as_mut(), &bytes[at..at + len], &mut sink, None) {
                    Decoded::Complete => {}
                    Decoded::Stopped(stop) => return Err(stop),
                    Decoded::Failed(_) | Decoded::Incomplete => {
                        sink.restore(before);
                        sink.end_line();
                        problems.push(corrupt(
                            offset,
                            format!("Zstandard frame at byte offset {offset} ({len} bytes) does not decode; its lines are skipped"),
                        ));
                    }
                }
                at += len;
            }
        }
    }
    Ok((sink.finish().0, at, problems))
}

/// The last `keep` bytes of the decoded text of the last complete frame that decodes: a file's
/// last lines without decompressing the rest (the sessions browser's cheap look at a file).
/// The frame streams through a buffer of at most twice `keep`; a frame that decodes to more
/// than the total limit is given up (`None`), as is a file with no frame that decodes.
pub(super) fn last_frame_text(bytes: &[u8], keep: usize, limits: &ReadLimits) -> Option<Vec<u8>> {
    let mut dctx = DCtx::try_create();
    for (at, piece) in scan(bytes).into_iter().rev() {
        if let Piece::Frame { len, .. } = piece {
            let mut tail = Tail {
                text: Vec::new(),
                keep,
                decoded: 0,
                limit: limits.total_bytes(),
            };
            match decode(dctx.as_mut(), &bytes[at..at + len], &mut tail, None) {
                Decoded::Complete => {
                    let from = tail.text.len().saturating_sub(keep);
                    tail.text.drain(..from);
                    return Some(tail.text);
                }
                Decoded::Stopped(_) => return None,
                Decoded::Failed(_) | Decoded::Incomplete => {}
            }
        }
    }
    None
}

/// Splits the file into frames by structure, without decompressing.
fn scan(bytes: &[u8]) -> Vec<(usize, Piece)> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let piece = scan_piece(&bytes[at..]);
        let next = match &piece {
            Piece::Frame { len, .. } | Piece::Skippable { len } | Piece::Junk { len, .. } => {
                at + len
            }
            Piece::Truncated => bytes.len(),
        };
        pieces.push((at, piece));
        at = next;
    }
    pieces
}

/// The piece at the start of `b` (non-empty).
fn scan_piece(b: &[u8]) -> Piece {
    if b.len() < 4 {
        if MAGIC.starts_with(b) {
            return Piece::Truncated;
        }
        return junk(b, "too short to be a frame");
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC {
        return match b.get(4..8) {
            Some(n) => {
                let size = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
                match size.checked_add(8).filter(|len| *len <= b.len()) {
                    Some(len) => Piece::Skippable { len },
                    None => Piece::Truncated,
                }
            }
            None => Piece::Truncated,
        };
    }
    if b[..4] != MAGIC {
        return junk(b, "no frame magic");
    }
    match frame_len(b) {
        Ok(Some((len, content_size))) => Piece::Frame { len, content_size },
        Ok(None) => Piece::Truncated,
        Err(why) => junk(b, why),
    }
}

/// Junk from the start of `b` up to the next frame magic (or the end).
fn junk(b: &[u8], why: &'static str) -> Piece {
    let len = memchr::memmem::find(b.get(1..).unwrap_or(&[]), &MAGIC).map_or(b.len(), |i| i + 1);
    Piece::Junk { len, why }
}

/// Walks a frame's header, blocks and checksum (RFC 8878 §3.1.1). `Ok(None)` when the frame
/// runs past the end of `b`.
fn frame_len(b: &[u8]) -> Result<Option<(usize, Option<u64>)>, &'static str> {
    let Some(&desc) = b.get(4) else {
        return Ok(None);
    };
    if desc & 0x08 != 0 {
        return Err("reserved bit set in the frame header");
    }
    let single_segment = desc & 0x20 != 0;
    let has_checksum = desc & 0x04 != 0;
    let dict_len = [0, 1, 2, 4][(desc & 3) as usize];
    let fcs_len = match desc >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let fcs_at = 5 + usize::from(!single_segment) + dict_len;
    let mut at = fcs_at + fcs_len;
    let Some(fcs) = b.get(fcs_at..at) else {
        return Ok(None);
    };
    let content_size = match fcs_len {
        0 => None,
        2 => Some(u64::from(u16::from_le_bytes([fcs[0], fcs[1]])) + 256),
        _ => Some(fcs.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x))),
    };
    loop {
        let Some(h) = b.get(at..at + 3) else {
            return Ok(None);
        };
        let header = u32::from(h[0]) | (u32::from(h[1]) << 8) | (u32::from(h[2]) << 16);
        let size = (header >> 3) as usize;
        let body = match (header >> 1) & 3 {
            0 | 2 => size,
            1 => 1,
            _ => return Err("reserved block type"),
        };
        at += 3 + body;
        if header & 1 == 1 {
            break;
        }
    }
    if has_checksum {
        at += 4;
    }
    Ok((at <= b.len()).then_some((at, content_size)))
}

/// How decoding one frame ended.
#[derive(Debug)]
enum Decoded {
    /// The frame decoded completely.
    Complete,
    /// The input ended before the frame did.
    Incomplete,
    /// zstd's error.
    Failed(String),
    /// Cancelled, or past the total limit.
    Stopped(ReadStop),
}

/// Streams `frame` into `out`, a bounded chunk at a time (never sized by what the frame
/// declares).
fn decode(
    dctx: Option<&mut DCtx<'static>>,
    frame: &[u8],
    out: &mut impl Output,
    progress: Option<&LoadProgress>,
) -> Decoded {
    let Some(dctx) = dctx else {
        return Decoded::Failed("cannot allocate a Zstandard decoder".into());
    };
    if let Err(code) = dctx.reset(ResetDirective::SessionOnly) {
        return Decoded::Failed(get_error_name(code).to_string());
    }
    let mut input = InBuffer::around(frame);
    let mut chunk = vec![0u8; out.chunk_len()];
    loop {
        let mut output = OutBuffer::around(chunk.as_mut_slice());
        let result = dctx.decompress_stream(&mut output, &mut input);
        let produced = output.pos();
        if let Err(stop) = out.push(&chunk[..produced]) {
            return Decoded::Stopped(stop);
        }
        match result {
            Err(code) => return Decoded::Failed(get_error_name(code).to_string()),
            Ok(0) => return Decoded::Complete,
            Ok(_) if input.pos >= frame.len() && produced < chunk.len() => {
                return Decoded::Incomplete;
            }
            Ok(_) => {}
        }
        if progress.is_some_and(LoadProgress::is_cancelled) {
            return Decoded::Stopped(ReadStop::Cancelled);
        }
    }
}

/// "(at decompressed line N)" for a gap at the end of `text`.
fn lost_at(text: &[u8]) -> String {
    let line = memchr::memchr_iter(b'\n', text).count() + 1;
    format!(" (the gap is before decompressed line {line})")
}

fn corrupt(offset: usize, message: String) -> LogProblem {
    LogProblem {
        kind: ProblemKind::CorruptFrame,
        line: None,
        seq: None,
        offset: Some(offset as u64),
        bytes: None,
        message,
    }
}

/// Records the incomplete final frame: on the torn last line's problem when there is one,
/// else as a torn-tail problem of its own after the last line.
fn note_torn_frame(
    log: &mut EventLog,
    last_line: u32,
    offset: u64,
    len: usize,
    error: Option<String>,
) {
    let what = match &error {
        Some(e) => format!(
            "the final Zstandard frame at byte offset {offset} is incomplete ({len} bytes) and stops decoding: {e}"
        ),
        None => format!(
            "the final Zstandard frame at byte offset {offset} is incomplete ({len} bytes; a torn write)"
        ),
    };
    let torn_line = log.problems.iter_mut().find(|p| {
        p.kind == ProblemKind::BadRecord && p.line == Some(last_line) && p.offset.is_none()
    });
    match torn_line {
        Some(p) => {
            p.offset = Some(offset);
            p.message = format!("{} ({what})", p.message);
        }
        None => log.problems.push(LogProblem {
            kind: ProblemKind::BadRecord,
            line: Some(last_line),
            seq: None,
            offset: Some(offset),
            bytes: None,
            message: format!(
                "{what}; what it held after decompressed line {} is lost",
                last_line - 1
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Vec<u8> {
        zstd::bulk::compress(text.as_bytes(), 3).unwrap()
    }

    fn read(file: &[u8]) -> EventLog {
        read_zstd_jsonl(file, None, &ReadLimits::default()).unwrap()
    }

    const HEADER: &str = "{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1}\n";
    const A: &str = "{\"type\":\"turn/start\",\"seq\":0,\"time\":1,\"data\":{\"turn\":1}}\n";
    const B: &str = "{\"type\":\"turn/end\",\"seq\":1,\"time\":2,\"data\":{\"turn\":1}}\n";

    #[test]
    fn frames_concatenate_and_skippable_frames_are_ignored() {
        let mut file = frame(HEADER);
        file.extend([0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9]);
        file.extend(frame(A));
        file.extend(frame(B));
        assert!(matches!(scan_piece(&file), Piece::Frame { .. }));
        let log = read(&file);
        assert_eq!(log.len(), 2);
        assert!(log.problems.is_empty(), "{:?}", log.problems);
    }

    #[test]
    fn a_line_split_across_frames_is_joined() {
        let (a1, a2) = A.split_at(10);
        let mut file = frame(HEADER);
        file.extend(frame(a1));
        file.extend(frame(a2));
        let log = read(&file);
        assert_eq!(log.len(), 1);
        assert!(log.problems.is_empty());
    }

    #[test]
    fn junk_between_frames_is_one_corrupt_problem() {
        let mut file = frame(HEADER);
        let junk_at = file.len();
        file.extend(b"garbage!");
        file.extend(frame(A));
        let log = read(&file);
        assert_eq!(log.len(), 1);
        assert_eq!(log.problems.len(), 1);
        assert_eq!(log.problems[0].kind, ProblemKind::CorruptFrame);
        assert_eq!(log.problems[0].offset, Some(junk_at as u64));
    }

    #[test]
    fn truncated_magic_is_a_torn_frame() {
        let mut file = frame(HEADER);
        file.extend(frame(A));
        file.extend(&MAGIC[..2]);
        let log = read(&file);
        assert_eq!(log.len(), 1);
        assert_eq!(log.problems.len(), 1);
        assert_eq!(log.problems[0].kind, ProblemKind::BadRecord);
        assert_eq!(log.problems[0].line, Some(3));
    }

    #[test]
    fn a_corrupt_frame_between_split_lines_leaves_two_fragments() {
        let (b1, b2) = B.split_at(20);
        let mut file = frame(HEADER);
        file.extend(frame(&format!("{A}{b1}")));
        let bad_at = file.len();
        let mut bad = frame(&format!("{b2}{A}"));
        let n = bad.len();
        bad[n - 1] ^= 0xFF;
        file.extend(bad);
        file.extend(frame(b1));
        file.extend(frame(&format!("{b2}{B}")));
        let log = read(&file);
        // A, then the fragment b1 (cut off by the lost frame), then b1+b2 and B.
        assert_eq!(log.len(), 3);
        let kinds: Vec<_> = log
            .problems
            .iter()
            .map(|p| (p.kind, p.line, p.offset))
            .collect();
        assert_eq!(
            kinds,
            [
                (ProblemKind::BadRecord, Some(3), None),
                (ProblemKind::CorruptFrame, None, Some(bad_at as u64)),
            ]
        );
    }

    #[test]
    fn the_last_complete_frame_is_decoded_alone() {
        let limits = ReadLimits::default();
        let last = |bytes: &[u8]| last_frame_text(bytes, 1 << 16, &limits);
        let mut bytes = frame("a\n");
        bytes.extend(frame("b\nc\n"));
        assert_eq!(last(&bytes).as_deref(), Some(&b"b\nc\n"[..]));
        let torn = frame("d\n");
        bytes.extend(&torn[..torn.len() - 3]);
        assert_eq!(last(&bytes).as_deref(), Some(&b"b\nc\n"[..]));
        assert_eq!(last(b"junk"), None);
    }

    #[test]
    fn the_last_frame_keeps_only_its_tail_and_gives_up_past_the_total() {
        let text: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        let bytes = frame(&text);
        let tail = last_frame_text(&bytes, 1000, &ReadLimits::default()).unwrap();
        assert_eq!(tail, text.as_bytes()[text.len() - 1000..]);
        let small = ReadLimits::default().with_total_bytes(text.len() as u64 - 1);
        assert_eq!(last_frame_text(&bytes, 1000, &small), None);
    }

    #[test]
    fn cancel_stops() {
        let p = LoadProgress::default();
        p.cancel();
        assert_eq!(
            read_zstd_jsonl(&frame(HEADER), Some(&p), &ReadLimits::default()).err(),
            Some(ReadStop::Cancelled)
        );
    }

    #[test]
    fn a_long_line_streams_in_bounded_memory_and_the_rest_is_read() {
        // One event line of 64 MiB inside a 16 MiB limit: dropped without ever being held.
        let mut file = frame(HEADER);
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        use std::io::Write as _;
        encoder
            .write_all(b"{\"type\":\"user/message\",\"seq\":0,\"data\":\"")
            .unwrap();
        let block = vec![b'a'; 1 << 20];
        for _ in 0..64 {
            encoder.write_all(&block).unwrap();
        }
        encoder.write_all(b"\"}\n").unwrap();
        encoder.write_all(B.as_bytes()).unwrap();
        file.extend(encoder.finish().unwrap());
        let limits = ReadLimits::default().with_event_bytes(16 << 20);
        let log = read_zstd_jsonl(&file, None, &limits).unwrap();
        assert_eq!(log.len(), 1, "the event after the long line is read");
        let too_long: Vec<_> = log
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::TooLong)
            .collect();
        assert_eq!(too_long.len(), 1, "{:?}", log.problems);
        assert_eq!(too_long[0].line, Some(2));
        assert!(log.text_len() < 1 << 20, "the long line is not kept");
    }

    #[test]
    fn decoding_stops_past_the_total_limit() {
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        use std::io::Write as _;
        let block = vec![b'\n'; 1 << 20];
        for _ in 0..32 {
            encoder.write_all(&block).unwrap();
        }
        let file = encoder.finish().unwrap();
        assert!(file.len() < 64 << 10, "{} bytes", file.len());
        let limits = ReadLimits::default().with_total_bytes(8 << 20);
        assert_eq!(
            read_zstd_jsonl(&file, None, &limits).err(),
            Some(ReadStop::TooLarge { limit: 8 << 20 })
        );
        assert_eq!(
            decode_complete_frames(&file, 0, 8 << 20).err(),
            Some(ReadStop::TooLarge { limit: 8 << 20 })
        );
        assert!(decode_complete_frames(&file, 0, 32 << 20).is_ok());
    }
}
