//! Every storage format gives the same log: JSONL, Zstandard JSONL and SQLite schemas 1–17
//! are written from the same events and must read back to the same events, surface and
//! findings; corrupt inputs end in findings or clear errors, never panics; reading never
//! changes the files and never blocks a live writer.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use serde_json::{Map, Value, json};
use surface_engine::{EventLog, Finding, Surface, SurfaceOp, check};
use surface_store::{Format, StoreError, detect_file, list_sessions, open};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Sources

fn upstream(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/upstream/v0-2026-08-20-head")
        .join(rel)
}

/// A small log with a replace and one of most findings: empty, duplicate, forward, unknown and
/// malformed provenance, a malformed op, an op on a non-surface event, a seq gap, and a data
/// payload large enough to be stored compressed in schema 17.
fn synthetic() -> String {
    let big = "compressible ".repeat(500);
    let lines = [
        json!({"type":"session","version":0,"id":"synthetic","createdAt":5000,"cwd":"/w","delegationDepth":0}),
        json!({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}),
        json!({"type":"user/message","seq":1,"time":2,"data":{"content":[{"type":"text","text":"héllo ✓ \"q\""}]},"surfaceOp":"append"}),
        json!({"type":"step/start","seq":2,"time":3,"data":{"turn":1,"step":1}}),
        json!({"type":"assistant/message","seq":3,"time":4,"data":{"turn":1,"step":1,"content":[{"type":"text","text":"b"}]},"sourceEventSeqs":[],"surfaceOp":"append"}),
        json!({"type":"step/end","seq":4,"time":5,"data":{"turn":1,"step":1}}),
        json!({"type":"user/message","seq":5,"time":6,"data":{"content":[{"type":"text","text":big}]},"sourceEventSeqs":[1,3],"surfaceOp":{"op":"replace","start":1,"end":3}}),
        json!({"type":"user/message","seq":6,"time":7,"data":{"content":[]},"surfaceOp":"prepend"}),
        json!({"type":"user/message","seq":7,"time":8,"data":{"content":[]},"sourceEventSeqs":[9,2,2],"surfaceOp":"append"}),
        json!({"type":"user/message","seq":8,"time":-3,"data":{"content":[]},"sourceEventSeqs":[1.5],"surfaceOp":"append"}),
        json!({"type":"turn/start","seq":10,"time":9,"data":{"turn":2},"surfaceOp":"append"}),
        json!({"type":"user/message","seq":11,"time":9,"data":{"content":[]},"sourceEventSeqs":[5],"surfaceOp":{"op":"replace","start":5,"end":5}}),
        json!({"type":"turn/end","seq":12,"time":9,"data":{"turn":2}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The three sources every format is checked against.
fn sources() -> Vec<(&'static str, String)> {
    let read = |n: &str| std::fs::read_to_string(upstream(n)).expect("fixture");
    vec![
        (
            "compaction-recovery",
            read("compaction-recovery.session.jsonl"),
        ),
        ("packed-chunks", read("packed-chunks.session.jsonl")),
        ("synthetic", synthetic()),
    ]
}

/// The header object and the event lines (raw, as `Map`s) of a JSONL text.
fn split(text: &str) -> (Map<String, Value>, Vec<Map<String, Value>>) {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = serde_json::from_str(lines.next().expect("header")).expect("header json");
    let events = lines
        .map(|l| serde_json::from_str(l).expect("event json"))
        .collect();
    (header, events)
}

/// The same JSONL without `surfaceOp`/`sourceEventSeqs` (what a schema without surface
/// columns can hold; those schemas predate the header's `delegationDepth` too).
fn strip_surface(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut m: Map<String, Value> = serde_json::from_str(l).expect("json");
            m.remove("surfaceOp");
            m.remove("sourceEventSeqs");
            m.remove("delegationDepth");
            format!("{}\n", Value::Object(m))
        })
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

// ---------------------------------------------------------------------------------------------
// Zstandard writer: header in frame 1, then one frame per batch (ending at each turn/end or
// every 5 lines), checksums on.

fn zstd_frame(text: &str) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
    enc.include_checksum(true).expect("checksum flag");
    enc.write_all(text.as_bytes()).expect("compress");
    enc.finish().expect("finish")
}

/// The `.jsonl.zstd` bytes and the byte offset of every frame.
fn to_zstd(text: &str) -> (Vec<u8>, Vec<usize>) {
    let mut lines = text.split_inclusive('\n');
    let mut out = Vec::new();
    let mut offsets = vec![0];
    out.extend(zstd_frame(lines.next().expect("header")));
    let mut batch = String::new();
    let mut n = 0;
    for line in lines {
        batch.push_str(line);
        n += 1;
        if line.contains("\"turn/end\"") || n == 5 {
            offsets.push(out.len());
            out.extend(zstd_frame(&batch));
            batch.clear();
            n = 0;
        }
    }
    if !batch.is_empty() {
        offsets.push(out.len());
        out.extend(zstd_frame(&batch));
    }
    (out, offsets)
}

// ---------------------------------------------------------------------------------------------
// SQLite writer, one DDL per schema version (docs/parity.md).

const VERSIONS: [i64; 11] = [1, 2, 4, 5, 8, 10, 12, 13, 14, 15, 17];

fn session_columns(v: i64) -> Vec<&'static str> {
    let mut c = vec![
        "id TEXT PRIMARY KEY",
        "version INTEGER NOT NULL",
        "created_at INTEGER NOT NULL",
        "cwd TEXT",
        "parent_session TEXT",
    ];
    if v <= 2 {
        c.extend([
            "updated_at INTEGER NOT NULL",
            "title TEXT",
            "first_prompt TEXT",
        ]);
        return c;
    }
    c.push("seed_length INTEGER");
    if v >= 13 {
        c.push("origin TEXT");
    }
    if v >= 5 {
        c.push("delegation_depth INTEGER");
    }
    if v >= 14 {
        c.push("agent_preset TEXT");
    }
    if v >= 8 {
        c.extend(["incarnation TEXT NOT NULL", "revision INTEGER NOT NULL"]);
    }
    c
}

fn event_columns(v: i64) -> Vec<&'static str> {
    let mut c = vec![
        "session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE",
        "seq INTEGER NOT NULL",
        "type TEXT NOT NULL",
        "time INTEGER NOT NULL",
    ];
    if v >= 17 {
        c.extend([
            "data ANY NOT NULL",
            "source_event_seqs ANY",
            "surface_op TEXT",
            "ignorable INTEGER CHECK (ignorable IS NULL OR ignorable IN (0, 1))",
        ]);
    } else {
        c.push("data TEXT NOT NULL");
        if v >= 2 {
            c.extend(["source_event_seqs TEXT", "surface_op TEXT"]);
        }
        if v >= 15 {
            c.push("ignorable INTEGER");
        }
    }
    c.push("PRIMARY KEY (session_id, seq)");
    c
}

