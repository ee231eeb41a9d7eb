//! Helpers shared by the scenario tests: fixture paths and a compact way to write small logs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use surface_engine::{EventLog, Surface};
use surface_store::read_jsonl;

/// The repository's root (the test binary's manifest folder).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The upstream fixtures folder (`tests/fixtures/upstream`, copied byte for byte from the harness).
pub fn upstream_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upstream")
}

/// Every upstream fixture file.
pub fn upstream_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(upstream_dir()).expect("fixtures dir") {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "jsonl") {
                    out.push(f);
                }
            }
        }
    }
    out.sort();
    out
}

/// One upstream fixture by relative path.
pub fn upstream(rel: &str) -> PathBuf {
    upstream_dir().join(rel)
}

/// Reads a log from JSONL text.
pub fn log_of(text: &str) -> EventLog {
    read_jsonl(text.as_bytes().to_vec(), None).expect("not cancelled")
}

/// A header line.
pub const HEADER: &str = r#"{"type":"session","version":0,"id":"t","createdAt":1}"#;

/// A message event line: `msg(seq, "append")`, `msg(seq, r#"{"op":"replace","start":1,"end":2}"#)`.
pub fn msg(seq: u64, op: &str, sources: Option<&str>) -> String {
    let src = sources
        .map(|s| format!(r#","sourceEventSeqs":{s}"#))
        .unwrap_or_default();
    let op = if op.is_empty() {
        String::new()
    } else if op.starts_with('{') || op.starts_with('"') || op == "null" {
        format!(r#","surfaceOp":{op}"#)
    } else {
        format!(r#","surfaceOp":"{op}""#)
    };
    format!(
        r#"{{"type":"user/message","seq":{seq},"time":{seq},"data":{{"content":[{{"type":"text","text":"m{seq}"}}],"source":{{"kind":"user"}}}}{src}{op}}}"#
    )
}

/// A non-surface event line.
pub fn other(seq: u64, type_name: &str, data: &str) -> String {
    format!(r#"{{"type":"{type_name}","seq":{seq},"time":{seq},"data":{data}}}"#)
}

/// Joins lines with a header into a log text (newline-terminated).
pub fn text_of(lines: &[String]) -> String {
    let mut t = String::from(HEADER);
    t.push('\n');
    for l in lines {
        t.push_str(l);
        t.push('\n');
    }
    t
}

/// Surface node seqs at the end.
pub fn node_seqs(log: &EventLog, surface: &Surface) -> Vec<u64> {
    surface.nodes().map(|i| log.event(i).seq).collect()
}

/// Writes a valid log of at least `min_bytes` (large logs are the ones mapped), with a replace
/// so the surface rules have something to do.
pub fn write_large_log(path: &Path, min_bytes: usize) {
    let filler = "lorem ipsum dolor sit amet ".repeat(20);
    let mut text = format!("{HEADER}\n");
    let mut seq = 0u64;
    while text.len() < min_bytes {
        let op = if seq > 0 && seq.is_multiple_of(1000) {
            format!(
                r#","surfaceOp":{{"op":"replace","start":{},"end":{}}},"sourceEventSeqs":[{},{}]"#,
                seq - 2,
                seq - 1,
                seq - 2,
                seq - 1
            )
        } else {
            r#","surfaceOp":"append""#.to_string()
        };
        text.push_str(&format!(
            r#"{{"type":"user/message","seq":{seq},"time":{seq},"data":{{"content":[{{"type":"text","text":"m{seq} {filler}"}}],"source":{{"kind":"user"}}}}{op}}}"#
        ));
        text.push('\n');
        seq += 1;
    }
    std::fs::write(path, text).unwrap();
}
