//! `surface-viewer mcp` driven over stdio as a client would (docs/mcp.md): each tool's
//! structured result equals the command line's `--json` of the same file; a cursor walk over a
//! long surface returns every node once; a path out of the roots (`..`, an absolute path, a
//! symlink) is refused and never read; every bad input is one error sentence and the next call
//! is served; a session of calls leaves the root's files as they were; the crates keep their
//! layers. The official Python client's check (`tests/mcp/client_check.py`) runs where Python
//! has the `mcp` package, and must where `SURFACE_VIEWER_REQUIRE_MCP` is set (`.ci/run`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::binary::bin;
use crate::common;

const UPSTREAM: &str = "upstream/v0-2026-08-20-head/compaction-recovery.session.jsonl";
const P01: &str = "policy/p01.jsonl";
const P02: &str = "policy/p02.jsonl";
const PRICES: &str = "prices/deepseek.json";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A server on stdio and a minimal JSON-RPC client.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(roots: &[&Path]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_surface-viewer"));
        command.arg("mcp");
        for root in roots {
            command.arg("--root").arg(root);
        }
        let mut child = command
            .current_dir(roots[0])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let info = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "suite", "version": "1"}}),
        );
        assert_eq!(info["serverInfo"]["name"], "surface-viewer", "{info}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    /// A tool call's result (`isError`, `content`, `structuredContent`).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A call that must succeed: its structured result.
    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone());
        assert_eq!(result["isError"], false, "{tool} {arguments}: {result}");
        let summary = result["content"][0]["text"].as_str().unwrap();
        assert!(!summary.trim().is_empty(), "{tool}: no summary");
        result["structuredContent"].clone()
    }

    /// A call that must fail: its one sentence.
    fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments.clone());
        assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap().to_string();
        assert_eq!(text.lines().count(), 1, "{text}");
        text
    }

    /// Closes stdin: the server must exit 0.
    fn close(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

/// The command line's `--json` run from `root`.
fn cli_json(root: &Path, args: &[&str]) -> Value {
    let out = bin().current_dir(root).args(args).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The server's rule for long payload strings (docs/mcp.md), applied to the command line's
/// document: past 4096 bytes, the first 4096 (at a character boundary) and the length.
fn shortened(v: Value) -> Value {
    match v {
        Value::String(s) if s.len() > 4096 => {
            let mut end = 4096;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            Value::String(format!(
                "{}… [shortened: {} bytes in all]",
                &s[..end],
                s.len()
            ))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(shortened).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, shortened(v))).collect())
        }
        other => other,
    }
}

/// Where two documents first differ, as a path, or `None`.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, &format!("{path}.{k}")),
                _ => Some(format!("{path}.{k}: on one side only")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!(
            "{path}: {:.200} vs {:.200}",
            a.to_string(),
            b.to_string()
        )),
    }
}

#[test]
fn every_tool_answers_with_the_command_lines_json() {
    let root = fixtures();
    let mut server = Server::start(&[&root]);
    let listed = server.request("tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "sessions", "check", "surface", "messages", "request", "events", "audit", "policy",
            "cost", "compare", "tune"
        ]
    );
    let whole = 1u64 << 40;
    let cases: Vec<(&str, Value, Vec<&str>, Option<&str>)> = vec![
        (
            "sessions",
            json!({"path": UPSTREAM}),
            vec!["sessions", UPSTREAM, "--json"],
            Some("sessions"),
        ),
        (
            "check",
            json!({"path": P01}),
            vec!["check", P01, "--json"],
            None,
        ),
        (
            "surface",
            json!({"path": P01, "at": 200}),
            vec!["surface", P01, "--at", "200", "--json"],
            None,
        ),
        (
            "messages",
            json!({"path": UPSTREAM, "at": 20}),
            vec!["messages", UPSTREAM, "--at", "20"],
            Some("messages"),
        ),
        (
            "request",
            json!({"path": P01, "threshold_ratio": 0.6}),
            vec!["request", P01, "--threshold-ratio", "0.6", "--json"],
            None,
        ),
        (
            "audit",
            json!({"path": UPSTREAM}),
            vec!["audit", UPSTREAM, "--json"],
            None,
        ),
        (
            "policy",
            json!({"path": P02, "what_if": true, "retain_tokens": 2000}),
            vec![
                "policy",
                P02,
                "--what-if",
                "--retain-tokens",
                "2000",
                "--json",
            ],
            None,
        ),
        (
            "cost",
            json!({"path": P02, "prices": PRICES}),
            vec!["cost", P02, "--prices", PRICES, "--json"],
            None,
        ),
        (
            "compare",
            json!({"a": P01, "b": P02, "prices": PRICES}),
            vec!["compare", P01, P02, "--prices", PRICES, "--json"],
            None,
        ),
        (
            "tune",
            json!({"paths": [P01], "grid": ["retain_ratio=0.1,0.2"]}),
            vec!["tune", P01, "--grid", "retain_ratio=0.1,0.2", "--json"],
            None,
        ),
    ];
    for (tool, mut args, cli, wrap) in cases {
        args["max_bytes"] = json!(whole);
        let got = server.ok(tool, args.clone());
        let mut expected = shortened(cli_json(&root, &cli));
        if let Some(key) = wrap {
            expected = json!({ key: expected });
        }
        let difference = first_difference(&got, &expected, "$");
        assert!(
            difference.is_none(),
            "{tool} {args} vs {cli:?}: {difference:?}"
        );
    }
    server.close();
}

