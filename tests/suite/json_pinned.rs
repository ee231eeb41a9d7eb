//! The `--json` documents byte for byte: each command's document on a fixture, as the command
//! line printed it before the documents moved to surface-reports, is held in
//! tests/fixtures/json/ and the binary must print the same bytes (order of members, number
//! forms, the newline at the end). The documents the other subjects only read member by member
//! are pinned here whole.

use std::path::Path;

use crate::binary::bin;

const U: &str = "upstream/v0-2026-08-20-head/compaction-recovery.session.jsonl";
const T: &str = "upstream/v1-2026-06-19/tool-call-turn.session.jsonl";

/// Each pinned document: its file in tests/fixtures/json/ and the command that prints it (run
/// from tests/fixtures).
const PINNED: [(&str, &[&str]); 11] = [
    ("request-at", &["request", U, "--at", "20", "--json"]),
    ("messages-at", &["messages", T, "--at", "10"]),
    (
        "preview",
        &[
            "preview",
            U,
            "--start",
            "4",
            "--end",
            "4",
            "--time",
            "1786000000000",
            "--json",
        ],
    ),
    ("surface-at", &["surface", T, "--at", "12", "--json"]),
    ("sessions", &["sessions", U, "--json"]),
    (
        "cost-requests",
        &[
            "cost",
            U,
            "--requests",
            "--prices",
            "prices/deepseek.json",
            "--json",
        ],
    ),
    (
        "compare",
        &[
            "compare",
            "upstream/v0-2026-08-20-head/cancel.session.jsonl",
            "upstream/v0-2026-06-26-surface-merge/cancel.session.jsonl",
            "--json",
        ],
    ),
    (
        "tune",
        &["tune", U, "--grid", "threshold_ratio=0.7,0.8", "--json"],
    ),
    ("audit", &["audit", U, "--json"]),
    (
        "policy-what-if",
        &[
            "policy",
            U,
            "--what-if",
            "--threshold-ratio",
            "0.7",
            "--json",
        ],
    ),
    ("check", &["check", T, "--json"]),
];

#[test]
fn every_pinned_document_is_printed_byte_for_byte() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (name, args) in PINNED {
        let out = bin().current_dir(&fixtures).args(args).output().unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
        let pinned = std::fs::read(fixtures.join(format!("json/{name}.json"))).unwrap();
        assert!(
            out.stdout == pinned,
            "{args:?} no longer prints tests/fixtures/json/{name}.json:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