fn has_surface(v: i64) -> bool {
    v >= 2
}

fn create_db(path: &Path, v: i64) -> Connection {
    let conn = Connection::open(path).expect("create db");
    let sessions = session_columns(v).join(", ");
    let events = event_columns(v).join(", ");
    let mut ddl = format!(
        "PRAGMA foreign_keys = ON; CREATE TABLE sessions ({sessions}) STRICT; CREATE TABLE events ({events}) STRICT; PRAGMA user_version = {v};"
    );
    if v >= 8 {
        ddl.push_str("CREATE TABLE persistence_state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), store_id TEXT NOT NULL) STRICT; INSERT INTO persistence_state VALUES (1, 'store');");
    }
    if v >= 10 {
        ddl.push_str("PRAGMA application_id = 1146308688;");
    }
    conn.execute_batch(&ddl).expect("ddl");
    conn
}

fn table_columns(conn: &Connection, table: &str) -> Vec<String> {
    let mut stmt = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn insert_session(conn: &Connection, header: &Map<String, Value>) {
    let cols = table_columns(conn, "sessions");
    let value = |c: &str| -> Sql {
        let from = |k: &str| match header.get(k) {
            Some(Value::String(s)) => Sql::Text(s.clone()),
            Some(Value::Number(n)) => Sql::Integer(n.as_i64().unwrap()),
            _ => Sql::Null,
        };
        match c {
            "id" => from("id"),
            "version" => from("version"),
            "created_at" | "updated_at" => from("createdAt"),
            "parent_session" => from("parentSession"),
            "seed_length" => from("seedLength"),
            "delegation_depth" => from("delegationDepth"),
            "agent_preset" => from("agentPreset"),
            "incarnation" => Sql::Text("6b1c0b44-0000-4000-8000-000000000000".into()),
            "revision" => Sql::Integer(1),
            other => from(other),
        }
    };
    let values: Vec<Sql> = cols.iter().map(|c| value(c)).collect();
    let marks = vec!["?"; cols.len()].join(", ");
    conn.execute(
        &format!(
            "INSERT INTO sessions ({}) VALUES ({marks})",
            cols.join(", ")
        ),
        rusqlite::params_from_iter(values),
    )
    .expect("insert session");
}

/// One `events` row.
struct Row {
    seq: i64,
    type_name: String,
    time: i64,
    data: Sql,
    sources: Sql,
    op: Sql,
    ignorable: Sql,
}

fn insert_rows(conn: &Connection, session: &str, rows: &[Row]) {
    let cols = table_columns(conn, "events");
    let has = |c: &str| cols.iter().any(|x| x == c);
    for r in rows {
        let mut names = vec!["session_id", "seq", "type", "time", "data"];
        let mut values = vec![
            Sql::Text(session.into()),
            Sql::Integer(r.seq),
            Sql::Text(r.type_name.clone()),
            Sql::Integer(r.time),
            r.data.clone(),
        ];
        if has("source_event_seqs") {
            names.extend(["source_event_seqs", "surface_op"]);
            values.extend([r.sources.clone(), r.op.clone()]);
        }
        if has("ignorable") {
            names.push("ignorable");
            values.push(r.ignorable.clone());
        }
        let marks = vec!["?"; names.len()].join(", ");
        conn.execute(
            &format!("INSERT INTO events ({}) VALUES ({marks})", names.join(", ")),
            rusqlite::params_from_iter(values),
        )
        .expect("insert event");
    }
}

/// Schema-17 `data`: JSON text, compressed when ≥ 4096 bytes and smaller compressed.
fn data_17(json: &str) -> Sql {
    if json.len() >= 4096 {
        let z = zstd::bulk::compress(json.as_bytes(), 3).unwrap();
        if z.len() < json.len() {
            return Sql::Blob(z);
        }
    }
    Sql::Text(json.into())
}

fn opt_json(v: Option<&Value>) -> Sql {
    match v {
        None | Some(Value::Null) => Sql::Null,
        Some(v) => Sql::Text(v.to_string()),
    }
}

/// Rows for a schema: packed rows kept (17) or expanded to their members (via the JSONL
/// reader's own expansion, which the JSONL tests pin down).
fn rows_for(v: i64, text: &str, reference: &EventLog) -> Vec<Row> {
    if v < 17 {
        return reference
            .indices()
            .map(|i| {
                let ev = reference.event_value(i).expect("event json");
                Row {
                    seq: ev["seq"].as_i64().unwrap(),
                    type_name: ev["type"].as_str().unwrap().into(),
                    time: ev["time"].as_i64().unwrap_or(0),
                    data: Sql::Text(ev["data"].to_string()),
                    sources: opt_json(ev.get("sourceEventSeqs")),
                    op: opt_json(ev.get("surfaceOp")),
                    ignorable: if ev.get("ignorable") == Some(&json!(true)) {
                        Sql::Integer(1)
                    } else {
                        Sql::Null
                    },
                }
            })
            .collect();
    }
    split(text)
        .1
        .into_iter()
        .map(|m| {
            let t = m["type"].as_str().unwrap().to_string();
            if t.ends_with("-chunks") {
                return Row {
                    seq: m["seq0"].as_i64().unwrap(),
                    type_name: t,
                    time: m["time0"].as_i64().unwrap(),
                    data: data_17(&m["data"].to_string()),
                    sources: Sql::Null,
                    op: Sql::Null,
                    ignorable: Sql::Integer(0),
                };
            }
            let sources = match m.get("sourceEventSeqs") {
                Some(Value::Array(a)) if a.iter().all(Value::is_u64) => {
                    Sql::Blob(surface_store::encode_seq_list(
                        &a.iter().map(|x| x.as_u64().unwrap()).collect::<Vec<_>>(),
                    ))
                }
                other => opt_json(other),
            };
            Row {
                seq: m["seq"].as_i64().unwrap(),
                type_name: t,
                time: m["time"].as_i64().unwrap_or(0),
                data: data_17(&m["data"].to_string()),
                sources,
                op: opt_json(m.get("surfaceOp")),
                ignorable: if m.get("ignorable") == Some(&json!(true)) {
                    Sql::Integer(1)
                } else {
                    Sql::Null
                },
            }
        })
        .collect()
}

fn small_rows(first_type: &str) -> Vec<Row> {
    (0..2)
        .map(|seq| Row {
            seq,
            type_name: if seq == 0 {
                first_type.into()
            } else {
                "turn/end".into()
            },
            time: 1,
            data: Sql::Text(r#"{"turn":1}"#.into()),
            sources: Sql::Null,
            op: Sql::Null,
            ignorable: Sql::Null,
        })
        .collect()
}

/// A database in schema `v` with the session of `text` between two others: "tie" (same
/// `created_at`, earlier row) and "older" (earlier `created_at`, later row). Also `compare.rs`'s.
pub(crate) fn to_sqlite(path: &Path, v: i64, text: &str, reference: &EventLog) {
    let conn = create_db(path, v);
    let (header, _) = split(text);
    let created = header["createdAt"].as_i64().unwrap();
    let mut tie = header.clone();
    tie.insert("id".into(), json!("tie"));
    tie.insert("parentSession".into(), json!("parent-x"));
    tie.insert("seedLength".into(), json!(1));
    tie.insert("origin".into(), json!("subagent"));
    let mut older = header.clone();
    older.insert("id".into(), json!("older"));
    older.insert("createdAt".into(), json!(created - 1000));
    conn.execute_batch("BEGIN").unwrap();
    insert_session(&conn, &tie);
    insert_rows(&conn, "tie", &small_rows("turn/start"));
    insert_session(&conn, &header);
    insert_rows(
        &conn,
        header["id"].as_str().unwrap(),
        &rows_for(v, text, reference),
    );
    insert_session(&conn, &older);
    insert_rows(&conn, "older", &small_rows("turn/start"));
    conn.execute_batch("COMMIT").unwrap();
}

// ---------------------------------------------------------------------------------------------
// Comparison

fn read_plain(dir: &Path, name: &str, text: &str) -> EventLog {
    open(
        &write(dir, name, text.as_bytes()),
        &surface_store::Options::default(),
    )
    .expect("plain JSONL")
    .log
}

/// What must agree between formats for one event.
fn event_key(
    log: &EventLog,
    i: surface_engine::EventIdx,
) -> (u64, String, SurfaceOp, Option<Vec<u64>>, Value) {
    let e = log.event(i);
    (
        e.seq,
        log.type_name(i).to_string(),
        log.op(i),
        log.sources(i).map(<[u64]>::to_vec),
        log.data_value(i),
    )
}

/// Findings without `line`/`offset` (lines are 0/None for SQLite rows).
fn finding_keys(findings: &[Finding]) -> Vec<(String, String, Option<u64>, String)> {
    let mut keys: Vec<_> = findings
        .iter()
        .map(|f| {
            (
                f.rule.to_string(),
                f.severity.as_str().to_string(),
                f.seq,
                f.message.clone(),
            )
        })
        .collect();
    keys.sort();
    keys
}

fn assert_same(got: &EventLog, want: &EventLog, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: event count");
    for i in want.indices() {
        assert_eq!(event_key(got, i), event_key(want, i), "{what}: event {i}");
        assert_eq!(
            got.event(i).time(),
            want.event(i).time(),
            "{what}: time of {i}"
        );
    }
    let (gs, ws) = (Surface::at_end(got), Surface::at_end(want));
    assert_eq!(gs.mode(), ws.mode(), "{what}: mode");
    let nodes =
        |log: &EventLog, s: &Surface| s.nodes().map(|i| log.event(i).seq).collect::<Vec<_>>();
    assert_eq!(nodes(got, &gs), nodes(want, &ws), "{what}: surface");
    assert_eq!(
        finding_keys(&check(got, &gs)),
        finding_keys(&check(want, &ws)),
        "{what}: findings"
    );
    let (gh, wh) = (got.header.as_ref().unwrap(), want.header.as_ref().unwrap());
    assert_eq!(
        (&gh.id, gh.version, gh.created_at, &gh.cwd),
        (&wh.id, wh.version, wh.created_at, &wh.cwd),
        "{what}: header"
    );
}

fn findings_of(log: &EventLog) -> Vec<Finding> {
    check(log, &Surface::at_end(log))
}

// ---------------------------------------------------------------------------------------------
// Equality across formats

#[test]
fn zstd_gives_the_same_log_as_jsonl() {
    let dir = TempDir::new().unwrap();
    for (name, text) in sources() {
        let want = read_plain(dir.path(), &format!("{name}.jsonl"), &text);
        let (bytes, offsets) = to_zstd(&text);
        assert!(offsets.len() > 2, "{name}: several frames");
        let path = write(dir.path(), &format!("{name}.jsonl.zstd"), &bytes);
        assert_eq!(detect_file(&path).unwrap(), Format::Zstd);
        let got = open(&path, &surface_store::Options::default()).expect("zstd");
        assert_same(&got.log, &want, &format!("{name} zstd"));
        // Lines count decompressed lines, so they agree with the plain file too.
        let lines = |l: &EventLog| l.events.iter().map(|e| e.line).collect::<Vec<_>>();
        assert_eq!(lines(&got.log), lines(&want), "{name}: lines");
        assert_eq!(list_sessions(&path).unwrap()[0].events, want.len() as u64);
    }
}

#[test]
fn every_sqlite_schema_gives_the_same_log_as_jsonl() {
    let dir = TempDir::new().unwrap();
    for (name, text) in sources() {
        let want = read_plain(dir.path(), &format!("{name}.jsonl"), &text);
        let stripped = strip_surface(&text);
        let want_legacy = read_plain(dir.path(), &format!("{name}.legacy.jsonl"), &stripped);
        let id = want.header.as_ref().unwrap().id.clone();
        for v in VERSIONS {
            let path = dir.path().join(format!("{name}-v{v}.db"));
            to_sqlite(&path, v, &text, &want);
            let what = format!("{name} schema {v}");
            assert_eq!(detect_file(&path).unwrap(), Format::Sqlite);
            let got = open(&path, &surface_store::Options::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got.session.id, id, "{what}: default session");
            let reference = if has_surface(v) { &want } else { &want_legacy };
            assert_same(&got.log, reference, &what);
            assert!(
                got.log.events.iter().all(|e| e.line == 0),
                "{what}: no lines"
            );
            assert_eq!(got.session.events, want.len() as u64);
        }
    }
}

#[test]
fn schema_17_really_uses_blobs_and_packed_rows() {
    let dir = TempDir::new().unwrap();
    for (name, text) in sources() {
        let want = read_plain(dir.path(), "ref.jsonl", &text);
        let path = dir.path().join(format!("{name}.db"));
        to_sqlite(&path, 17, &text, &want);
        let conn = Connection::open(&path).unwrap();
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        let blobs = count("SELECT COUNT(*) FROM events WHERE typeof(data) = 'blob'");
        let packed = count("SELECT COUNT(*) FROM events WHERE ignorable = 0");
        let varints = count("SELECT COUNT(*) FROM events WHERE typeof(source_event_seqs) = 'blob'");
        match name {
            "compaction-recovery" => assert!(blobs > 0 && varints > 0, "{name}"),
            "packed-chunks" => assert_eq!(packed, 4, "{name}"),
            _ => assert!(blobs > 0 && varints > 0, "{name}"),
        }
    }
}

#[test]
fn schema_17_is_held_to_the_limits_when_listed_and_read() {
    use surface_store::{Options, ReadLimits, list_sessions_within, open};
    let within = |limits| Options {
        limits,
        ..Options::default()
    };
    let dir = TempDir::new().unwrap();
    let text = std::fs::read_to_string(upstream("packed-chunks.session.jsonl")).unwrap();
    let want = read_plain(dir.path(), "p.jsonl", &text);
    let path = dir.path().join("v17.db");
    to_sqlite(&path, 17, &text, &want);
    // Counting packed members decompresses their BLOBs: no more than the total in all.
    let tiny = ReadLimits::default().with_total_bytes(64);
    assert!(
        matches!(
            list_sessions_within(&path, &tiny),
            Err(StoreError::TooLarge { limit: 64, .. })
        ),
        "the listing stops past the total"
    );
    assert!(
        matches!(
            open(&path, &within(tiny)),
            Err(StoreError::TooLarge { limit: 64, .. })
        ),
        "so does the reader"
    );
    // A per-event limit below every row: each row is a `line.too-long` finding with its seq.
    let short = ReadLimits::default().with_event_bytes(16);
    let opened = open(&path, &within(short)).unwrap();
    assert!(opened.log.is_empty());
    let findings = check(&opened.log, &Surface::at_end(&opened.log));
    let long: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.rule == "line.too-long")
        .collect();
    assert!(
        !long.is_empty() && long.iter().all(|f| f.seq.is_some()),
        "{findings:?}"
    );
    assert!(
        long[0].message.contains("per-event limit of 16 bytes"),
        "{}",
        long[0].message
    );
    // Within the defaults it reads as before.
    assert_eq!(
        list_sessions_within(&path, &ReadLimits::default()).unwrap()[1].events,
        want.len() as u64
    );
}

#[test]
fn session_selection_and_listing() {
    let dir = TempDir::new().unwrap();
    let text = std::fs::read_to_string(upstream("packed-chunks.session.jsonl")).unwrap();
    let want = read_plain(dir.path(), "p.jsonl", &text);
    let main_id = want.header.as_ref().unwrap().id.clone();
    for v in [1, 13, 17] {
        let path = dir.path().join(format!("v{v}.db"));
        to_sqlite(&path, v, &text, &want);
        let tie = open(
            &path,
            &surface_store::Options {
                session: Some("tie"),
                ..surface_store::Options::default()
            },
        )
        .unwrap();
        assert_eq!(tie.session.id, "tie");
        assert_eq!(tie.log.len(), 2);
        assert_eq!(
            open(
                &path,
                &surface_store::Options {
                    session: Some("older"),
                    ..surface_store::Options::default()
                }
            )
            .unwrap()
            .log
            .len(),
            2
        );
        assert_eq!(
            open(&path, &surface_store::Options::default())
                .unwrap()
                .session
                .id,
            main_id,
            "tie goes to the later row"
        );
        match open(
            &path,
            &surface_store::Options {
                session: Some("nope"),
                ..surface_store::Options::default()
            },
        ) {
            Err(StoreError::UnknownSession { available, .. }) => {
                assert_eq!(available, format!("tie, {main_id}, older"));
            }
            other => panic!("expected UnknownSession, got {other:?}"),
        }
        let list = list_sessions(&path).unwrap();
        let ids: Vec<_> = list.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["tie", main_id.as_str(), "older"]);
        assert_eq!(
            list[1].events,
            want.len() as u64,
            "schema {v}: members counted"
        );
        assert_eq!(list[0].events, 2);
        assert_eq!(list[1].created, want.header.as_ref().unwrap().created_at);
        assert_eq!(list[0].parent.as_deref(), Some("parent-x"));
        assert_eq!(list[0].seed_length, if v >= 4 { Some(1) } else { None });
        assert_eq!(
            list[0].origin.as_deref(),
            if v >= 13 { Some("subagent") } else { None }
        );
    }
    // Only one session: it is the default whatever its created_at.
    let path = dir.path().join("single.db");
    let conn = create_db(&path, 17);
    let (mut header, _) = split(&text);
    header.insert("createdAt".into(), json!(1));
    insert_session(&conn, &header);
    drop(conn);
    assert_eq!(
        open(&path, &surface_store::Options::default())
            .unwrap()
            .session
            .id,
        main_id
    );
}

