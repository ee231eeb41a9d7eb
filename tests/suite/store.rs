//! A whole store root, generated in a temporary folder: more than fifty sessions across
//! projects in all three formats, forks, a corrupt session, an unreadable SQLite file, files
//! that are not sessions, an unreadable folder, a symlink loop and a FIFO. Discovery finds
//! exactly the sessions; `check DIR --json` agrees with `check FILE` on every one of them;
//! exit codes; `sessions DIR`; special files refused without a hang.

use crate::binary::{bin, json_of};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use surface_store::{Probe, find_sessions, read_figures};
use surface_synth::{StoreConfig, StoredSession, write_store};

/// Runs the binary; fails the test instead of hanging.
fn run(args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("surface-viewer {args:?} did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A session with a corrupt line before its last `turn/end`: a `line.unparseable` error.
const CORRUPT: &str = r#"{"type":"session","version":0,"id":"corrupt-session","createdAt":1786000000000,"cwd":"/home/dev/src/broken","delegationDepth":0}
{"type":"turn/start","seq":0,"time":1786000000001,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1786000000002,"data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}
{"type":"assistant/mess
{"type":"turn/end","seq":3,"time":1786000000004,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

/// An ADR-era log in the older layout `root/cwd-<h>/<id>.jsonl` (docs/parity.md).
const LEGACY: &str = r#"{"type":"session","version":1,"id":"legacy-session","createdAt":1781000000000,"cwd":"/home/dev/old"}
{"type":"turn/start","seq":0,"time":1781000000001,"data":{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}}
{"type":"user/message","seq":1,"time":1781000000002,"data":{"content":[{"type":"text","text":"hello"}],"source":{"kind":"user"}},"surfaceOp":"append"}
{"type":"session/title","seq":2,"time":1781000000003,"data":{"title":"An old session"}}
{"type":"turn/end","seq":3,"time":1781000000004,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

struct Store {
    _dir: tempfile::TempDir,
    root: PathBuf,
    generated: Vec<StoredSession>,
    /// Ids of the hand-written sessions that discovery must find.
    extra: Vec<(&'static str, PathBuf)>,
    /// The folder made unreadable, if permissions stop this user.
    locked: Option<PathBuf>,
}

impl Drop for Store {
    fn drop(&mut self) {
        // Let the temporary folder be removed.
        if let Some(l) = &self.locked {
            set_mode(l, 0o755);
        }
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}
#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) {}

fn build_store() -> Store {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    let config = StoreConfig {
        sessions: 52,
        projects: 6,
        events: 300,
        fork_every: 6,
        zstd_every: 3,
        sqlite_sessions: 3,
        ..StoreConfig::default()
    };
    let generated = write_store(&root, &config).unwrap();
    let mut extra = Vec::new();
    let corrupt = root.join("--home-dev-src-broken--/corrupt-session/session.jsonl");
    std::fs::create_dir_all(corrupt.parent().unwrap()).unwrap();
    std::fs::write(&corrupt, CORRUPT).unwrap();
    extra.push(("corrupt-session", corrupt));
    let legacy = root.join("cwd-0123456789ab/legacy-session.jsonl");
    std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
    std::fs::write(&legacy, LEGACY).unwrap();
    extra.push(("legacy-session", legacy));
    // Not sessions: skipped silently.
    std::fs::write(root.join("README.md"), "# notes\n").unwrap();
    std::fs::write(root.join("other.jsonl"), "{\"a\":1}\n{\"b\":2}\n").unwrap();
    std::fs::write(
        root.join("archive.zst"),
        zstd::encode_all(&b"just some text\n"[..], 3).unwrap(),
    )
    .unwrap();
    let empty_db = rusqlite::Connection::open(root.join("settings.db")).unwrap();
    empty_db
        .execute_batch("CREATE TABLE prefs (k TEXT, v TEXT);")
        .unwrap();
    drop(empty_db);
    // A SQLite file that is damaged: a session file by its content, but unreadable.
    let mut broken = b"SQLite format 3\0".to_vec();
    broken.extend(std::iter::repeat_n(0xAB, 3000));
    std::fs::write(root.join("broken.db"), broken).unwrap();
    // An unreadable folder holding a session.
    let locked = root.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::write(
        locked.join("session.jsonl"),
        LEGACY.replace("legacy-session", "locked-session"),
    )
    .unwrap();
    set_mode(&locked, 0o000);
    let locked_stops_reads = std::fs::read_dir(&locked).is_err();
    if !locked_stops_reads {
        // Running as root: permissions do not stop reads, so the session there is found.
        extra.push(("locked-session", locked.join("session.jsonl")));
    }
    #[cfg(unix)]
    {
        // A symlink loop: a project folder linking back to the root.
        std::os::unix::fs::symlink(&root, root.join("--home-dev-src-tidewater--/loop")).unwrap();
        let _ = Command::new("mkfifo").arg(root.join("pipe")).status();
    }
    Store {
        _dir: dir,
        root,
        generated,
        extra,
        locked: Some(locked).filter(|_| locked_stops_reads),
    }
}

impl Store {
    fn expected_ids(&self) -> BTreeSet<String> {
        self.generated
            .iter()
            .map(|s| s.id.clone())
            .chain(self.extra.iter().map(|(id, _)| id.to_string()))
            .collect()
    }
}

#[test]
fn discovery_finds_exactly_the_sessions() {
    let store = build_store();
    assert!(store.generated.len() >= 50);
    let formats: BTreeSet<&str> = store.generated.iter().map(|s| s.format).collect();
    assert_eq!(formats, ["jsonl", "sqlite", "zstd"].into());
    assert!(store.generated.iter().any(|s| s.parent.is_some()));
    let cancel = AtomicBool::new(false);
    let mut probed = 0;
    let found = find_sessions(&store.root, 2, &cancel, |_, p| {
        probed += usize::from(!matches!(p, Probe::NotASession));
    })
    .unwrap();
    let ids: BTreeSet<String> = found.sessions.iter().map(|s| s.id.clone()).collect();
    assert_eq!(ids, store.expected_ids());
    assert_eq!(
        found.sessions.len(),
        store.expected_ids().len(),
        "each once"
    );
    let unreadable: Vec<&str> = found
        .unreadable
        .iter()
        .map(|u| u.file.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(unreadable, ["broken.db"]);
    assert!(probed > 0);
    #[cfg(unix)]
    assert!(
        found.notes.iter().any(|n| n.contains("already walked")),
        "{:?}",
        found.notes
    );
    if store.locked.is_some() {
        assert!(
            found.notes.iter().any(|n| n.contains("locked")),
            "{:?}",
            found.notes
        );
    }
    // Cheap facts match what was written.
    for g in &store.generated {
        let e = found.sessions.iter().find(|e| e.id == g.id).unwrap();
        assert_eq!(e.file, g.file);
        assert_eq!(e.cwd.as_deref(), Some(g.cwd.as_str()));
        assert_eq!(e.parent, g.parent);
        assert_eq!(e.seed_length, g.seed_length);
        assert_eq!(e.in_database, g.format == "sqlite");
        assert_eq!(e.title.as_deref(), Some(g.title.as_str()), "{}", g.id);
        assert!(e.last_event.is_some(), "{}", g.id);
        let figures = read_figures(&e.file, e.session_arg()).unwrap();
        assert_eq!(figures.events, g.events, "{}", g.id);
        assert_eq!((figures.errors, figures.warnings), (0, 0), "{}", g.id);
        assert_eq!(figures.title.as_deref(), Some(g.title.as_str()));
        assert_eq!(
            figures.last_event, e.last_event,
            "the cheap look saw the last event"
        );
        assert!(figures.turns > 0, "{figures:?}");
    }
    let legacy = found
        .sessions
        .iter()
        .find(|e| e.id == "legacy-session")
        .unwrap();
    assert_eq!(legacy.title.as_deref(), Some("An old session"));
    assert_eq!(legacy.project, "/home/dev/old");
}

#[test]
fn check_dir_json_totals_equal_the_per_file_checks() {
    let store = build_store();
    let out = run(&["check", s(&store.root), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the corrupt session and the damaged database fail the run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out);
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), store.expected_ids().len());
    let files: Vec<String> = sessions
        .iter()
        .map(|v| v["file"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "sorted by path");
    let (mut events, mut errors, mut warnings) = (0u64, 0u64, 0u64);
    let mut by_session = BTreeMap::new();
    for v in sessions {
        let file = v["file"].as_str().unwrap();
        let id = v["session"].as_str().unwrap();
        let mut args = vec!["check", file, "--json"];
        let in_db = file.ends_with("sessions.db");
        if in_db {
            args.extend(["--session", id]);
        }
        let single = run(&args);
        let one = json_of(&single);
        assert_eq!(one["events"], v["events"], "{file} {id}");
        assert_eq!(one["findings"], v["findings"], "{file} {id}");
        assert_eq!(one["mode"], v["mode"]);
        let e = one["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .count() as u64;
        let w = one["findings"].as_array().unwrap().len() as u64 - e;
        assert_eq!(v["errors"].as_u64(), Some(e));
        assert_eq!(v["warnings"].as_u64(), Some(w));
        assert_eq!(single.status.code(), Some(if e > 0 { 1 } else { 0 }));
        events += one["events"].as_u64().unwrap();
        errors += e;
        warnings += w;
        by_session.insert(id.to_string(), e);
    }
    let totals = &doc["totals"];
    assert_eq!(totals["sessions"].as_u64(), Some(sessions.len() as u64));
    assert_eq!(totals["events"].as_u64(), Some(events));
    assert_eq!(totals["errors"].as_u64(), Some(errors));
    assert_eq!(totals["warnings"].as_u64(), Some(warnings));
    assert_eq!(totals["unreadable"].as_u64(), Some(1));
    assert_eq!(
        doc["unreadable"][0]["file"]
            .as_str()
            .map(|f| f.ends_with("broken.db")),
        Some(true)
    );
    // Only the corrupt session has errors.
    let failing: Vec<&String> = by_session
        .iter()
        .filter(|(_, e)| **e > 0)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(failing, ["corrupt-session"]);
}

#[test]
fn check_dir_streams_lines_and_sets_exit_codes() {
    let store = build_store();
    let out = run(&["check", s(&store.root), "--jobs", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let summaries = lines.iter().filter(|l| l.contains(" events (")).count();
    assert_eq!(summaries, store.expected_ids().len(), "{text}");
    let corrupt = lines
        .iter()
        .position(|l| l.contains("corrupt-session/session.jsonl:"))
        .expect("the corrupt session's line");
    assert!(lines[corrupt + 1].contains("line.unparseable"), "{text}");
    assert!(text.contains("broken.db: unreadable"), "{text}");
    assert!(
        text.contains("[session "),
        "database sessions are named: {text}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with(&format!("{} sessions checked", summaries)),
        "{last}"
    );
    assert!(
        last.contains("1 with errors") && last.contains("1 unreadable"),
        "{last}"
    );

    // A clean project folder passes.
    let clean = store.generated[1].file.parent().unwrap().parent().unwrap();
    let out = run(&["check", s(clean)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Only the corrupt one: exit 1.
    let broken = store.extra[0].1.parent().unwrap();
    assert_eq!(run(&["check", s(broken)]).status.code(), Some(1));
    // Nothing to read: exit 2 with one line on stderr.
    let empty = tempfile::tempdir().unwrap();
    let out = run(&["check", s(empty.path())]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no session file"), "{stderr}");
    // Only a damaged database: nothing readable, exit 2.
    let only_broken = tempfile::tempdir().unwrap();
    std::fs::copy(
        store.root.join("broken.db"),
        only_broken.path().join("b.db"),
    )
    .unwrap();
    assert_eq!(
        run(&["check", s(only_broken.path())]).status.code(),
        Some(2)
    );
}

#[test]
fn sessions_dir_lists_every_session_with_forks() {
    let store = build_store();
    let out = run(&["sessions", s(&store.root), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    let list = doc["sessions"].as_array().unwrap();
    assert_eq!(list.len(), store.expected_ids().len());
    for g in store.generated.iter().filter(|g| g.parent.is_some()) {
        let v = list.iter().find(|v| v["id"] == g.id.as_str()).unwrap();
        assert_eq!(v["parent"].as_str(), g.parent.as_deref());
        assert_eq!(v["seed_length"].as_u64(), g.seed_length);
        assert_eq!(v["figures"]["events"].as_u64(), Some(g.events));
    }
    let human = run(&["sessions", s(&store.root)]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("fork of "), "{text}");
    assert!(text.contains("修复解析负数金额的测试"), "{text}");
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return; // no mkfifo here
    }
    for (path, what) in [
        (s(&fifo), "FIFO"),
        ("/dev/zero", "character device"),
        ("/dev/null", "character device"),
    ] {
        for cmd in ["check", "surface", "sessions"] {
            let started = Instant::now();
            let out = run(&[cmd, path]);
            assert_eq!(out.status.code(), Some(2), "{cmd} {path}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains(what) && stderr.contains(path), "{stderr}");
            assert!(started.elapsed() < Duration::from_secs(10));
        }
    }
    // In a folder, the FIFO is skipped (with a note) and the session beside it is checked.
    std::fs::write(dir.path().join("s.jsonl"), LEGACY).unwrap();
    let out = run(&["check", s(dir.path())]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("special file"));
}
