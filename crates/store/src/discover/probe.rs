//! The cheap look at one file: its format from the first bytes, then the session header and,
//! from the first and last [`WINDOW`] bytes only (of a Zstandard file: the first [`WINDOW`]
//! decoded bytes, and the last ones of its last frame, which streams through a buffer of a few
//! windows and is given up once it decodes past one event's limit), the latest title and the
//! last event time.
//! Whether the log packs its chunk rows is read from the same bytes.
//! A JSONL file is a session when its first line is a session header; a Zstandard file when
//! its first decoded line is one (or when it does not decode: a damaged session file is
//! reported, not hidden); SQLite files go to [`super::sqlite`].

use std::io::{Read, Seek, SeekFrom};
use surface_engine::EventType;

use memchr::memmem;
use serde_json::Value;

use super::entry::{Probe, SessionEntry, project_of};
use super::walk::Candidate;
use crate::jsonl::parse_header;
use crate::{Format, ReadLimits, refuse_non_regular};
use surface_engine::SessionHeader;

/// Bytes read from each end of a file (decoded bytes for Zstandard).
pub const WINDOW: usize = 64 << 10;
/// Zstandard files up to this size are read whole to decode their last frame (the last event
/// time and title); frames are found by structure, so only the first and last are decoded.
pub const ZSTD_TAIL_LIMIT: u64 = 16 << 20;

/// Probes one file, decoding no more than `limits` allow.
pub fn probe(c: &Candidate, limits: &ReadLimits) -> Probe {
    let path = &c.path;
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Probe::Skipped(format!("cannot read {}: {e}; skipped", path.display())),
    };
    // The walk saw a regular file; make sure the one opened still is.
    if let Ok(m) = file.metadata()
        && refuse_non_regular(path, &m).is_err()
    {
        return Probe::NotASession;
    }
    let head = match read_up_to(&mut file, WINDOW) {
        Ok(h) => h,
        Err(e) => return Probe::Skipped(format!("cannot read {}: {e}; skipped", path.display())),
    };
    match Format::detect(&head) {
        Format::Sqlite => super::sqlite::probe(c, limits),
        Format::Zstd => probe_zstd(c, head, file, limits),
        Format::Jsonl => probe_jsonl(c, &mut file, head),
    }
}

fn read_up_to(reader: &mut impl Read, limit: usize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(limit.min(1 << 16));
    reader.take(limit as u64).read_to_end(&mut out)?;
    Ok(out)
}

fn probe_jsonl(c: &Candidate, file: &mut std::fs::File, head: Vec<u8>) -> Probe {
    let first_end = memchr::memchr(b'\n', &head).map_or(head.len(), |i| i + 1);
    let Some(header) = parse_header(&head[..first_end]).0 else {
        return Probe::NotASession;
    };
    let mut entry = entry_for(c, Format::Jsonl, header);
    let whole = head.len() as u64 >= c.size;
    let tail = if whole {
        None
    } else {
        read_tail(file, c.size).ok()
    };
    entry.title = last_title(&head[first_end..]);
    let tail_text = tail.as_deref().unwrap_or(&head[first_end..]);
    entry.packed = holds_packed_rows(&head[first_end..]) || holds_packed_rows(tail_text);
    if let Some(t) = last_title(tail_text) {
        entry.title = Some(t);
    }
    entry.last_event = last_event_time(tail_text);
    Probe::Sessions(vec![entry])
}

/// The last [`WINDOW`] bytes of the file, from the first line start inside them.
fn read_tail(file: &mut std::fs::File, size: u64) -> std::io::Result<Vec<u8>> {
    let start = size.saturating_sub(WINDOW as u64);
    file.seek(SeekFrom::Start(start))?;
    let bytes = read_up_to(file, WINDOW)?;
    let from = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
    Ok(bytes[from..].to_vec())
}