// ---------------------------------------------------------------------------------------------
// Corrupt Zstandard input

#[test]
fn truncated_final_frame_is_a_torn_tail() {
    let dir = TempDir::new().unwrap();
    // Fixture: the final frame (holding the last turn/end) is cut in half.
    let text = std::fs::read_to_string(upstream("compaction-recovery.session.jsonl")).unwrap();
    let want = read_plain(dir.path(), "c.jsonl", &text);
    let (bytes, offsets) = to_zstd(&text);
    let last = *offsets.last().unwrap();
    let cut = last + (bytes.len() - last) / 2;
    let got = open(
        &write(dir.path(), "c.jsonl.zstd", &bytes[..cut]),
        &surface_store::Options::default(),
    )
    .unwrap()
    .log;
    assert!(got.len() < want.len() && !got.is_empty());
    let torn: Vec<_> = findings_of(&got)
        .into_iter()
        .filter(|f| f.rule == "line.torn-tail")
        .collect();
    assert_eq!(torn.len(), 1, "{torn:?}");
    assert_eq!(torn[0].offset, Some(last as u64));
    assert!(
        torn[0].message.contains(&format!("byte offset {last}")),
        "{}",
        torn[0].message
    );
    assert!(findings_of(&got).iter().all(|f| f.rule != "frame.corrupt"));

    // A final frame of several blocks: its complete blocks decode and the partial last line
    // is the torn tail.
    let mut batch = String::new();
    let mut seq = 1;
    while batch.len() < 600_000 {
        batch.push_str(&format!(
            "{{\"type\":\"context/message\",\"seq\":{seq},\"time\":{seq},\"data\":{{\"n\":\"{}\"}}}}\n",
            seq * 7919 % 1_000_003
        ));
        seq += 1;
    }
    let head = "{\"type\":\"session\",\"version\":0,\"id\":\"big\",\"createdAt\":1}\n";
    let first = "{\"type\":\"turn/end\",\"seq\":0,\"time\":0,\"data\":{\"turn\":1}}\n";
    let mut file = zstd_frame(head);
    file.extend(zstd_frame(first));
    let last = file.len();
    let frame = zstd::bulk::compress(batch.as_bytes(), 1).unwrap();
    file.extend(&frame[..frame.len() * 3 / 4]);
    let got = open(
        &write(dir.path(), "big.jsonl.zstd", &file),
        &surface_store::Options::default(),
    )
    .unwrap()
    .log;
    assert!(
        got.len() > 2 && got.len() < seq as usize,
        "decoded a prefix: {}",
        got.len()
    );
    let f: Vec<_> = findings_of(&got)
        .into_iter()
        .filter(|f| f.rule.starts_with("line.") || f.rule == "frame.corrupt")
        .collect();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, "line.torn-tail");
    assert_eq!(
        f[0].line,
        Some(got.len() as u32 + 2),
        "the partial line after the last event"
    );
    assert_eq!(f[0].offset, Some(last as u64));
}

