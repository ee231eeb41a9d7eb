//! Zstandard-compressed JSONL (`session.jsonl.zstd`, upstream-format §1.6): concatenated
//! frames, walked by their structure and decoded one at a time, so that a bad frame costs
//! only itself.
//!
//! Decisions (viewer-spec §6.15):
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

use super::jsonl::read_jsonl;
use super::progress::LoadProgress;
use surface_engine::{EventLog, LogProblem, ProblemKind};

/// Little-endian bytes of the frame magic `0xFD2FB528`.
const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Skippable frame magics are `0x184D2A50..=0x184D2A5F`.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// Output chunk size for streaming decoding.
const CHUNK: usize = 1 << 17;
/// A frame's declared content size is believed up to this many times its compressed size.
const MAX_RATIO: u64 = 64;
/// At most this much output space is reserved up front.
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

/// Decodes the frames and reads the JSONL inside. Returns `None` only when cancelled.
pub fn read_zstd_jsonl(bytes: &[u8], progress: Option<&LoadProgress>) -> Option<EventLog> {
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
    let mut text = Vec::with_capacity(estimate.min(MAX_RESERVE) as usize);
    let mut problems = Vec::new();
    let mut torn_frame = None;
    let mut dctx = DCtx::try_create();
    for (offset, piece) in pieces {
        let frame_bytes = &bytes[offset..];
        match piece {
            Piece::Skippable { .. } => {}
            Piece::Junk { len, why } => {
                end_line(&mut text);
                problems.push(corrupt(
                    offset,
                    format!(
                        "{len} bytes at byte offset {offset} are not a Zstandard frame ({why}); skipped{}",
                        lost_at(&text)
                    ),
                ));
            }
            Piece::Frame { len, .. } => {
                let before = text.len();
                match decode(dctx.as_mut(), &frame_bytes[..len], &mut text, progress)? {
                    Ok(true) => {}
                    outcome => {
                        text.truncate(before);
                        end_line(&mut text);
                        let why = match outcome {
                            Err(e) => e,
                            _ => "the frame ends before its data does".to_string(),
                        };
                        problems.push(corrupt(
                            offset,
                            format!(
                                "Zstandard frame at byte offset {offset} ({len} bytes) does not decode: {why}; its lines are skipped{}",
                                lost_at(&text)
                            ),
                        ));
                    }
                }
            }
            Piece::Truncated => {
                let outcome = decode(dctx.as_mut(), frame_bytes, &mut text, progress)?;
                torn_frame = Some((offset, frame_bytes.len(), outcome.err()));
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
                return None;
            }
        }
    }
    if let Some(p) = progress {
        p.set_total(bytes.len() as u64 + text.len() as u64);
    }
    let last_line = memchr::memchr_iter(b'\n', &text).count() as u32 + 1;
    let mut log = read_jsonl(text, progress)?;
    if let Some((offset, len, error)) = torn_frame {
        note_torn_frame(&mut log, last_line, offset as u64, len, error);
    }
    log.problems.extend(problems);
    Some(log)
}

/// Decodes the structurally complete frames at the start of `bytes` (a file suffix that starts
/// at a frame boundary) and stops before an incomplete final frame, which a live writer may
/// still be finishing. Returns the decoded text, the number of bytes consumed, and the problems
/// met, with offsets counted from `base` (the suffix's offset in the file). Used by live follow.
pub fn decode_complete_frames(bytes: &[u8], base: u64) -> (Vec<u8>, usize, Vec<LogProblem>) {
    let mut text = Vec::new();
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
                let before = text.len();
                if !matches!(
                    decode(dctx.as_mut(), &bytes[at..at + len], &mut text, None),
                    Some(Ok(true))
                ) {
                    text.truncate(before);
                    end_line(&mut text);
                    problems.push(corrupt(
                        offset,
                        format!("Zstandard frame at byte offset {offset} ({len} bytes) does not decode; its lines are skipped"),
                    ));
                }
                at += len;
            }
        }
    }
    (text, at, problems)
}

/// The decoded text of the last complete frame that decodes: a file's last lines without
/// decompressing the rest (the sessions browser's cheap look at a file).
pub(super) fn last_frame_text(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut dctx = DCtx::try_create();
    for (at, piece) in scan(bytes).into_iter().rev() {
        if let Piece::Frame { len, .. } = piece {
            let mut text = Vec::new();
            let outcome = decode(dctx.as_mut(), &bytes[at..at + len], &mut text, None);
            if matches!(outcome, Some(Ok(true))) {
                return Some(text);
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

/// Streams `frame` into `out`. `Ok(true)`: the frame decoded completely; `Ok(false)`: the
/// input ended first; `Err`: zstd's error. The outer `None` means cancelled.
fn decode(
    dctx: Option<&mut DCtx<'static>>,
    frame: &[u8],
    out: &mut Vec<u8>,
    progress: Option<&LoadProgress>,
) -> Option<Result<bool, String>> {
    let Some(dctx) = dctx else {
        return Some(Err("cannot allocate a Zstandard decoder".into()));
    };
    if let Err(code) = dctx.reset(ResetDirective::SessionOnly) {
        return Some(Err(get_error_name(code).to_string()));
    }
    let mut input = InBuffer::around(frame);
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let mut output = OutBuffer::around(chunk.as_mut_slice());
        let result = dctx.decompress_stream(&mut output, &mut input);
        let produced = output.pos();
        out.extend_from_slice(&chunk[..produced]);
        match result {
            Err(code) => return Some(Err(get_error_name(code).to_string())),
            Ok(0) => return Some(Ok(true)),
            Ok(_) if input.pos >= frame.len() && produced < CHUNK => return Some(Ok(false)),
            Ok(_) => {}
        }
        if progress.is_some_and(LoadProgress::is_cancelled) {
            return None;
        }
    }
}

/// Ends the text with a line break, so that what follows starts a new line.
fn end_line(text: &mut Vec<u8>) {
    if text.last().is_some_and(|b| *b != b'\n') {
        text.push(b'\n');
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
        let log = read_zstd_jsonl(&file, None).unwrap();
        assert_eq!(log.len(), 2);
        assert!(log.problems.is_empty(), "{:?}", log.problems);
    }

    #[test]
    fn a_line_split_across_frames_is_joined() {
        let (a1, a2) = A.split_at(10);
        let mut file = frame(HEADER);
        file.extend(frame(a1));
        file.extend(frame(a2));
        let log = read_zstd_jsonl(&file, None).unwrap();
        assert_eq!(log.len(), 1);
        assert!(log.problems.is_empty());
    }

    #[test]
    fn junk_between_frames_is_one_corrupt_problem() {
        let mut file = frame(HEADER);
        let junk_at = file.len();
        file.extend(b"garbage!");
        file.extend(frame(A));
        let log = read_zstd_jsonl(&file, None).unwrap();
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
        let log = read_zstd_jsonl(&file, None).unwrap();
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
        let log = read_zstd_jsonl(&file, None).unwrap();
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
        let mut bytes = frame("a\n");
        bytes.extend(frame("b\nc\n"));
        assert_eq!(last_frame_text(&bytes).as_deref(), Some(&b"b\nc\n"[..]));
        let torn = frame("d\n");
        bytes.extend(&torn[..torn.len() - 3]);
        assert_eq!(last_frame_text(&bytes).as_deref(), Some(&b"b\nc\n"[..]));
        assert_eq!(last_frame_text(b"junk"), None);
    }

    #[test]
    fn cancel_stops() {
        let p = LoadProgress::default();
        p.cancel();
        assert!(read_zstd_jsonl(&frame(HEADER), Some(&p)).is_none());
    }
}
