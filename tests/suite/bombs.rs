//! Decompression bombs and oversized input, built in the test: a Zstandard log whose one line
//! decompresses past the per-event limit (a few kilobytes holding 600 MiB), one whose text
//! passes the total limit (`--max-bytes`), a SQLite store and a plain log past it. Every
//! command that reads logs ends within seconds — exit 1 with a `line.too-long` finding, or
//! exit 2 with one line naming the file and the limit — never an abort, and with bounded
//! memory (each child's peak resident size is measured with `wait4`). The sessions listing
//! lists a folder that holds a bomb.

use crate::binary::bin;
use crate::common;

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use surface_store::{ReadLimits, StoreError};

/// What a run of the binary gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak resident memory of the child, in bytes.
    peak: u64,
    elapsed: Duration,
}

/// Runs the binary with `args`, measuring its own peak resident memory (`wait4`).
#[allow(
    clippy::zombie_processes,
    reason = "the child is reaped by `wait4`, which also gives its resource usage"
)]
fn run(args: &[&str]) -> Run {
    let started = Instant::now();
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut status = 0;
    // SAFETY: a zeroed `rusage` is a valid value for `wait4` to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child (its pid from `spawn`) with valid pointers to fill.
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, child.id() as libc::pid_t);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Run {
        code,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        // `ru_maxrss` is in KiB on Linux.
        peak: usage.ru_maxrss as u64 * 1024,
        elapsed: started.elapsed(),
    }
}

impl Run {
    fn context(&self, what: &str) -> String {
        format!(
            "{what}: exit {:?} after {:?}, peak {} MiB\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.elapsed,
            self.peak >> 20,
            self.stdout.chars().take(2000).collect::<String>(),
            self.stderr
        )
    }
}