#[test]
fn corrupt_middle_frame_is_reported_and_the_others_load() {
    let dir = TempDir::new().unwrap();
    let text = std::fs::read_to_string(upstream("packed-chunks.session.jsonl")).unwrap();
    let want = read_plain(dir.path(), "p.jsonl", &text);
    let (bytes, offsets) = to_zstd(&text);
    assert!(offsets.len() >= 4);
    let (start, end) = (offsets[2], offsets[3]);
    let lines_before = zstd::decode_all(&bytes[..start])
        .unwrap()
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32;
    let lines_in_frame = zstd::decode_all(&bytes[start..end])
        .unwrap()
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32;
    assert!(lines_in_frame > 0);
    let kept: Vec<u64> = want
        .events
        .iter()
        .filter(|e| e.line <= lines_before || e.line > lines_before + lines_in_frame)
        .map(|e| e.seq)
        .collect();
    assert!(kept.len() < want.len());
    for (how, at) in [("checksum", end - 2), ("data", start + (end - start) / 2)] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x5A;
        let got = open(
            &write(dir.path(), &format!("{how}.jsonl.zstd"), &bad),
            &surface_store::Options::default(),
        )
        .unwrap()
        .log;
        let corrupt: Vec<_> = findings_of(&got)
            .into_iter()
            .filter(|f| f.rule == "frame.corrupt")
            .collect();
        assert_eq!(corrupt.len(), 1, "{how}: {corrupt:?}");
        assert_eq!(corrupt[0].offset, Some(start as u64), "{how}");
        assert_eq!(corrupt[0].severity.as_str(), "error");
        assert!(
            corrupt[0].message.contains(&format!("byte offset {start}")),
            "{how}: {}",
            corrupt[0].message
        );
        // Frames before it load, and so do the frames after it.
        assert!(got.header.is_some(), "{how}");
        let seqs: Vec<u64> = got.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, kept, "{how}");
    }
}

