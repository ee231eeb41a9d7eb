//! Fuzz target: the SQLite reader (schemas up to 17) over arbitrary databases, then the
//! surface, findings and messages. Must never panic.
//!
//! The first byte picks the shape. Even: the remaining bytes are the whole file, so SQLite's
//! own page parser and the reader's refusals of what is not a session database are exercised.
//! Odd: a well-formed schema-17 database (the harness's newest: `data ANY` as JSON text or a
//! Zstandard BLOB, varint BLOB `source_event_seqs`, packed chunk rows) whose event rows come
//! from the input, so the fuzzer works on the rows, not on SQLite's file format. Each line of
//! the rest is one row: a control byte, then up to three fields split by NUL — the data, the
//! `source_event_seqs` BLOB and the `surface_op` text. The control byte chooses the type (low
//! four bits), whether the data is compressed (0x10), whether a `surface_op` is written (0x20)
//! and a seq step of 0–3 (top two bits: 0 repeats a seq, so duplicates are reached).
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;
use rusqlite::types::Value;
use surface_engine::{Surface, check, derive_messages};
use surface_store::{ReadLimits, list_sqlite_sessions, read_sqlite};

/// Event types a control byte's low four bits choose from: the surface's, the packed chunk
/// rows', the compaction's and one nobody knows.
const TYPES: [&str; 16] = [
    "turn/start",
    "step/start",
    "user/message",
    "assistant/message",
    "tool/result",
    "tool/call",
    "compaction/start",
    "compaction/summary",
    "compaction/prune",
    "compaction/end",
    "assistant/text-chunks",
    "assistant/reasoning-chunks",
    "assistant/text-chunk",
    "turn/end",
    "step/end",
    "fuzz/unknown",
];

/// Schema 17 as the harness writes it (docs/parity.md), one session.
const SCHEMA_17: &str = "CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, \
created_at INTEGER NOT NULL, cwd TEXT, parent_session TEXT, seed_length INTEGER, origin TEXT, \
delegation_depth INTEGER, agent_preset TEXT, incarnation TEXT NOT NULL, revision INTEGER NOT NULL) STRICT; \
CREATE TABLE events (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, \
seq INTEGER NOT NULL, type TEXT NOT NULL, time INTEGER NOT NULL, data ANY NOT NULL, \
source_event_seqs ANY, surface_op TEXT, \
ignorable INTEGER CHECK (ignorable IS NULL OR ignorable IN (0, 1)), PRIMARY KEY (session_id, seq)) STRICT; \
CREATE TABLE persistence_state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), store_id TEXT NOT NULL) STRICT; \
INSERT INTO persistence_state VALUES (1, 'store'); \
INSERT INTO sessions VALUES ('s', 1, 1750000000000, '/w', NULL, NULL, 'user', 0, NULL, 'i', 1); \
PRAGMA user_version = 17; PRAGMA application_id = 1146308688;";

/// Rows read from one input at most: enough for replaces over a real surface, few enough that
/// an input stays fast.
const MAX_ROWS: usize = 256;

/// A file of this process's own (libFuzzer runs inputs one after another in a process).
fn scratch_path() -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("surface-viewer-fuzz-{}.db", std::process::id()))
}

/// One event row from one input line.
fn row_values(line: &[u8], seq: i64) -> Option<[Value; 6]> {
    let (&control, rest) = line.split_first()?;
    let mut fields = rest.splitn(3, |&b| b == 0);
    let data = fields.next().unwrap_or_default();
    let sources = fields.next();
    let op = fields.next();
    let type_name = TYPES[usize::from(control & 0x0F)];
    let data = if control & 0x10 != 0 {
        Value::Blob(zstd::bulk::compress(data, 1).ok()?)
    } else {
        Value::Text(String::from_utf8_lossy(data).into_owned())
    };
    let sources = sources.map_or(Value::Null, |s| Value::Blob(s.to_vec()));
    let op = match op {
        Some(op) if control & 0x20 != 0 => Value::Text(String::from_utf8_lossy(op).into_owned()),
        _ if control & 0x20 != 0 => Value::Text("append".into()),
        _ => Value::Null,
    };
    let ignorable = if type_name.ends_with("-chunks") {
        Value::Integer(0)
    } else {
        Value::Null
    };
    Some([
        Value::Integer(seq),
        Value::Text(type_name.into()),
        data,
        sources,
        op,
        ignorable,
    ])
}

/// Builds the schema-17 database of the input's rows; `None` when SQLite refuses (a seq
/// repeated is a primary-key conflict, and the row is skipped instead).
fn write_rows(path: &std::path::Path, body: &[u8]) -> Option<()> {
    let conn = Connection::open(path).ok()?;
    conn.execute_batch(SCHEMA_17).ok()?;
    conn.execute_batch("BEGIN").ok()?;
    let mut seq: i64 = 0;
    for line in body.split(|&b| b == b'\n').take(MAX_ROWS) {
        let Some(&control) = line.first() else {
            continue;
        };
        seq += i64::from(control >> 6);
        let Some([seq_value, type_name, data, sources, op, ignorable]) = row_values(line, seq)
        else {
            continue;
        };
        let _ = conn.execute(
            "INSERT INTO events VALUES ('s', ?1, ?2, 1750000000000, ?3, ?4, ?5, ?6)",
            rusqlite::params![seq_value, type_name, data, sources, op, ignorable],
        );
    }
    conn.execute_batch("COMMIT").ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&shape, body)) = data.split_first() else {
        return;
    };
    let path = scratch_path();
    let _ = std::fs::remove_file(&path);
    let written = if shape % 2 == 0 {
        std::fs::write(&path, body).ok()
    } else {
        write_rows(&path, body)
    };
    if written.is_some() {
        let limits = ReadLimits::default();
        let _ = list_sqlite_sessions(&path, &limits);
        if let Ok(Some((log, _info))) = read_sqlite(&path, None, None, &limits) {
            let surface = Surface::at_end(&log);
            let _ = check(&log, &surface);
            let _ = derive_messages(&log, &surface);
            for idx in log.indices() {
                let _ = log.event_json(idx);
            }
        }
    }
    let _ = std::fs::remove_file(&path);
});
