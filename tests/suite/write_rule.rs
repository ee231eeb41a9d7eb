//! The one rule for every file the program writes, as a user meets it through `audit --html`:
//! an existing file is refused unless `--force`; the log's own session files (a SQLite
//! database's `-wal`) and any other session log are refused even with it.

use crate::binary::{expect_exit, run, stderr};
use crate::common::upstream;
use crate::formats::to_sqlite;

use std::path::Path;

const SAMPLE: &str = "assets/sample.session.jsonl";

fn sample() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE)
}

fn audit_html(log: &Path, out: &Path, force: bool) -> std::process::Output {
    let mut args = vec![
        "audit",
        log.to_str().unwrap(),
        "--html",
        out.to_str().unwrap(),
    ];
    if force {
        args.push("--force");
    }
    run(&args)
}

#[test]
fn an_existing_file_is_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    std::fs::write(&out, b"my notes").unwrap();
    let refused = audit_html(&sample(), &out, false);
    expect_exit(&refused, 2);
    assert!(
        stderr(&refused).contains("already exists"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"my notes");
    let forced = audit_html(&sample(), &out, true);
    expect_exit(&forced, 0);
    assert!(std::fs::read_to_string(&out).unwrap().contains("<html"));
}

#[test]
fn another_session_log_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("B.jsonl");
    let original = std::fs::read(upstream(
        "v0-2026-08-20-head/compaction-recovery.session.jsonl",
    ))
    .unwrap();
    std::fs::write(&other, &original).unwrap();
    for force in [false, true] {
        let out = audit_html(&sample(), &other, force);
        expect_exit(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{} is a session log; refusing", other.display())),
            "{err}"
        );
        assert_eq!(std::fs::read(&other).unwrap(), original);
    }
}

#[test]
fn a_sqlite_logs_wal_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sample()).unwrap();
    let db = dir.path().join("store.db");
    to_sqlite(&db, 17, &text, &crate::common::log_of(&text));
    let wal = dir.path().join("store.db-wal");
    for force in [false, true] {
        let out = audit_html(&db, &wal, force);
        expect_exit(&out, 2);
        assert!(
            stderr(&out).contains("belongs to the session log"),
            "{}",
            stderr(&out)
        );
        assert!(!wal.exists());
    }
}