fn text_lines(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join(UPSTREAM)).unwrap();
    text.lines().map(str::to_string).collect()
}

#[test]
fn events_are_the_logs_own_lines_by_range_and_by_text() {
    let root = fixtures();
    let mut server = Server::start(&[&root]);
    let lines: Vec<Value> = text_lines(&root)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got = server.ok("events", json!({"path": UPSTREAM, "from": 2, "to": 5}));
    let expected: Vec<&Value> = lines
        .iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| (2..=5).contains(&s)))
        .collect();
    let events: Vec<&Value> = got["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["event"])
        .collect();
    assert_eq!(events, expected);
    // A text search: the events whose JSON holds the text, ASCII letters in any case.
    let found = server.ok("events", json!({"path": UPSTREAM, "query": "COMPACTION/"}));
    let seqs: Vec<u64> = found["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["seq"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = text_lines(&root)
        .iter()
        .filter(|l| l.to_ascii_lowercase().contains("compaction/"))
        .filter_map(|l| serde_json::from_str::<Value>(l).unwrap()["seq"].as_u64())
        .collect();
    assert!(!seqs.is_empty());
    assert_eq!(seqs, expected);
    server.close();
}

#[test]
fn a_cursor_walk_over_a_long_surface_returns_every_node_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("long.jsonl");
    common::write_large_log(&log, 400_000);
    let mut server = Server::start(&[dir.path()]);
    let expected = cli_json(dir.path(), &["surface", "long.jsonl", "--json"]);
    let all = expected["nodes"].as_array().unwrap();
    assert!(all.len() > 500, "{}", all.len());
    let (mut nodes, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut args = json!({"path": "long.jsonl", "max_bytes": 8192});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = server.ok("surface", args);
        assert!(page.to_string().len() <= 8192, "{}", page.to_string().len());
        nodes.extend(page["nodes"].as_array().unwrap().iter().cloned());
        pages += 1;
        match page.get("next_cursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(&nodes, all, "after {pages} pages");
    assert!(pages > 3);
    server.close();
}

#[test]
fn a_cursor_walks_every_list_of_a_document_within_the_bound() {
    let root = fixtures();
    let mut server = Server::start(&[&root]);
    for (tool, lists) in [
        ("cost", &["calls", "compactions", "turns"][..]),
        ("audit", &["replaces", "failed"][..]),
    ] {
        let expected = cli_json(&root, &[tool, P02, "--json"]);
        let mut got: Vec<Vec<Value>> = vec![Vec::new(); lists.len()];
        let (mut cursor, mut pages) = (None::<String>, 0);
        loop {
            let mut args = json!({"path": P02, "max_bytes": 6000});
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let page = server.ok(tool, args);
            assert!(
                page.to_string().len() <= 6000,
                "{tool}: {}",
                page.to_string().len()
            );
            for (list, items) in lists.iter().zip(&mut got) {
                items.extend(page[list].as_array().unwrap().iter().cloned());
            }
            pages += 1;
            match page.get("next_cursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
                None => break,
            }
        }
        for (list, items) in lists.iter().zip(&got) {
            let want = shortened(expected[list].clone());
            assert_eq!(&Value::Array(items.clone()), &want, "{tool}.{list}");
        }
        assert!(pages > 2, "{tool}: {pages} pages");
    }
    server.close();
}

#[test]
fn paths_outside_the_roots_are_refused_and_never_read() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::copy(fixtures().join(UPSTREAM), root.join("in.jsonl")).unwrap();
    // Outside: a FIFO, so that opening it would hang the server instead of passing silently.
    let secret = outer.path().join("secret.jsonl");
    let fifo = std::ffi::CString::new(secret.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink(&secret, root.join("link.jsonl")).unwrap();
    let mut server = Server::start(&[&root]);
    for path in ["../secret.jsonl", "link.jsonl", secret.to_str().unwrap()] {
        for tool in ["check", "surface", "events"] {
            let e = server.refused(tool, json!({"path": path}));
            assert!(
                e.starts_with(path) && e.contains("outside the roots"),
                "{e}"
            );
        }
    }
    let e = server.refused(
        "cost",
        json!({"path": "in.jsonl", "prices": "../secret.jsonl"}),
    );
    assert!(e.contains("outside the roots"), "{e}");
    let e = server.refused("compare", json!({"a": "in.jsonl", "b": "link.jsonl"}));
    assert!(e.contains("outside the roots"), "{e}");
    server.ok("check", json!({"path": "in.jsonl"}));
    server.close();
}

/// Every string of `v` with `prefix` taken off its start.
fn without_prefix(v: Value, prefix: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.strip_prefix(prefix).unwrap_or(&s).to_string()),
        Value::Array(a) => a.into_iter().map(|x| without_prefix(x, prefix)).collect(),
        Value::Object(o) => (o.into_iter())
            .map(|(k, x)| (k, without_prefix(x, prefix)))
            .collect(),
        other => other,
    }
}