/// A Zstandard session log: the header in a frame of its own, then `body` streamed into a
/// second frame (`zstd::stream::Encoder`, so the frame declares no content size).
fn zstd_log(body: impl FnOnce(&mut zstd::stream::Encoder<'static, Vec<u8>>)) -> Vec<u8> {
    let mut file = zstd::bulk::compress(format!("{}\n", common::HEADER).as_bytes(), 3).unwrap();
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    body(&mut encoder);
    file.extend(encoder.finish().unwrap());
    file
}

/// `bytes` of one repeated byte, a MiB at a time.
fn repeat(encoder: &mut impl std::io::Write, byte: u8, bytes: u64) {
    let block = vec![byte; 1 << 20];
    for _ in 0..bytes >> 20 {
        encoder.write_all(&block).unwrap();
    }
}

/// A log whose second line is one event of `line` bytes (a text of one repeated letter), then
/// a `turn/end`.
fn long_line_log(line: u64) -> Vec<u8> {
    zstd_log(|e| {
        e.write_all(br#"{"type":"user/message","seq":0,"surfaceOp":"append","data":{"text":""#)
            .unwrap();
        repeat(e, b'a', line);
        e.write_all(b"\"}}\n").unwrap();
        e.write_all(br#"{"type":"turn/end","seq":1,"time":2,"data":{"turn":1}}"#)
            .unwrap();
        e.write_all(b"\n").unwrap();
    })
}

/// A log of one request whose user message is a line of `line` bytes: the header, the message
/// (line 3, after the turn's start), then its one step that ends, so every command has something to show.
fn long_request_log(line: u64) -> Vec<u8> {
    zstd_log(|e| {
        e.write_all(br#"{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}"#)
            .unwrap();
        e.write_all(b"\n").unwrap();
        e.write_all(br#"{"type":"user/message","seq":1,"surfaceOp":"append","data":{"text":""#)
            .unwrap();
        repeat(e, b'a', line);
        e.write_all(b"\"}}\n").unwrap();
        for (seq, event) in [
            (2, r#""step/start","data":{"turn":1,"step":1}"#),
            (3, r#""step/end","data":{"turn":1,"step":1}"#),
            (4, r#""turn/end","data":{"turn":1}"#),
        ] {
            let line = format!("{{\"type\":{event},\"seq\":{seq},\"time\":{}}}\n", seq + 1);
            e.write_all(line.as_bytes()).unwrap();
        }
    })
}

/// A log whose text, once decompressed, is `bytes` of blank lines after its header.
fn blank_lines_log(bytes: u64) -> Vec<u8> {
    zstd_log(|e| repeat(e, b'\n', bytes))
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Generous for a loaded CI machine; the real figures are seconds less (README).
const QUICK: Duration = Duration::from_secs(60);

#[test]
fn a_line_decompressing_past_the_event_limit_is_a_finding_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = long_line_log(600 << 20);
    assert!(bytes.len() < 64 << 10, "a {} byte file", bytes.len());
    let path = write(dir.path(), "long-line.jsonl.zstd", &bytes);
    let file = path.to_str().unwrap();

    let check = run(&["check", file, "--json"]);
    let context = check.context("check");
    assert_eq!(check.code, Some(1), "{context}");
    assert!(check.elapsed < QUICK, "{context}");
    // The line is dropped as soon as it passes 512 MiB: never all of its 600 MiB in memory.
    assert!(check.peak < 1200 << 20, "{context}");
    let report: Value = serde_json::from_str(&check.stdout).unwrap();
    let long: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "line.too-long")
        .collect();
    assert_eq!(long.len(), 1, "{context}");
    assert_eq!(long[0]["severity"], "error");
    assert_eq!(long[0]["line"], 2);
    let message = long[0]["message"].as_str().unwrap();
    assert!(
        message.contains("per-event limit of 536870912 bytes (512 MiB)"),
        "{message}"
    );
    assert_eq!(report["events"], 1, "the event after the long line is read");

    let surface = run(&["surface", file, "--json"]);
    assert_eq!(surface.code, Some(0), "{}", surface.context("surface"));
    let sessions = run(&["sessions", file]);
    assert_eq!(sessions.code, Some(0), "{}", sessions.context("sessions"));
}

#[test]
fn text_past_the_total_limit_is_one_line_naming_the_file_and_the_limit_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = blank_lines_log(64 << 20);
    assert!(bytes.len() < 64 << 10, "a {} byte file", bytes.len());
    let path = write(dir.path(), "blank.jsonl.zstd", &bytes);
    let file = path.to_str().unwrap();
    let expected = format!(
        "surface-viewer: error: {file}: holds more than 16777216 bytes (16 MiB) of session text once decompressed"
    );
    for args in [
        &["check", file, "--max-bytes", "16M"][..],
        &["surface", file, "--max-bytes", "16M"][..],
        &["tokens", file, "--max-bytes", "16M"][..],
        &["sessions", file, "--max-bytes", "16M"][..],
    ] {
        let r = run(args);
        let context = r.context(args[0]);
        assert_eq!(r.code, Some(2), "{context}");
        assert!(r.stderr.starts_with(&expected), "{context}");
        assert_eq!(r.stderr.lines().count(), 1, "{context}");
        assert!(r.stderr.contains("--max-bytes"), "{context}");
        assert!(r.elapsed < QUICK, "{context}");
        assert!(r.peak < 256 << 20, "{context}");
    }
    // Within a larger limit the same file reads (blank lines: a header, no event).
    let r = run(&["check", file, "--max-bytes", "65M"]);
    assert_eq!(r.code, Some(0), "{}", r.context("check within the limit"));
}

#[test]
fn a_folder_holding_a_bomb_is_listed_and_checked_with_the_bomb_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = write(dir.path(), "bomb.jsonl.zstd", &blank_lines_log(64 << 20));
    common::write_large_log(&dir.path().join("good.jsonl"), 4 << 10);
    let root = dir.path().to_str().unwrap();

    let sessions = run(&["sessions", root, "--max-bytes", "16M"]);
    let context = sessions.context("sessions DIR");
    assert_eq!(sessions.code, Some(0), "{context}");
    assert!(
        sessions.stdout.contains("unreadable:") && sessions.stdout.contains("16 MiB"),
        "{context}"
    );
    assert!(sessions.stdout.contains("2 sessions under"), "{context}");
    assert!(sessions.peak < 256 << 20, "{context}");

    let check = run(&["check", root, "--max-bytes", "16M"]);
    let context = check.context("check DIR");
    assert_eq!(check.code, Some(1), "one session unreadable: {context}");
    assert!(
        check
            .stdout
            .contains(&format!("{}: unreadable: ", bomb.display())),
        "{context}"
    );

    // The viewer's browser goes through the same calls: the bomb is listed, its figures are
    // the error naming the limit.
    let limits = ReadLimits::default().with_total_bytes(16 << 20);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let found =
        surface_store::find_sessions_within(dir.path(), 2, &limits, &cancel, |_, _| {}).unwrap();
    assert_eq!(found.sessions.len(), 2, "{:?}", found.unreadable);
    let entry = found.sessions.iter().find(|s| s.file == bomb).unwrap();
    let figures = surface_store::read_figures_within(&entry.file, None, &limits);
    assert!(
        matches!(figures, Err(StoreError::TooLarge { limit, .. }) if limit == 16 << 20),
        "{figures:?}"
    );
}

#[test]
fn sqlite_and_plain_logs_past_the_total_exit_2_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = surface_synth::StoreConfig {
        sessions: 1,
        projects: 1,
        events: 200,
        fork_every: 0,
        zstd_every: 0,
        sqlite_sessions: 1,
        seed: 7,
    };
    surface_synth::write_store(dir.path(), &config).unwrap();
    let db = dir.path().join("sessions.db");
    let plain = dir.path().join("plain.jsonl");
    common::write_large_log(&plain, 64 << 10);
    for file in [&db, &plain] {
        let file = file.to_str().unwrap();
        let r = run(&["check", file, "--max-bytes", "4K"]);
        let context = r.context(file);
        assert_eq!(r.code, Some(2), "{context}");
        assert!(r.stderr.contains("4096 bytes (4 KiB)"), "{context}");
        assert_eq!(r.stderr.lines().count(), 1, "{context}");
        // The default limits read them.
        let r = run(&["check", file]);
        assert!(matches!(r.code, Some(0 | 1)), "{}", r.context(file));
    }
}

#[test]
fn max_bytes_takes_byte_counts_and_refuses_nonsense() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.jsonl");
    common::write_large_log(&plain, 4 << 10);
    let file = plain.to_str().unwrap();
    for good in ["1000000", "2G", "512M", "1.5g"] {
        let r = run(&["check", file, "--max-bytes", good]);
        assert!(matches!(r.code, Some(0 | 1)), "{}", r.context(good));
    }
    for bad in ["0", "lots", "1.2.3", "12X"] {
        let r = run(&["check", file, "--max-bytes", bad]);
        let context = r.context(bad);
        assert_eq!(r.code, Some(2), "{context}");
        assert!(r.stderr.contains("--max-bytes"), "{context}");
    }
}

/// Every command that reads a log says, in one stderr line, the file, the line and the limit
/// of a record it skipped, and its JSON lists it under `skipped` — `check` says it as a finding.
/// The skipped line is 3 GB inside a file of kilobytes; every command stays within bounded
/// memory.
#[test]
fn every_command_says_the_line_it_skipped_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = long_request_log(3_000_000_000);
    assert!(bytes.len() < 512 << 10, "a {} byte file", bytes.len());
    let folder = dir.path().join("runs");
    std::fs::create_dir(&folder).unwrap();
    let path = write(&folder, "long.jsonl.zstd", &bytes);
    let file = path.to_str().unwrap();
    let runs = folder.to_str().unwrap();
    let out = dir.path().join("export");
    let out = out.to_str().unwrap();
    let json_commands: [(&str, Vec<&str>, &str); 12] = [
        ("surface", vec!["surface", file, "--json"], "/skipped"),
        ("request", vec!["request", file, "--json"], "/skipped"),
        ("tokens", vec!["tokens", file, "--json"], "/skipped"),
        ("audit", vec!["audit", file, "--json"], "/skipped"),
        ("policy", vec!["policy", file, "--json"], "/skipped"),
        ("cost", vec!["cost", file, "--json"], "/skipped"),
        (
            "compare",
            vec!["compare", file, file, "--json"],
            "/a/skipped",
        ),
        ("sessions", vec!["sessions", file, "--json"], "/0/skipped"),
        (
            "policy DIR",
            vec!["policy", runs, "--json"],
            "/sessions/0/skipped",
        ),
        (
            "cost DIR",
            vec!["cost", runs, "--json"],
            "/sessions/0/skipped",
        ),
        (
            "sessions DIR",
            vec!["sessions", runs, "--json"],
            "/sessions/0/figures/skipped",
        ),
        (
            "tune",
            vec!["tune", runs, "--json"],
            "/sessions_list/0/skipped",
        ),
    ];
    for (what, args, pointer) in json_commands {
        let r = run(&args);
        let context = r.context(what);
        assert!(matches!(r.code, Some(0 | 1)), "{context}");
        // `compare` reads the file twice, as A and as B, and says so for each.
        let times = if what == "compare" { 2 } else { 1 };
        assert_says_the_skipped_line(&r, file, times, &context);
        let doc: Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {context}"));
        let skipped = doc.pointer(pointer).and_then(Value::as_array);
        let skipped = skipped.unwrap_or_else(|| panic!("no {pointer}: {context}"));
        assert_eq!(skipped.len(), 1, "{context}");
        assert_eq!(skipped[0]["line"], 3, "{context}");
        assert!(
            skipped[0]["bytes"].as_u64() > Some(2_900_000_000),
            "{context}"
        );
        assert_eq!(skipped[0]["reason"], "too-long", "{context}");
    }
    for (what, args) in [
        ("messages", vec!["messages", file]),
        ("export", vec!["export", file, "--to", out]),
    ] {
        let r = run(&args);
        let context = r.context(what);
        assert!(matches!(r.code, Some(0 | 1)), "{context}");
        assert_says_the_skipped_line(&r, file, 1, &context);
    }
    let sessions = run(&["sessions", file]);
    assert!(
        sessions
            .stdout
            .lines()
            .nth(1)
            .is_some_and(|l| l.split_whitespace().nth(3) == Some("1")),
        "the session's one error is counted: {}",
        sessions.context("sessions")
    );
}

/// `times` warning lines on stderr (one per reading of the file), each naming the file, line 3
/// and the 512 MiB limit, and the command within bounded time and memory.
fn assert_says_the_skipped_line(r: &Run, file: &str, times: usize, context: &str) {
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("warning:"))
        .collect();
    assert_eq!(warnings.len(), times, "{context}");
    for w in warnings {
        assert!(
            w.contains(file) && w.contains("line 3") && w.contains("512 MiB"),
            "{context}"
        );
    }
    assert!(r.elapsed < QUICK, "{context}");
    assert!(r.peak < 1200 << 20, "{context}");
}
