//! JSONL session logs: the header line, event lines and packed chunk rows, read in parallel
//! in chunks on the current rayon pool. Every problem is recorded with its line; nothing is
//! fatal.

use memchr::memchr;
use rayon::prelude::*;
use serde_json::Value;

use super::batch_merge::merge_in_order;
use super::envelope::{
    Envelope, parse_integer, parse_non_negative, parse_sources, parse_surface_op,
};
use super::envelope_scan::scan_envelope;
use super::limits::ReadLimits;
use super::packed_rows::{PackedInput, push_packed_members};
use super::progress::LoadProgress;
use surface_engine::{
    ChunkKind, EventBatch, EventLog, EventText, LogProblem, NewEvent, ProblemKind, SessionHeader,
    SurfaceOp, TextArena,
};

/// Inputs at least this large are parsed in chunks on the pool's threads. Under Miri, some
/// hundred times slower, 16 KiB, so that the chunked path and its merge run there too.
const PARALLEL_THRESHOLD: usize = if cfg!(miri) { 16 << 10 } else { 4 << 20 };

/// How many chunks a large input is cut into, at least: the pool's threads share them, so that
/// all stay busy until near the end. They are joined in file order once all are parsed
/// (`batch_merge.rs`, the records copied on the pool too).
const CHUNKS: usize = 16;

/// Chunks per thread of the pool, when that makes more than [`CHUNKS`].
const CHUNKS_PER_THREAD: usize = 4;

/// Reads a whole JSONL log from its bytes (owned, or a [`TextArena`] over shared bytes such as
/// a mapped file); they become the log's text arena without a copy. Returns `None` only when
/// cancelled. Lines past the default per-event limit are skipped (see [`read_jsonl_with`]).
pub fn read_jsonl(
    bytes: impl Into<TextArena>,
    progress: Option<&LoadProgress>,
) -> Option<EventLog> {
    read_jsonl_with(bytes, progress, &ReadLimits::default())
}