#[test]
fn junk_and_empty_zstd_inputs_do_not_panic() {
    let dir = TempDir::new().unwrap();
    for (name, bytes) in [
        ("magic-only", vec![0x28, 0xB5, 0x2F, 0xFD]),
        ("bad-header", vec![0x28, 0xB5, 0x2F, 0xFD, 0x08, 1, 2, 3]),
        ("junk", {
            let mut b = vec![0x28, 0xB5, 0x2F, 0xFD];
            b.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
            b
        }),
    ] {
        let path = write(dir.path(), name, &bytes);
        match open(&path, &surface_store::Options::default()) {
            Ok(o) => assert!(!findings_of(&o.log).is_empty(), "{name}"),
            Err(e) => assert!(e.to_string().contains(name), "{name}: {e}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Corrupt SQLite input

/// A schema-17 database of the synthetic log plus an edit; returns the log and its findings.
fn sqlite_17_with(dir: &Path, name: &str, source: &str, edit: &str) -> EventLog {
    let want = read_plain(dir, &format!("{name}.jsonl"), source);
    let path = dir.join(format!("{name}.db"));
    to_sqlite(&path, 17, source, &want);
    Connection::open(&path)
        .unwrap()
        .execute_batch(edit)
        .expect("edit");
    open(&path, &surface_store::Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .log
}

fn only_problem(log: &EventLog, rule: &str) -> Finding {
    let extra: Vec<_> = findings_of(log)
        .into_iter()
        .filter(|f| f.rule == "line.unparseable" || f.rule == "line.torn-tail")
        .collect();
    assert_eq!(extra.len(), 1, "{extra:?}");
    assert_eq!(extra[0].rule, rule, "{extra:?}");
    assert_eq!(extra[0].line, None);
    extra[0].clone()
}

#[test]
fn bad_sqlite_rows_are_findings_by_seq() {
    let dir = TempDir::new().unwrap();
    let text = synthetic();
    let n = read_plain(dir.path(), "s.jsonl", &text).len();
    let sid = "synthetic";

    let log = sqlite_17_with(
        dir.path(),
        "blob",
        &text,
        &format!("UPDATE events SET data = X'DEADBEEF00' WHERE session_id = '{sid}' AND seq = 2"),
    );
    let f = only_problem(&log, "line.unparseable");
    assert_eq!(f.seq, Some(2));
    assert!(f.message.contains("not Zstandard"), "{}", f.message);
    assert_eq!(log.len(), n - 1);

    let log = sqlite_17_with(
        dir.path(),
        "zblob",
        &text,
        &format!(
            "UPDATE events SET data = X'28B52FFD0000DEADBEEF' WHERE session_id = '{sid}' AND seq = 4"
        ),
    );
    assert_eq!(only_problem(&log, "line.unparseable").seq, Some(4));

    let log = sqlite_17_with(
        dir.path(),
        "json",
        &text,
        &format!("UPDATE events SET data = '{{not json' WHERE session_id = '{sid}' AND seq = 12"),
    );
    let f = only_problem(&log, "line.torn-tail");
    assert_eq!(
        f.seq,
        Some(12),
        "after the last turn/end (now gone): torn tail"
    );

    for (name, blob) in [
        ("noncanonical", "X'0380'"),
        ("overlong", "X'FFFFFFFFFFFFFFFFFF01'"),
        ("truncated", "X'0381'"),
    ] {
        let edit = format!(
            "UPDATE events SET source_event_seqs = {blob} WHERE session_id = '{sid}' AND seq = 7"
        );
        let log = sqlite_17_with(dir.path(), name, &text, &edit);
        let f = only_problem(&log, "line.unparseable");
        assert_eq!(f.seq, Some(7), "{name}");
        assert!(f.message.contains("varint"), "{name}: {}", f.message);
        assert_eq!(log.len(), n - 1, "{name}");
    }

    let log = sqlite_17_with(
        dir.path(),
        "ignorable",
        &text,
        &format!("UPDATE events SET ignorable = 0 WHERE session_id = '{sid}' AND seq = 0"),
    );
    assert_eq!(only_problem(&log, "line.unparseable").seq, Some(0));
}

#[test]
fn malformed_packed_rows_are_findings() {
    let dir = TempDir::new().unwrap();
    let text = std::fs::read_to_string(upstream("packed-chunks.session.jsonl")).unwrap();
    let want = read_plain(dir.path(), "p.jsonl", &text);
    let id = want.header.as_ref().unwrap().id.clone();
    let (_, lines) = split(&text);
    let row = lines
        .iter()
        .find(|l| l["type"] == "reasoning-chunks")
        .unwrap();
    let seq0 = row["seq0"].as_u64().unwrap();
    let members = row["data"]["texts"].as_array().unwrap().len();
    let mut data = row["data"].as_object().unwrap().clone();
    data.insert("extra".into(), json!(1));
    let edit = format!(
        "UPDATE events SET data = '{}' WHERE session_id = '{id}' AND seq = {seq0}",
        Value::Object(data).to_string().replace('\'', "''")
    );
    let log = sqlite_17_with(dir.path(), "badkeys", &text, &edit);
    let f = only_problem(&log, "line.unparseable");
    assert_eq!(f.seq, Some(seq0));
    assert!(
        f.message.contains("malformed reasoning-chunks"),
        "{}",
        f.message
    );
    assert_eq!(log.len(), want.len() - members);

    let edit = format!(
        "UPDATE events SET surface_op = '\"append\"' WHERE session_id = '{id}' AND seq = {seq0}"
    );
    let log = sqlite_17_with(dir.path(), "packedop", &text, &edit);
    assert_eq!(only_problem(&log, "line.unparseable").seq, Some(seq0));
}

#[test]
fn random_bytes_after_the_sqlite_magic_are_a_clear_error() {
    let dir = TempDir::new().unwrap();
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend((0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8));
    let path = write(dir.path(), "junk.db", &bytes);
    for result in [
        open(&path, &surface_store::Options::default()).map(|_| ()),
        list_sessions(&path).map(|_| ()),
    ] {
        match result {
            Err(e @ StoreError::Sqlite { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("junk.db") && msg.contains("session database"),
                    "{msg}"
                );
            }
            other => panic!("expected a SQLite error, got {other:?}"),
        }
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "untouched");

    // A real database that is not a session database.
    let path = dir.path().join("other.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let err = open(&path, &surface_store::Options::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no `sessions` and `events` tables"), "{err}");
}

#[test]
fn unknown_schema_versions() {
    let dir = TempDir::new().unwrap();
    let text = synthetic();
    let want = read_plain(dir.path(), "s.jsonl", &text);
    // Columns as in 17: read best-effort, same log.
    let path = dir.path().join("v99.db");
    to_sqlite(&path, 17, &text, &want);
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    assert_same(
        &open(&path, &surface_store::Options::default()).unwrap().log,
        &want,
        "schema 99",
    );
    // Needed columns missing: a clear error naming them.
    let path = dir.path().join("v99-missing.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE sessions (id TEXT); CREATE TABLE events (session_id TEXT, seq INT, kind TEXT); PRAGMA user_version = 99;")
        .unwrap();
    let err = open(&path, &surface_store::Options::default()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, StoreError::Sqlite { .. }), "{msg}");
    assert!(
        msg.contains("99") && msg.contains("events.type") && msg.contains("events.data"),
        "{msg}"
    );
    // No session at all.
    let path = dir.path().join("empty.db");
    drop(create_db(&path, 17));
    assert!(
        open(&path, &surface_store::Options::default())
            .unwrap_err()
            .to_string()
            .contains("no session")
    );
}

// ---------------------------------------------------------------------------------------------
// Never lose data

/// Every file of `dir` with its length and a hash of its bytes.
fn snapshot(dir: &Path) -> Vec<(String, usize, u64)> {
    use std::hash::{Hash as _, Hasher as _};
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                bytes.len(),
                h.finish(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn reading_changes_no_file() {
    let dir = TempDir::new().unwrap();
    let text = synthetic();
    let want = read_plain(dir.path(), "s.jsonl", &text);
    write(dir.path(), "s.jsonl.zstd", &to_zstd(&text).0);
    for v in [1, 17] {
        to_sqlite(&dir.path().join(format!("v{v}.db")), v, &text, &want);
    }
    // A WAL-mode database whose writer has exited (no -wal/-shm files left).
    let wal = dir.path().join("wal.db");
    to_sqlite(&wal, 17, &text, &want);
    let mode: String = Connection::open(&wal)
        .unwrap()
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let before = snapshot(dir.path());
    for (name, _, _) in &before {
        let path = dir.path().join(name);
        open(&path, &surface_store::Options::default()).unwrap();
        list_sessions(&path).unwrap();
    }
    // Every file is byte-identical. The only new files are the WAL index and an empty WAL
    // that SQLite itself creates for any reader of a WAL-mode database that has none (it
    // cannot be avoided without `immutable=1`, which is unsafe on a live file).
    let after = snapshot(dir.path());
    let (kept, new): (Vec<_>, Vec<_>) = after
        .into_iter()
        .partition(|f| before.iter().any(|b| b.0 == f.0));
    assert_eq!(kept, before, "byte-identical");
    let new_names: Vec<&str> = new.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(new_names, ["wal.db-shm", "wal.db-wal"]);
    assert_eq!(new[1].1, 0, "the WAL stays empty");
}

#[test]
fn a_live_wal_writer_is_never_blocked() {
    let dir = TempDir::new().unwrap();
    let text = synthetic();
    let want = read_plain(dir.path(), "s.jsonl", &text);
    let path = dir.path().join("live.db");
    to_sqlite(&path, 17, &text, &want);
    let writer = Connection::open(&path).unwrap();
    let mode: String = writer
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_w = stop.clone();
    let handle = std::thread::spawn(move || {
        let mut seq = 1000;
        let mut failures = Vec::new();
        while !stop_w.load(std::sync::atomic::Ordering::Relaxed) || seq < 1200 {
            let result = writer.execute(
                "INSERT INTO events (session_id, seq, type, time, data) VALUES ('older', ?1, 'context/message', 1, '{}')",
                [seq],
            );
            if let Err(e) = result {
                failures.push(e.to_string());
            }
            seq += 1;
        }
        (seq - 1000, failures)
    });
    let mut reads = 0;
    let started = std::time::Instant::now();
    while reads < 30 || started.elapsed() < std::time::Duration::from_millis(300) {
        let got = open(&path, &surface_store::Options::default()).expect("read while writing");
        assert_eq!(got.log.len(), want.len());
        let n = list_sessions(&path).unwrap()[2].events;
        assert!(n >= 2);
        reads += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (written, failures) = handle.join().unwrap();
    assert!(failures.is_empty(), "the writer failed: {failures:?}");
    let older = open(
        &path,
        &surface_store::Options {
            session: Some("older"),
            ..surface_store::Options::default()
        },
    )
    .unwrap();
    assert_eq!(older.log.len() as i64, 2 + written, "every write landed");

    let older_events = || {
        open(
            &path,
            &surface_store::Options {
                session: Some("older"),
                ..surface_store::Options::default()
            },
        )
        .unwrap()
        .log
        .len() as i64
    };
    // A write transaction held open across a read: the read sees the committed state and
    // the writer still commits.
    let writer = Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE; INSERT INTO events (session_id, seq, type, time, data) VALUES ('older', 5, 'context/message', 1, '{}');").unwrap();
    assert_eq!(older_events(), 2 + written);
    writer
        .execute_batch("COMMIT")
        .expect("the writer commits after the read");
    assert_eq!(older_events(), 3 + written);
}

// ---------------------------------------------------------------------------------------------
// No input panics

use crate::binary::bin;
use crate::invariants;

mod no_panics {
    use proptest::collection::vec;
    use proptest::prelude::*;
    use surface_store::{ReadLimits, read_zstd_jsonl};

    use super::*;

    fn good_zstd() -> &'static (Vec<u8>, Vec<usize>) {
        static BYTES: std::sync::OnceLock<(Vec<u8>, Vec<usize>)> = std::sync::OnceLock::new();
        BYTES.get_or_init(|| to_zstd(&synthetic()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn mutated_zstd_never_panics(flips in vec((any::<usize>(), any::<u8>()), 0..6), cut in any::<usize>()) {
            let (good, frames) = good_zstd();
            let mut b = good.clone();
            let flipped: Vec<usize> = flips.iter().map(|&(i, _)| i % b.len()).collect();
            for (&at, (_, x)) in flipped.iter().zip(&flips) {
                b[at] ^= x;
            }
            b.truncate(cut % (b.len() + 1));
            let log = read_zstd_jsonl(&b, None, &ReadLimits::default()).expect("not cancelled");
            invariants::assert_log_invariants(&log, "mutated zstd");
            // A cut final frame is decoded as far as its complete blocks go, before the
            // checksum at its end: a flip inside it is read as it is.
            let torn_from = frames.iter().copied().filter(|&f| f < b.len()).max().unwrap_or(0);
            let torn = b.len() < good.len();
            if torn && flipped.iter().any(|&at| (torn_from..b.len()).contains(&at)) {
                return Ok(());
            }
            // Otherwise what was read is the original log's events (a complete frame's
            // checksum catches flips).
            let want = surface_store::read_jsonl(synthetic().into_bytes(), None).expect("read");
            for i in log.indices() {
                let seq = log.event(i).seq;
                let original = want.find_seq(seq);
                prop_assert!(original.is_some(), "seq {} is not in the original", seq);
                prop_assert_eq!(log.type_name(i), want.type_name(original.unwrap()));
            }
        }

        #[test]
        fn random_zstd_never_panics(tail in vec(any::<u8>(), 0..3000)) {
            let mut b = vec![0x28, 0xB5, 0x2F, 0xFD];
            b.extend(tail);
            let log = read_zstd_jsonl(&b, None, &ReadLimits::default()).expect("not cancelled");
            let findings = invariants::assert_log_invariants(&log, "random zstd");
            // Random bytes are no session: at least the missing header is reported.
            prop_assert!(!findings.is_empty());
        }
    }

    /// Random BLOBs in `data` and `source_event_seqs` of a schema-17 row.
    #[test]
    fn random_sqlite_blobs_never_panic() {
        let dir = TempDir::new().unwrap();
        let text = synthetic();
        let want = read_plain(dir.path(), "s.jsonl", &text);
        let path = dir.path().join("r.db");
        to_sqlite(&path, 17, &text, &want);
        let conn = Connection::open(&path).unwrap();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..60 {
            let len = (next() % 40) as usize;
            let mut blob: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 2 == 0 {
                let mut z = vec![0x28, 0xB5, 0x2F, 0xFD];
                z.append(&mut blob);
                blob = z;
            }
            let column = if round % 3 == 0 {
                "source_event_seqs"
            } else {
                "data"
            };
            conn.execute(
                &format!(
                    "UPDATE events SET {column} = ?1 WHERE session_id = 'synthetic' AND seq = 7"
                ),
                [Sql::Blob(blob)],
            )
            .unwrap();
            let log = open(&path, &surface_store::Options::default())
                .expect("readable")
                .log;
            invariants::assert_log_invariants(&log, &format!("round {round}: {column}"));
            // Only row seq 7 changed: every other event is read as before.
            for w in want.indices().filter(|&w| want.event(w).seq != 7) {
                let i = log.find_seq(want.event(w).seq);
                assert!(i.is_some(), "round {round}: seq {}", want.event(w).seq);
                assert_eq!(
                    log.type_name(i.unwrap()),
                    want.type_name(w),
                    "round {round}"
                );
            }
            list_sessions(&path).expect("listable");
        }
    }
}

#[test]
fn progress_reaches_the_end_and_cancel_stops() {
    use surface_store::{LoadProgress, Options, open};
    fn with(progress: &LoadProgress) -> Options<'_> {
        Options {
            progress: Some(progress),
            ..Options::default()
        }
    }
    let dir = TempDir::new().unwrap();
    let text = synthetic();
    let want = read_plain(dir.path(), "s.jsonl", &text);
    let db = dir.path().join("s.db");
    to_sqlite(&db, 17, &text, &want);
    let zst = write(dir.path(), "s.jsonl.zstd", &to_zstd(&text).0);
    for path in [&db, &zst] {
        let p = LoadProgress::default();
        let opened = open(path, &with(&p)).unwrap();
        assert_eq!(opened.log.len(), want.len());
        // (The JSONL reader does not count the header line's bytes, so Zstandard ends just
        // short of 1.)
        let at_least = if path == &db { 1.0 - 1e-6 } else { 0.95 };
        assert!(
            p.fraction() >= at_least,
            "{}: {}",
            path.display(),
            p.fraction()
        );
        let p = LoadProgress::default();
        p.cancel();
        assert!(matches!(
            open(path, &with(&p)),
            Err(StoreError::Cancelled { .. })
        ));
    }
}

#[test]
fn session_row_oddities() {
    let dir = TempDir::new().unwrap();
    // Branch schema 9: `created_at REAL`; a sessions.version other than 0/1 is header.version.
    let path = dir.path().join("v9.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at REAL NOT NULL, cwd TEXT, parent_session TEXT, seed_length INTEGER, delegation_depth INTEGER, incarnation TEXT NOT NULL, revision INTEGER NOT NULL) STRICT;
         CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, time INTEGER NOT NULL, data TEXT NOT NULL, source_event_seqs TEXT, surface_op TEXT, PRIMARY KEY (session_id, seq)) STRICT;
         PRAGMA user_version = 9;
         INSERT INTO sessions VALUES ('late', 0, 1783352165190.5, NULL, NULL, NULL, 0, 'i', 1);
         INSERT INTO sessions VALUES ('early', 3, 1783352165189.0, NULL, NULL, NULL, 0, 'i', 1);
         INSERT INTO events VALUES ('late', 0, 'turn/start', 1, '{\"turn\":1}', NULL, NULL);",
    )
    .unwrap();
    drop(conn);
    let got = open(&path, &surface_store::Options::default()).unwrap();
    assert_eq!(got.session.id, "late");
    assert_eq!(got.session.created, Some(1_783_352_165_190));
    assert!(
        findings_of(&got.log)
            .iter()
            .all(|f| f.rule != "header.version")
    );
    let early = open(
        &path,
        &surface_store::Options {
            session: Some("early"),
            ..surface_store::Options::default()
        },
    )
    .unwrap();
    assert!(early.log.is_empty());
    let f = findings_of(&early.log);
    assert!(
        f.iter()
            .any(|f| f.rule == "header.version" && f.message.contains('3')),
        "{f:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The issue's acceptance check, through the binary

fn cli_json(args: &[&str]) -> Value {
    let out = bin().args(args).output().expect("binary runs");
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// `check --json` without what necessarily differs between formats: the file name and format,
/// and `line` (SQLite rows have none).
fn comparable_check(mut v: Value) -> Value {
    let map = v.as_object_mut().unwrap();
    map.remove("file");
    map.remove("format");
    for f in map["findings"].as_array_mut().unwrap() {
        f.as_object_mut().unwrap().remove("line");
    }
    v
}

#[test]
fn the_same_session_in_every_format_gives_identical_cli_output() {
    let dir = TempDir::new().unwrap();
    for (name, text) in sources() {
        let want = read_plain(dir.path(), &format!("{name}.jsonl"), &text);
        let mut files = vec![write(dir.path(), &format!("{name}.jsonl"), text.as_bytes())];
        files.push(write(
            dir.path(),
            &format!("{name}.jsonl.zstd"),
            &to_zstd(&text).0,
        ));
        for v in [2, 4, 17] {
            let path = dir.path().join(format!("{name}-v{v}.db"));
            to_sqlite(&path, v, &text, &want);
            files.push(path);
        }
        let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let args = |f: &PathBuf, cmd: &'static str| -> Vec<String> {
            vec![
                cmd.into(),
                f.to_string_lossy().into_owned(),
                "--json".into(),
            ]
        };
        let run = |f: &PathBuf, cmd| {
            let a = args(f, cmd);
            cli_json(&a.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let surface = run(&files[0], "surface");
        let check = comparable_check(run(&files[0], "check"));
        for f in &files[1..] {
            assert_eq!(
                run(f, "surface"),
                surface,
                "{name}: surface of {}",
                f.display()
            );
            assert_eq!(
                comparable_check(run(f, "check")),
                check,
                "{name}: check of {}",
                f.display()
            );
        }
        for (f, bytes) in files.iter().zip(before) {
            assert_eq!(
                std::fs::read(f).unwrap(),
                bytes,
                "{} unchanged",
                f.display()
            );
        }
    }
}