fn probe_zstd(c: &Candidate, head: Vec<u8>, mut file: std::fs::File, limits: &ReadLimits) -> Probe {
    // Small enough: the whole file, for its last frame too.
    let whole = if c.size <= ZSTD_TAIL_LIMIT {
        let mut all = head;
        match file.read_to_end(&mut all) {
            Ok(_) => Some(all),
            Err(e) => {
                return Probe::Unreadable(format!("cannot read: {e}"));
            }
        }
    } else {
        let _ = file.seek(SeekFrom::Start(0));
        None
    };
    let mut text = Vec::new();
    let decoded = match &whole {
        Some(all) => zstd::stream::read::Decoder::new(&all[..])
            .and_then(|d| d.take(WINDOW as u64).read_to_end(&mut text)),
        None => zstd::stream::read::Decoder::new(&mut file)
            .and_then(|d| d.take(WINDOW as u64).read_to_end(&mut text)),
    };
    let first_end = memchr::memchr(b'\n', &text).map_or(text.len(), |i| i + 1);
    match parse_header(&text[..first_end]).0 {
        Some(header) => {
            let mut entry = entry_for(c, Format::Zstd, header);
            entry.title = last_title(&text[first_end..]);
            entry.packed = holds_packed_rows(&text[first_end..]);
            // The last lines of the last frame are all the listing needs: a last frame that
            // decodes past one event's limit (a bomb, or one giant line) is not looked into.
            let look = limits.with_total_bytes(limits.total_bytes().min(limits.event_bytes()));
            if let Some(tail) = whole
                .as_deref()
                .and_then(|all| crate::zstd_jsonl::last_frame_text(all, WINDOW, &look))
            {
                if let Some(t) = last_title(&tail) {
                    entry.title = Some(t);
                }
                entry.packed |= holds_packed_rows(&tail);
                entry.last_event = last_event_time(&tail);
            }
            Probe::Sessions(vec![entry])
        }
        None => match decoded {
            // Decodes, but is not a session log: some other compressed file.
            Ok(_) if !text.is_empty() => Probe::NotASession,
            Ok(_) => Probe::Unreadable(
                "Zstandard file whose first frame holds no session header".to_string(),
            ),
            Err(e) => Probe::Unreadable(format!(
                "Zstandard file whose session header cannot be decoded: {e}"
            )),
        },
    }
}

/// Whether `text` (whole lines of a log) holds a packed chunk row: a line that starts with
/// the type of one (`{"type":"text-chunks"`, `reasoning-chunks`, `tool-call-chunks`).
fn holds_packed_rows(text: &[u8]) -> bool {
    const ROWS: [&[u8]; 3] = [
        br#"{"type":"text-chunks""#,
        br#"{"type":"reasoning-chunks""#,
        br#"{"type":"tool-call-chunks""#,
    ];
    ROWS.iter()
        .any(|row| memmem::find_iter(text, row).any(|at| at == 0 || text[at - 1] == b'\n'))
}

fn entry_for(c: &Candidate, format: Format, h: SessionHeader) -> SessionEntry {
    SessionEntry {
        file: c.path.clone(),
        format,
        packed: false,
        size: c.size,
        modified: c.modified,
        project: project_of(h.cwd.as_deref(), &c.path),
        id: h.id,
        in_database: false,
        cwd: h.cwd,
        title: None,
        created: h.created_at,
        last_event: None,
        parent: h.parent_session,
        seed_length: h.seed_length,
        origin: h.origin,
        events: None,
    }
}

/// The title of the last complete `session/title` line in `text`.
pub fn last_title(text: &[u8]) -> Option<String> {
    let finder = memmem::Finder::new(b"\"session/title\"");
    let mut title = None;
    for at in finder.find_iter(text) {
        let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
        let Some(len) = memchr::memchr(b'\n', &text[at..]) else {
            break; // an incomplete last line
        };
        let line = &text[start..at + len];
        if let Ok(v) = serde_json::from_slice::<Value>(line)
            && v.get("type").and_then(Value::as_str) == EventType::SessionTitle.name()
            && let Some(t) = v.pointer("/data/title").and_then(Value::as_str)
        {
            title = Some(t.to_string());
        }
    }
    title
}