#[test]
fn a_folder_lists_as_sessions_dir_and_no_link_out_of_the_roots_is_followed() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let away = outer.path().join("away");
    std::fs::create_dir_all(root.join("runs")).unwrap();
    std::fs::create_dir(&away).unwrap();
    for (from, to) in [(P01, "runs/p01.jsonl"), (UPSTREAM, "runs/up.jsonl")] {
        std::fs::copy(fixtures().join(from), root.join(to)).unwrap();
    }
    let mut server = Server::start(&[&root]);
    let got = server.ok("sessions", json!({"path": "runs", "max_bytes": 1u64 << 40}));
    let expected = cli_json(&root, &["sessions", "runs", "--json"]);
    let canonical = format!("{}/", root.canonicalize().unwrap().display());
    let got = without_prefix(got, &canonical);
    assert_eq!(got["sessions"].as_array().unwrap().len(), 2, "{got}");
    let difference = first_difference(&got["sessions"], &expected["sessions"], "$");
    assert!(difference.is_none(), "{difference:?}");
    // Links out: to a folder holding a session, and to a FIFO that would hang a reader.
    std::fs::copy(fixtures().join(P02), away.join("p02.jsonl")).unwrap();
    let fifo = std::ffi::CString::new(away.join("pipe.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink(&away, root.join("runs/away")).unwrap();
    std::os::unix::fs::symlink(away.join("pipe.jsonl"), root.join("runs/pipe.jsonl")).unwrap();
    std::os::unix::fs::symlink(root.join("runs/p01.jsonl"), root.join("runs/again")).unwrap();
    let got = server.ok("sessions", json!({"path": "runs", "max_bytes": 1u64 << 40}));
    let files: Vec<&str> = (got["sessions"].as_array().unwrap().iter())
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files.iter().all(|f| !f.contains("away")), "{files:?}");
    let notes = got["notes"].to_string();
    assert_eq!(
        notes.matches("outside the allowed folders").count(),
        2,
        "{notes}"
    );
    let e = server.refused("sessions", json!({"path": "../away"}));
    assert!(e.contains("outside the roots"), "{e}");
    server.close();
}