/// [`read_jsonl`] holding every line to `limits`' per-event limit: a longer line is a
/// `line.too-long` problem and is not read (the bytes are already in memory: the total limit
/// is the caller's to check before reading them). A file of more than `u32::MAX` lines gets a
/// `line.count-overflow` problem, and the lines past it all read as line `u32::MAX`.
pub fn read_jsonl_with(
    bytes: impl Into<TextArena>,
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Option<EventLog> {
    let bytes: TextArena = bytes.into();
    let first_len = memchr(b'\n', &bytes).unwrap_or(bytes.len());
    let first_end = (first_len + 1).min(bytes.len());
    // The header line is read from a private copy (bytes that may change under the reader
    // are never validated in place), and only when it is within the per-event limit.
    let (header, header_problems) = if first_len > limits.event_len() {
        let problems = vec![
            LogProblem::too_long_line(1, first_len as u64, limits.event_bytes()),
            header_missing(
                "the first line is longer than the per-event limit; reading the remaining lines as events",
            ),
        ];
        (None, problems)
    } else {
        // A private copy, on purpose: a mapped file may change between the UTF-8 check and
        // the parse.
        let line: Vec<u8> = bytes[..first_end].to_vec();
        parse_header(&line)
    };
    // A first line too long to read is skipped like a header.
    let body_start = if header.is_some() || first_len > limits.event_len() {
        first_end
    } else {
        0
    };
    let first_line = if body_start > 0 { 2 } else { 1 };
    let options = LineOptions {
        copy: bytes.may_change(),
        max_len: limits.event_len(),
    };
    let mut batch = parse_body_with(&bytes, body_start, first_line, progress, options)?;
    let mut problems = header_problems;
    problems.extend(line_count_overflow(&bytes[body_start..], first_line));
    problems.append(&mut batch.problems);
    batch.problems = problems;
    Some(EventLog::new(header, bytes, batch))
}

/// The `line.count-overflow` problem when `body`'s lines, numbered from `first_line`, run past
/// `u32::MAX`. Counted only for a body of at least that many bytes (each line holds one).
fn line_count_overflow(body: &[u8], first_line: u32) -> Option<LogProblem> {
    lines_past(body, first_line, u32::MAX)
}

/// [`line_count_overflow`] with line numbers that end at `last` (tests use small ones).
fn lines_past(body: &[u8], first_line: u32, last: u32) -> Option<LogProblem> {
    let room = u64::from(last.saturating_sub(first_line));
    if (body.len() as u64) <= room {
        return None;
    }
    let breaks = memchr::memchr_iter(b'\n', body).count() as u64;
    let lines = breaks + u64::from(body.last().is_some_and(|&b| b != b'\n'));
    (lines > room + 1).then(|| LogProblem {
        kind: ProblemKind::LineCountOverflow,
        line: Some(last),
        seq: None,
        offset: None,
        bytes: None,
        message: format!(
            "the file has {} lines, more than line numbers count ({last}); the lines past it are read, and what is found there is reported at line {last}",
            lines + u64::from(first_line) - 1,
        ),
    })
}

/// Parses the lines of `bytes[from..]`, numbering them from `first_line` (1-based: 0 reads as
/// 1, so that a caller who has no line number yet gets the first one rather than a panic).
/// Lines past the default per-event limit are skipped with a `line.too-long` problem. `text`
/// offsets in the result refer to `bytes`.
pub fn parse_body(
    bytes: &[u8],
    from: usize,
    first_line: u32,
    progress: Option<&LoadProgress>,
) -> Option<EventBatch> {
    parse_body_within(bytes, from, first_line, progress, &ReadLimits::default())
}

/// [`parse_body`] holding each line to `limits`' per-event limit (live follow).
pub(crate) fn parse_body_within(
    bytes: &[u8],
    from: usize,
    first_line: u32,
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Option<EventBatch> {
    let options = LineOptions {
        copy: false,
        max_len: limits.event_len(),
    };
    parse_body_with(bytes, from, first_line.max(1), progress, options)
}

/// How each line is read.
#[derive(Clone, Copy, Debug)]
struct LineOptions {
    /// Whether each line is copied into a private buffer before it is read: true for bytes
    /// another program may change under the reader (a mapped file), so that what the scanner
    /// validated (UTF-8, where a string ends) is what every later read of the line sees.
    copy: bool,
    /// Lines longer than this are skipped (`line.too-long`), neither copied nor read.
    max_len: usize,
}

/// [`parse_body`] with `options`: a large input in pieces on the current pool.
fn parse_body_with(
    bytes: &[u8],
    from: usize,
    first_line: u32,
    progress: Option<&LoadProgress>,
    options: LineOptions,
) -> Option<EventBatch> {
    if bytes.len().saturating_sub(from) < PARALLEL_THRESHOLD {
        return parse_range(bytes, from, bytes.len(), first_line, progress, options)
            .map(|(b, _)| b);
    }
    let count = CHUNKS.max(CHUNKS_PER_THREAD * rayon::current_num_threads());
    let chunks = chunk_bounds(bytes, from, count);
    // Parsed on the current pool, collected in file order; `None` (cancelled) ends it.
    let parts = chunks
        .par_iter()
        .map(|&(a, b)| parse_range(bytes, a, b, 1, progress, options))
        .collect::<Option<Vec<_>>>()?;
    Some(merge_in_order(parts, first_line))
}

/// `[from, len)` cut into at most `count` ranges of about equal size, each ending after a
/// newline (or at the end).
fn chunk_bounds(bytes: &[u8], from: usize, count: usize) -> Vec<(usize, usize)> {
    let len = bytes.len() - from;
    let mut out = Vec::with_capacity(count);
    let mut at = from;
    for k in 1..=count {
        let want = (from + len * k / count).max(at);
        let end = if k == count {
            bytes.len()
        } else {
            memchr(b'\n', &bytes[want..]).map_or(bytes.len(), |i| want + i + 1)
        };
        if end > at {
            out.push((at, end));
            at = end;
        }
    }
    out
}

/// Parses the lines of `bytes[from..to]`, numbering them from `first_line` (saturating at
/// `u32::MAX`); returns the batch and how many lines it read (as far as `u32` counts).
fn parse_range(
    bytes: &[u8],
    from: usize,
    to: usize,
    first_line: u32,
    progress: Option<&LoadProgress>,
    options: LineOptions,
) -> Option<(EventBatch, u32)> {
    let mut parser = LineParser {
        bytes,
        batch: EventBatch::default(),
        scratch: Vec::new(),
        copy: options.copy.then(Vec::new),
        max_len: options.max_len,
    };
    parser.batch.events.reserve((to - from) / 200);
    let mut at = from;
    let mut line = first_line;
    let mut since_report = 0usize;
    while at < to {
        let end = memchr(b'\n', &bytes[at..to]).map_or(to, |i| at + i);
        parser.line(at, end, line, end < to);
        since_report += end + 1 - at;
        if since_report > (1 << 20) {
            if let Some(p) = progress {
                p.advance(since_report as u64);
                if p.is_cancelled() {
                    return None;
                }
            }
            since_report = 0;
        }
        at = end + 1;
        line = line.saturating_add(1);
    }
    if let Some(p) = progress {
        p.advance(since_report as u64);
    }
    Some((parser.batch, line - first_line))
}

/// Parses the header line. Returns the header, or the problems when the line is not one.
/// `line` must be bytes nobody else can change (the reader hands it a private copy): it is
/// checked as UTF-8 and then parsed.
pub fn parse_header(line: &[u8]) -> (Option<SessionHeader>, Vec<LogProblem>) {
    let text = std::str::from_utf8(line).unwrap_or("").trim();
    let value: Option<Value> = serde_json::from_str(text).ok();
    let Some(obj) = value
        .as_ref()
        .and_then(Value::as_object)
        .filter(|o| o.get("type").and_then(Value::as_str) == Some("session"))
    else {
        let what = if text.is_empty() {
            "the file is empty or its first line is blank"
        } else {
            "the first line is not a {\"type\":\"session\",...} header; reading the remaining lines as events"
        };
        return (None, vec![header_missing(what)]);
    };
    let header = header_from_json(obj);
    let mut problems = Vec::new();
    if !header.version_is_known() {
        problems.push(LogProblem {
            kind: ProblemKind::HeaderVersion,
            line: Some(1),
            seq: None,
            offset: None,
            bytes: None,
            message: format!(
                "header version {} is neither 0 nor 1; reading by structure",
                obj.get("version")
                    .map_or("(missing)".to_string(), Value::to_string)
            ),
        });
    }
    (Some(header), problems)
}

/// The `header.missing` problem of line 1, saying why.
fn header_missing(why: &str) -> LogProblem {
    LogProblem {
        kind: ProblemKind::HeaderMissing,
        line: Some(1),
        seq: None,
        offset: None,
        bytes: None,
        message: why.to_string(),
    }
}

/// A header from the JSON object of a header line.
pub fn header_from_json(obj: &serde_json::Map<String, Value>) -> SessionHeader {
    let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    let i = |k: &str| obj.get(k).and_then(Value::as_i64);
    SessionHeader {
        id: s("id").unwrap_or_default(),
        version: i("version"),
        created_at: i("createdAt"),
        cwd: s("cwd"),
        parent_session: s("parentSession"),
        seed_length: obj.get("seedLength").and_then(Value::as_u64),
        origin: s("origin"),
        delegation_depth: i("delegationDepth"),
        agent_preset: s("agentPreset"),
    }
}

struct LineParser<'b> {
    bytes: &'b [u8],
    batch: EventBatch,
    scratch: Vec<u64>,
    /// The reused buffer each line is copied into before it is read, when the bytes may
    /// change under the reader ([`LineOptions::copy`]); `None` for bytes nobody else can
    /// change.
    copy: Option<Vec<u8>>,
    /// The per-event limit: longer lines are skipped with a problem.
    max_len: usize,
}

impl<'b> LineParser<'b> {
    fn line(&mut self, start: usize, end: usize, line: u32, has_newline: bool) {
        if end - start > self.max_len {
            // Neither copied nor read. Within the limit, a length fits the `u32` it is kept in.
            return self.batch.problems.push(LogProblem::too_long_line(
                line,
                (end - start) as u64,
                self.max_len as u64,
            ));
        }
        let raw = &self.bytes[start..end];
        match self.copy.take() {
            Some(mut copy) => {
                copy.clear();
                copy.extend_from_slice(raw);
                self.read_line(&copy, start, line, has_newline);
                self.copy = Some(copy);
            }
            None => self.read_line(raw, start, line, has_newline),
        }
    }

    /// Reads one line whose bytes are `raw` (the arena's own, or a private copy of them) and
    /// start at `start` in the arena.
    fn read_line(&mut self, raw: &[u8], start: usize, line: u32, has_newline: bool) {
        let mut raw = raw;
        if raw.last() == Some(&b'\r') {
            raw = &raw[..raw.len() - 1];
        }
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(text) = std::str::from_utf8(raw) else {
            return self.bad(line, "line is not valid UTF-8".to_string());
        };
        // The scanner accepts only lines serde_json accepts with the same envelope; whenever
        // it gives up, serde_json decides and words the error (envelope_scan.rs).
        let env = match scan_envelope(text) {
            Some(env) => env,
            None => match Envelope::from_json(text) {
                Ok(env) => env,
                Err(e) => {
                    let what = if has_newline {
                        "line is not a JSON event"
                    } else {
                        "last line is incomplete (no newline) and not a JSON event"
                    };
                    return self.bad(line, format!("{what}: {e}"));
                }
            },
        };
        if let Some(kind) = ChunkKind::from_row_type(&env.type_name) {
            return self.packed(start, raw, &env, kind, line);
        }
        let Some(seq) = env.seq.and_then(parse_non_negative) else {
            return self.bad(
                line,
                format!("{} line has no non-negative integer seq", env.type_name),
            );
        };
        let time = env.time.and_then(parse_integer);
        let op = env.surface_op.map_or(SurfaceOp::None, parse_surface_op);
        let mut has_sources = false;
        if let Some(r) = env.sources {
            match parse_sources(r, &mut self.scratch) {
                Ok(present) => has_sources = present,
                Err(msg) => self.batch.problems.push(LogProblem {
                    kind: ProblemKind::BadProvenance,
                    line: Some(line),
                    seq: Some(seq),
                    offset: None,
                    bytes: None,
                    message: msg,
                }),
            }
        }
        self.batch.push(NewEvent {
            seq,
            time,
            type_name: &env.type_name,
            op,
            sources: has_sources.then_some(self.scratch.as_slice()),
            line,
            text: EventText::Line {
                start: start as u64,
                len: raw.len() as u32,
            },
            plain: env.plain,
        });
    }

    fn packed(
        &mut self,
        line_start: usize,
        raw: &[u8],
        env: &Envelope<'_>,
        kind: ChunkKind,
        line: u32,
    ) {
        let Some(seq0) = env.seq0.and_then(parse_non_negative) else {
            return self.bad(
                line,
                format!(
                    "malformed packed row: {} without a non-negative integer seq0",
                    env.type_name
                ),
            );
        };
        let Some(time0) = env.time0.and_then(parse_integer) else {
            return self.bad(
                line,
                format!(
                    "malformed packed row: {} without an integer time0",
                    env.type_name
                ),
            );
        };
        let Some(data) = env.data else {
            return self.bad(
                line,
                format!("malformed packed row: {} without data", env.type_name),
            );
        };
        if env.seq.is_some() || env.surface_op.is_some() || env.sources.is_some() {
            return self.bad(
                line,
                "malformed packed row: unexpected event keys".to_string(),
            );
        }
        // `data` lies inside `raw`, which starts at `line_start` in the arena.
        let data_start = line_start + (data.as_ptr() as usize - raw.as_ptr() as usize);
        let input = PackedInput {
            row_type: &env.type_name,
            kind,
            data_json: data,
            data_start: data_start as u64,
            seq0,
            time0,
            line,
        };
        if let Err(msg) = push_packed_members(&mut self.batch, &input) {
            self.bad(line, msg);
        }
    }

    fn bad(&mut self, line: u32, message: String) {
        self.batch
            .problems
            .push(LogProblem::bad_line(line, message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::EventIdx;

    /// Owned bytes, no limit.
    const PLAIN: LineOptions = LineOptions {
        copy: false,
        max_len: usize::MAX,
    };

    fn read(s: &str) -> EventLog {
        read_jsonl(s.as_bytes().to_vec(), None).unwrap()
    }

    #[test]
    fn header_events_and_packed_rows() {
        let log = read(concat!(
            "{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1}\n",
            "{\"type\":\"turn/start\",\"seq\":0,\"time\":5,\"data\":{\"turn\":1}}\n",
            "{\"type\":\"text-chunks\",\"seq0\":1,\"time0\":10,\"data\":{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[2,3],\"texts\":[\"a\",\"b\",\"c\"]}}\n",
            "{\"type\":\"user/message\",\"seq\":4,\"time\":5,\"data\":{},\"surfaceOp\":\"append\",\"sourceEventSeqs\":[1]}\n",
        ));
        assert_eq!(log.header.as_ref().unwrap().id, "s");
        assert_eq!(log.len(), 5);
        assert_eq!(log.event(EventIdx(3)).time(), Some(15));
        assert_eq!(log.event(EventIdx(3)).line, 3);
        let member: Value = serde_json::from_str(&log.event_json(EventIdx(2))).unwrap();
        assert_eq!(member["data"]["chunk"]["text"], "b");
        assert_eq!(log.sources(EventIdx(4)), Some(&[1u64][..]));
        assert!(log.problems.is_empty());
    }

    #[test]
    fn bad_lines_are_problems_with_line_numbers() {
        let log = read(concat!(
            "{\"type\":\"turn/start\",\"seq\":0}\n",
            "not json\n",
            "{\"type\":\"x\",\"seq\":1.0}\n",
            "{\"type\":\"turn/end\",\"seq\":1}",
        ));
        assert!(log.header.is_none());
        let kinds: Vec<_> = log.problems.iter().map(|p| (p.kind, p.line)).collect();
        assert_eq!(
            kinds,
            [
                (ProblemKind::HeaderMissing, Some(1)),
                (ProblemKind::BadRecord, Some(2)),
                (ProblemKind::BadRecord, Some(3))
            ]
        );
        assert_eq!(log.len(), 2, "the final line without newline is kept");
    }

    #[test]
    fn a_line_past_the_limit_is_skipped_and_the_rest_is_read() {
        let text = format!(
            "{}\n{}\n{}\n",
            r#"{"type":"session","version":0,"id":"s","createdAt":1}"#,
            format_args!(
                r#"{{"type":"user/message","seq":0,"data":"{}"}}"#,
                "x".repeat(200)
            ),
            r#"{"type":"turn/end","seq":1,"data":{}}"#
        );
        let limits = ReadLimits::default().with_event_bytes(100);
        let log = read_jsonl_with(text.into_bytes(), None, &limits).unwrap();
        assert_eq!(log.header.as_ref().unwrap().id, "s");
        assert_eq!(log.len(), 1, "the line after the long one is read");
        assert_eq!(log.event(EventIdx(0)).line, 3);
        assert_eq!(log.problems.len(), 1);
        let p = &log.problems[0];
        assert_eq!((p.kind, p.line), (ProblemKind::TooLong, Some(2)));
        assert!(p.message.contains("line of 241 bytes"), "{}", p.message);
        assert!(p.message.contains("limit of 100 bytes"), "{}", p.message);
    }

    #[test]
    fn a_header_past_the_limit_is_skipped_once() {
        let text = format!(
            "{{\"type\":\"session\",\"id\":\"{}\"}}\n{{\"type\":\"turn/end\",\"seq\":0}}\n",
            "s".repeat(200)
        );
        let limits = ReadLimits::default().with_event_bytes(100);
        let log = read_jsonl_with(text.into_bytes(), None, &limits).unwrap();
        assert!(log.header.is_none());
        assert_eq!(log.len(), 1);
        assert_eq!(log.event(EventIdx(0)).line, 2);
        let kinds: Vec<_> = log.problems.iter().map(|p| (p.kind, p.line)).collect();
        assert_eq!(
            kinds,
            [
                (ProblemKind::TooLong, Some(1)),
                (ProblemKind::HeaderMissing, Some(1))
            ]
        );
    }

    #[test]
    fn parse_body_reads_line_0_as_line_1() {
        let line = "{\"type\":\"turn/end\",\"seq\":0}\nbroken\n";
        let batch = parse_body(line.as_bytes(), 0, 0, None).unwrap();
        assert_eq!(batch.events[0].line, 1);
        assert_eq!(batch.problems[0].line, Some(2));
        // The chunked path too (it once subtracted 1 from the first line number).
        let mut big = String::new();
        while big.len() < PARALLEL_THRESHOLD + 1000 {
            big.push_str(line);
        }
        let batch = parse_body(big.as_bytes(), 0, 0, None).unwrap();
        assert_eq!(batch.events[0].line, 1);
        assert_eq!(batch.problems[0].line, Some(2));
    }

    #[test]
    fn more_lines_than_numbers_is_one_problem_and_numbers_saturate() {
        assert!(
            lines_past(b"a\nb\nc\n", 1, 3).is_none(),
            "three lines fit in 1..=3"
        );
        assert!(lines_past(b"a\nb\nc", 1, 3).is_none());
        let p = lines_past(b"a\nb\nc\nd", 1, 3).unwrap();
        assert_eq!((p.kind, p.line), (ProblemKind::LineCountOverflow, Some(3)));
        assert!(p.message.contains("has 4 lines"), "{}", p.message);
        assert!(lines_past(b"a\nb\n", 2, 3).is_none());
        assert!(lines_past(b"a\nb\nc\n", 2, 3).is_some());
        assert!(line_count_overflow(&[b'\n'; 1000], 2).is_none());
        // The numbering itself saturates instead of wrapping or panicking.
        let batch =
            parse_body(b"{\"type\":\"a\",\"seq\":0}\nx\ny\n", 0, u32::MAX - 1, None).unwrap();
        assert_eq!(batch.events[0].line, u32::MAX - 1);
        let lines: Vec<_> = batch.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [Some(u32::MAX), Some(u32::MAX)]);
    }

    #[test]
    fn chunked_parse_matches_serial() {
        let mut text = String::new();
        let mut seq = 0u64;
        let mut n = 0u64;
        while text.len() < 2 * PARALLEL_THRESHOLD {
            n += 1;
            // Types first met in different chunks, bad lines, blank lines, provenance,
            // replaces and a torn last line: everything the merge renumbers or remaps.
            let kind = format!("kind/{}", (n * n) % (1 + n / 20_000));
            let line = match n % 101 {
                0 => "{broken".to_string(),
                1 => String::new(),
                2 => format!(
                    r#"{{"type":"context/message","seq":{seq},"sourceEventSeqs":[{},{}],"surfaceOp":{{"op":"replace","start":{},"end":{}}},"data":{{}}}}"#,
                    seq / 2,
                    seq / 3,
                    seq / 3,
                    seq / 2
                ),
                _ => format!(r#"{{"type":"{kind}","seq":{seq},"time":{n},"data":{{"n":{n}}}}}"#),
            };
            text.push_str(&line);
            text.push('\n');
            seq += 1;
        }
        text.push_str(r#"{"type":"torn","seq":"#);
        let bytes = text.as_bytes();
        let chunked = parse_body(bytes, 0, 1, None).unwrap();
        let (serial, lines) = parse_range(bytes, 0, bytes.len(), 1, None, PLAIN).unwrap();
        // About 60 bytes a line: over 100,000 lines (some 400 under Miri).
        assert!(lines as usize > 2 * PARALLEL_THRESHOLD / 80);
        assert_eq!(chunked.events.len(), serial.events.len());
        for (a, b) in chunked.events.iter().zip(&serial.events) {
            let name = |batch: &EventBatch, e: &surface_engine::EventRecord| {
                batch.types.name(e.kind).to_string()
            };
            assert_eq!(
                (a.seq, a.time, a.line, a.op(), a.text(), a.flags()),
                (b.seq, b.time, b.line, b.op(), b.text(), b.flags())
            );
            assert_eq!(name(&chunked, a), name(&serial, b));
            let list = |batch: &EventBatch, e: &surface_engine::EventRecord| {
                let x = batch.extras.get(e.extra() as usize)?;
                let at = x.sources_start as usize;
                let sources = x
                    .has_sources()
                    .then(|| batch.sources[at..at + x.sources_len as usize].to_vec());
                Some((x.start, x.end, sources))
            };
            assert_eq!(list(&chunked, a), list(&serial, b));
        }
        assert_eq!(chunked.problems, serial.problems);
    }

    #[test]
    fn parallel_parse_matches_serial() {
        let mut text =
            String::from("{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1}\n");
        let mut seq = 0;
        while text.len() < PARALLEL_THRESHOLD + 1000 {
            text.push_str(&format!("{{\"type\":\"assistant/chunk\",\"seq\":{seq},\"time\":1,\"data\":{{\"turn\":1}}}}\n"));
            seq += 1;
        }
        text.push_str("garbage\n");
        let log = read(&text);
        assert_eq!(log.len(), seq);
        assert!(
            log.events
                .iter()
                .enumerate()
                .all(|(i, e)| e.seq == i as u64 && e.line == i as u32 + 2)
        );
        assert_eq!(log.problems[0].line, Some(seq as u32 + 2));
    }
}