/// The time of the last event line in `text` that has one (a packed row's last member time
/// counts), looking at the last few lines only.
pub fn last_event_time(text: &[u8]) -> Option<i64> {
    let mut end = text.len();
    for _ in 0..16 {
        if end == 0 {
            return None;
        }
        let start = memchr::memrchr(b'\n', &text[..end - 1]).map_or(0, |i| i + 1);
        let line = text[start..end].trim_ascii();
        end = start;
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if let Some(t) = v.get("time").and_then(Value::as_i64) {
            return Some(t);
        }
        if let Some(t0) = v.get("time0").and_then(Value::as_i64) {
            let dt: i64 = v
                .pointer("/data/dt")
                .and_then(Value::as_array)
                .map_or(0, |a| a.iter().filter_map(Value::as_i64).sum());
            return Some(t0.saturating_add(dt));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_are_found_at_a_line_start_only() {
        let packed =
            b"{\"type\":\"turn/start\",\"seq\":0}\n{\"type\":\"text-chunks\",\"seq0\":1}\n";
        assert!(holds_packed_rows(packed));
        assert!(holds_packed_rows(
            br#"{"type":"tool-call-chunks","seq0":1}"#
        ));
        // The text inside a message is no row.
        let quoted = br#"{"type":"user/message","data":{"text":"{"type":"text-chunks"}"}}"#;
        assert!(!holds_packed_rows(quoted));
        assert!(!holds_packed_rows(b"{\"type\":\"assistant/chunk\"}\n"));
    }

    /// A Zstandard session: the header frame, then a last frame of `filler` blank lines and
    /// one event at time 77.
    fn zstd_session(dir: &std::path::Path, filler: usize) -> Candidate {
        let header = "{\"type\":\"session\",\"version\":0,\"id\":\"z\",\"createdAt\":1}\n";
        let mut bytes = zstd::bulk::compress(header.as_bytes(), 3).unwrap();
        let mut last = "\n".repeat(filler);
        last.push_str("{\"type\":\"turn/end\",\"seq\":0,\"time\":77,\"data\":{}}\n");
        bytes.extend(zstd::bulk::compress(last.as_bytes(), 3).unwrap());
        let path = dir.join(format!("s{filler}.jsonl.zstd"));
        std::fs::write(&path, &bytes).unwrap();
        Candidate {
            path,
            size: bytes.len() as u64,
            modified: None,
        }
    }

    #[test]
    fn the_listing_looks_into_a_last_frame_only_within_one_events_limit() {
        let dir = tempfile::tempdir().unwrap();
        let limits = ReadLimits::default().with_event_bytes(1 << 20);
        let last_event = |c: &Candidate| match probe(c, &limits) {
            Probe::Sessions(list) => list[0].last_event,
            other => panic!("{other:?}"),
        };
        assert_eq!(last_event(&zstd_session(dir.path(), 1000)), Some(77));
        // The same session whose last frame decodes past 1 MiB: listed, its end not read.
        assert_eq!(last_event(&zstd_session(dir.path(), 2 << 20)), None);
    }

    #[test]
    fn titles_take_the_last_complete_line() {
        let text = br#"{"type":"session/title","seq":1,"time":5,"data":{"title":"first"}}
{"type":"user/message","seq":2,"time":6,"data":{"content":[]}}
{"type":"session/title","seq":3,"time":7,"data":{"title":"second"}}
{"type":"session/title","seq":4,"time":8,"data":{"title":"torn"#;
        assert_eq!(last_title(text).as_deref(), Some("second"));
        assert_eq!(last_title(b"nothing here\n"), None);
    }

    #[test]
    fn last_time_skips_a_torn_tail_and_reads_packed_rows() {
        let text = b"{\"type\":\"turn/end\",\"seq\":9,\"time\":1234,\"data\":{}}\n{\"type\":\"tu";
        assert_eq!(last_event_time(text), Some(1234));
        let packed =
            b"{\"type\":\"text-chunks\",\"seq0\":3,\"time0\":100,\"data\":{\"dt\":[1,2,3]}}\n";
        assert_eq!(last_event_time(packed), Some(106));
        assert_eq!(last_event_time(b""), None);
    }
}
