//! The hostile-input catalogue (JSONL part): each input gives findings or one clear error
//! naming the file, exit 2 only when nothing could be read, never a panic, and the file is
//! byte-identical afterwards.

use crate::binary::bin;
use crate::common;
use crate::invariants;

use std::process::Output;

use common::*;
use serde_json::Value;

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
}

fn run_on(bytes: &[u8], args: &[&str]) -> (Output, tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let mut full = vec![args[0], path.to_str().unwrap()];
    full.extend_from_slice(&args[1..]);
    let out = bin().args(&full).output().unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the viewer never writes the file"
    );
    (out, dir, path)
}

fn rules_of(out: &Output) -> Vec<String> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// 4 KiB of xorshift bytes.
fn garbage() -> Vec<u8> {
    let mut garbage = Vec::new();
    let mut x: u32 = 7;
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push((x & 0xff) as u8);
    }
    garbage
}

/// A log of one message whose text is 20 MiB.
fn big_line() -> Vec<u8> {
    format!(
        "{HEADER}\n{{\"type\":\"user/message\",\"seq\":0,\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}},\"surfaceOp\":\"append\"}}\n",
        "a".repeat(20 << 20)
    )
    .into_bytes()
}

/// A log of one event whose `data` nests 100,000 arrays.
fn deeply_nested() -> Vec<u8> {
    format!(
        "{HEADER}\n{{\"type\":\"x\",\"seq\":0,\"data\":{}{}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    )
    .into_bytes()
}

/// A log whose first event holds bytes that are not UTF-8, then a message.
fn non_utf8() -> Vec<u8> {
    let mut non_utf8 = format!("{HEADER}\n").into_bytes();
    non_utf8.extend_from_slice(b"{\"type\":\"x\",\"seq\":0,\"data\":\"\xff\xfe\"}\n");
    non_utf8.extend_from_slice(msg(1, "append", None).as_bytes());
    non_utf8.push(b'\n');
    non_utf8
}

fn catalogue() -> Vec<Case> {
    let png =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89".to_vec();
    vec![
        Case {
            name: "empty",
            bytes: Vec::new(),
        },
        Case {
            name: "garbage",
            bytes: garbage(),
        },
        Case {
            name: "png",
            bytes: png,
        },
        Case {
            name: "header-only",
            bytes: format!("{HEADER}\n").into_bytes(),
        },
        Case {
            name: "unknown-version",
            bytes: format!(
                "{{\"type\":\"session\",\"version\":99,\"id\":\"x\",\"createdAt\":1}}\n{}\n",
                msg(0, "append", None)
            )
            .into_bytes(),
        },
        Case {
            name: "non-utf8",
            bytes: non_utf8(),
        },
        Case {
            name: "20mb-line",
            bytes: big_line(),
        },
        Case {
            name: "deeply-nested",
            bytes: deeply_nested(),
        },
        Case {
            name: "duplicate-and-decreasing-seqs",
            bytes: text_of(&[
                msg(0, "append", None),
                msg(0, "append", None),
                msg(2, "append", None),
                msg(1, "append", None),
            ])
            .into_bytes(),
        },
        Case {
            name: "every-malformed-op",
            bytes: text_of(&[
                msg(0, "append", None),
                msg(1, "\"prepend\"", None),
                msg(2, r#"{"op":"delete","start":0,"end":0}"#, None),
                msg(3, r#"{"op":"replace"}"#, None),
                msg(4, r#"{"op":"replace","start":-1,"end":0}"#, None),
                msg(5, r#"{"op":"replace","start":0.5,"end":0}"#, None),
                msg(6, r#"{"op":"replace","start":"0","end":0}"#, None),
                msg(7, r#"{"op":"replace","start":0,"end":true}"#, None),
                msg(8, "[1]", None),
                msg(9, "42", None),
                msg(
                    10,
                    r#"{"op":"replace","start":0,"end":18446744073709551616}"#,
                    None,
                ),
            ])
            .into_bytes(),
        },
        Case {
            name: "provenance-loops-and-forward",
            bytes: text_of(&[
                msg(0, "append", Some("[1]")),
                msg(1, "append", Some("[0]")),
                msg(2, "append", Some("[2]")),
                msg(3, "append", Some("[9]")),
                msg(4, "append", Some("\"x\"")),
            ])
            .into_bytes(),
        },
    ]
}

#[test]
fn every_hostile_input_ends_in_findings_or_one_clear_error() {
    for case in catalogue() {
        for args in [
            vec!["check", "--json"],
            vec!["surface", "--json"],
            vec!["messages"],
            vec!["policy", "--json"],
            vec!["policy", "--what-if", "--json"],
        ] {
            let (out, _dir, path) = run_on(&case.bytes, &args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{}: {stderr}", case.name);
            match out.status.code() {
                Some(2) => {
                    assert_eq!(stderr.lines().count(), 1, "{}: {stderr}", case.name);
                    assert!(
                        stderr.contains(path.to_str().unwrap()),
                        "{}: {stderr}",
                        case.name
                    );
                }
                Some(code @ (0 | 1)) => {
                    let v = serde_json::from_slice::<Value>(&out.stdout);
                    assert!(v.is_ok(), "{}", case.name);
                    if args[0] == "check" {
                        // Exit 1 exactly when a finding is an error, and every finding's line
                        // is one of the file's.
                        let findings = v.unwrap()["findings"].as_array().cloned().unwrap();
                        let errors = findings.iter().filter(|f| f["severity"] == "error");
                        assert_eq!(code == 1, errors.count() > 0, "{}", case.name);
                        let lines = case.bytes.split(|&b| b == b'\n').count() as u64;
                        for f in &findings {
                            let line = f["line"].as_u64();
                            assert!(
                                line.is_none_or(|l| (1..=lines).contains(&l)),
                                "{}: {f}",
                                case.name
                            );
                        }
                    }
                }
                other => panic!("{}: exit {other:?} {stderr}", case.name),
            }
        }
    }
}

#[test]
fn every_hostile_input_read_by_the_library_holds_the_log_invariants() {
    let mut read = 0;
    for case in catalogue() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hostile.jsonl");
        std::fs::write(&path, &case.bytes).unwrap();
        // (The cases that are not read at all are the command line's exit 2, tested above.)
        if let Ok(opened) = surface_store::open(&path, &surface_store::Options::default()) {
            invariants::assert_log_invariants(&opened.log, case.name);
            read += 1;
        }
    }
    assert!(read > 3, "only {read} hostile inputs were read");
}

#[test]
fn each_case_reports_what_it_should() {
    let by_name = |n: &str| catalogue().into_iter().find(|c| c.name == n).unwrap().bytes;
    for unreadable in ["empty", "garbage", "png"] {
        let (out, ..) = run_on(&by_name(unreadable), &["check", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{unreadable}");
    }
    let (out, ..) = run_on(&by_name("header-only"), &["check", "--json"]);
    assert_eq!((out.status.code(), rules_of(&out)), (Some(0), vec![]));
    let (out, ..) = run_on(&by_name("unknown-version"), &["check", "--json"]);
    assert_eq!(rules_of(&out), ["header.version"]);
    let (out, ..) = run_on(&by_name("non-utf8"), &["check", "--json"]);
    assert_eq!(rules_of(&out), ["line.torn-tail"]);
    let (out, ..) = run_on(&by_name("20mb-line"), &["surface", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"][0]["seq"], 0);
    // The envelope is read without recursing into `data`; the event is kept and shown, and
    // only a JSON tree of its payload (depth-limited) is unavailable.
    let (out, ..) = run_on(&by_name("deeply-nested"), &["check", "--json"]);
    assert_eq!(rules_of(&out), Vec::<String>::new());
    let (out, ..) = run_on(
        &by_name("duplicate-and-decreasing-seqs"),
        &["check", "--json"],
    );
    assert_eq!(
        rules_of(&out),
        ["seq.not-increasing", "seq.gap", "seq.not-increasing"]
    );
    let (out, ..) = run_on(&by_name("every-malformed-op"), &["check", "--json"]);
    let rules = rules_of(&out);
    assert_eq!(
        rules
            .iter()
            .filter(|r| *r == "surface.op-malformed")
            .count(),
        10,
        "{rules:?}"
    );
    let (out, ..) = run_on(
        &by_name("provenance-loops-and-forward"),
        &["check", "--json"],
    );
    assert_eq!(
        rules_of(&out),
        [
            "provenance.forward",
            "provenance.forward",
            "provenance.forward",
            "provenance.unknown",
            "provenance.malformed"
        ]
    );
}

#[test]
fn a_locked_database_is_one_clear_error_and_stays_locked_by_its_owner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.db");
    let owner = rusqlite::Connection::open(&path).unwrap();
    owner
        .execute_batch(
            "PRAGMA journal_mode=DELETE; PRAGMA user_version=4;
             CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL,
               cwd TEXT, parent_session TEXT, seed_length INTEGER);
             CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
               time INTEGER NOT NULL, data TEXT NOT NULL, source_event_seqs TEXT, surface_op TEXT,
               PRIMARY KEY (session_id, seq));
             INSERT INTO sessions VALUES ('s', 0, 1, NULL, NULL, NULL);
             BEGIN EXCLUSIVE;
             INSERT INTO events VALUES ('s', 0, 'turn/start', 1, '{}', NULL, NULL);",
        )
        .unwrap();
    let out = bin()
        .args(["check", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("locked.db") && stderr.contains("locked"),
        "{stderr}"
    );
    // The owner's transaction was never disturbed.
    owner.execute_batch("COMMIT").unwrap();
    let n: i64 = owner
        .query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn previewing_and_repairing_leave_the_file_byte_identical() {
    let text = text_of(&[
        other(0, "turn/start", r#"{"turn":1}"#),
        msg(1, "append", None),
        msg(2, "append", None),
    ]);
    for args in [
        vec!["preview", "--start", "1", "--end", "2", "--json"],
        vec!["surface", "--repair", "--json"],
        vec!["messages", "--repair"],
    ] {
        let (out, ..) = run_on(text.as_bytes(), &args);
        assert!(out.status.code().is_some_and(|c| c < 2), "{args:?}");
    }
}