#[test]
fn every_bad_input_is_one_sentence_and_the_next_call_is_served() {
    let root = fixtures();
    let mut server = Server::start(&[&root]);
    let bad: [(&str, Value, &str); 11] = [
        ("no_such_tool", json!({}), "no tool named \"no_such_tool\""),
        (
            "surface",
            json!({"path": UPSTREAM, "at": "twelve"}),
            "argument `at`",
        ),
        (
            "check",
            json!({"path": UPSTREAM, "colour": "red"}),
            "unknown field `colour`",
        ),
        ("check", json!({}), "missing field `path`"),
        (
            "check",
            json!({"path": "missing.jsonl"}),
            "missing.jsonl: no such file",
        ),
        ("check", json!({"path": "upstream"}), "upstream is a folder"),
        (
            "check",
            json!({"path": "upstream/README.md"}),
            "upstream/README.md",
        ),
        (
            "surface",
            json!({"path": UPSTREAM, "at": 1_000_000}),
            "seq 1000000 is past the log's last event",
        ),
        (
            "events",
            json!({"path": UPSTREAM, "from": 9, "to": 2}),
            "from 9 is after to 2",
        ),
        (
            "surface",
            json!({"path": UPSTREAM, "cursor": "zz"}),
            "cursor \"zz\"",
        ),
        (
            "policy",
            json!({"path": P01, "retain_ratio": 0.1, "retain_tokens": 10}),
            "retain_ratio and retain_tokens exclude each other",
        ),
    ];
    for (tool, args, says) in bad {
        let e = server.refused(tool, args.clone());
        assert!(e.contains(says), "{tool} {args}: {e}");
        server.ok("check", json!({"path": UPSTREAM}));
    }
    server.close();
}

/// Every file under `dir` with its length and modification time.
fn files_of(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            out.extend(files_of(&entry.path()));
        } else {
            out.push((entry.path(), meta.len(), meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn a_session_of_calls_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for rel in [UPSTREAM, P01, P02, PRICES] {
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixtures().join(rel), to).unwrap();
    }
    let before = files_of(dir.path());
    let mut server = Server::start(&[dir.path()]);
    for tool in [
        "check", "surface", "messages", "request", "events", "audit", "policy",
    ] {
        server.ok(tool, json!({"path": P01}));
    }
    server.ok("cost", json!({"path": P02, "prices": PRICES}));
    server.ok("compare", json!({"a": P01, "b": P02}));
    server.ok(
        "tune",
        json!({"paths": [P01, P02], "grid": ["threshold_ratio=0.7"]}),
    );
    server.ok("sessions", json!({"path": UPSTREAM}));
    server.refused("check", json!({"path": "nothing.jsonl"}));
    server.close();
    assert_eq!(files_of(dir.path()), before);
}

#[test]
fn a_log_that_grows_is_read_as_it_stands_at_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixtures().join(UPSTREAM)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let log = dir.path().join("growing.jsonl");
    std::fs::write(&log, format!("{}\n", lines[..10].join("\n"))).unwrap();
    let mut server = Server::start(&[dir.path()]);
    let first = server.ok("check", json!({"path": "growing.jsonl"}));
    assert_eq!(first["events"], 9);
    std::fs::write(&log, &text).unwrap();
    let later = server.ok("check", json!({"path": "growing.jsonl"}));
    assert_eq!(
        later,
        cli_json(dir.path(), &["check", "growing.jsonl", "--json"])
    );
    assert!(later["events"].as_u64().unwrap() > 9);
    server.close();
}

#[test]
fn the_crates_keep_their_layers() {
    let manifest = |krate: &str| {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("crates/{krate}/Cargo.toml")),
        )
        .unwrap();
        let deps = text.split("[dependencies]").nth(1).unwrap();
        let deps = deps.split("\n[").next().unwrap().to_string();
        deps.lines()
            .filter_map(|l| l.split([' ', '.', '=']).next())
            .filter(|n| !n.is_empty() && !n.starts_with('#'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let reports = manifest("reports");
    for never in ["surface-cli", "surface-ui", "surface-mcp", "tokio", "rmcp"] {
        assert!(
            !reports.iter().any(|d| d == never),
            "surface-reports uses {never}"
        );
    }
    let mcp = manifest("mcp");
    for never in ["surface-cli", "surface-ui"] {
        assert!(!mcp.iter().any(|d| d == never), "surface-mcp uses {never}");
    }
    for krate in [
        "engine", "analysis", "store", "passes", "cli", "reports", "ui", "synth", "scan",
    ] {
        let deps = manifest(krate);
        assert!(
            !deps.iter().any(|d| d == "tokio" || d == "rmcp"),
            "{krate} uses tokio"
        );
    }
    assert!(manifest("cli").iter().any(|d| d == "surface-reports"));
}

#[test]
fn the_official_python_client_checks_the_server() {
    let required = std::env::var_os("SURFACE_VIEWER_REQUIRE_MCP").is_some();
    let importable = Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        assert!(
            !required,
            "SURFACE_VIEWER_REQUIRE_MCP is set but `python3 -c \"import mcp\"` fails"
        );
        eprintln!("skipped: python3 with the `mcp` package is not here (pip install mcp)");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client_check.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_surface-viewer"))
        .arg(fixtures())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" passed, 0 failed"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
