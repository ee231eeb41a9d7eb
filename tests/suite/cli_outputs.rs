//! Every subcommand's human output and exit code, run as a user would: on a clean input, on an
//! input with findings or disagreements, and in trouble. The exit-code rule (as grep's): 0
//! clean, 1 findings, 2 trouble — unreadable input, a usage error, a refused write, nothing to
//! show. Figures come from fixtures that do not change (`tests/fixtures/`); the README's
//! examples on the bundled samples are `tests/readme_examples.rs`.

use crate::binary::{expect_exit, run, stderr, stdout};
use crate::common;

use std::path::Path;
use std::process::Output;

use common::*;

const EXIT_CLEAN: i32 = 0;
const EXIT_FINDINGS: i32 = 1;
const EXIT_TROUBLE: i32 = 2;

/// A real harness run (the policy lab's p01): 1,317 events, 16 compactions, window 16000;
/// three warnings and no error.
const P01: &str = "tests/fixtures/policy/p01.jsonl";

/// Asserts trouble: exit 2, nothing on stdout, one line on stderr containing `needle`.
fn expect_trouble(out: &Output, needle: &str) {
    expect_exit(out, EXIT_TROUBLE);
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{needle:?} not in {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "{}", stdout(out));
}

/// A line of `text` whose words are `words`, in order, separated by any spacing.
fn has_row(text: &str, words: &[&str]) -> bool {
    text.lines().any(|l| {
        let got: Vec<&str> = l.split_whitespace().collect();
        got.windows(words.len()).any(|w| w == words)
    })
}

/// A log with one error-level finding: a replace whose start is not on the surface.
fn log_with_an_error() -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        file.path(),
        text_of(&[
            msg(0, "append", None),
            msg(1, r#"{"op":"replace","start":9,"end":9}"#, Some("[0]")),
        ]),
    )
    .unwrap();
    file
}

fn path_of(file: &tempfile::NamedTempFile) -> &str {
    file.path().to_str().unwrap()
}

/// p01 with a torn last line (a crash mid-write after the last `turn/end`): one warning.
fn p01_with_a_torn_tail() -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut text = std::fs::read(P01).unwrap();
    text.extend_from_slice(br#"{"type":"step/start","seq":13"#);
    std::fs::write(file.path(), text).unwrap();
    file
}

#[test]
fn check_clean_warnings_only_findings_and_trouble() {
    let out = run(&["check", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    // A HEAD log's head-anchored summaries (start > end) are no numeric-order warning.
    assert!(
        text.starts_with(&format!(
            "{P01}: 1317 events (HEAD (2026-08), JSONL, surface mode), 0 errors, 0 warnings\n"
        )),
        "{text}"
    );

    // Warnings alone are clean.
    let torn = p01_with_a_torn_tail();
    let out = run(&["check", path_of(&torn)]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.contains("1317 events (HEAD (2026-08), JSONL, surface mode), 0 errors, 1 warning\n"),
        "{text}"
    );
    assert!(
        has_row(&text, &["warning", "line.torn-tail", "line", "1319"]),
        "{text}"
    );

    let bad = log_with_an_error();
    let out = run(&["check", path_of(&bad)]);
    expect_exit(&out, EXIT_FINDINGS);
    let text = stdout(&out);
    assert!(text.contains(": 2 events ("), "{text}");
    assert!(text.contains("2 errors, 0 warnings"), "{text}");
    assert!(
        has_row(
            &text,
            &[
                "error",
                "surface.replace.start-not-on-surface",
                "seq",
                "1,",
                "line",
                "3"
            ]
        ),
        "{text}"
    );

    expect_trouble(&run(&["check", "no/such.jsonl"]), "no/such.jsonl");
    let empty = tempfile::NamedTempFile::new().unwrap();
    expect_trouble(&run(&["check", path_of(&empty)]), path_of(&empty));
}

#[test]
fn check_and_sessions_on_a_folder() {
    let root = tempfile::tempdir().unwrap();
    let clean = root.path().join("clean");
    let mixed = root.path().join("mixed");
    let nothing = root.path().join("nothing");
    for dir in [&clean, &mixed, &nothing] {
        std::fs::create_dir(dir).unwrap();
    }
    std::fs::copy(
        p01_with_a_torn_tail().path(),
        clean.join("p01.session.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        p01_with_a_torn_tail().path(),
        mixed.join("p01.session.jsonl"),
    )
    .unwrap();
    std::fs::copy(log_with_an_error().path(), mixed.join("bad.session.jsonl")).unwrap();
    std::fs::write(nothing.join("empty.session.jsonl"), "").unwrap();
    let arg = |p: &Path| p.to_str().unwrap().to_string();

    let out = run(&["check", &arg(&clean), "--jobs", "1"]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.contains("1 session checked in 1 file under")
            && text.contains("1317 events; 0 with errors (0 errors), 1 with warnings (1 warning)"),
        "{text}"
    );

    let out = run(&["check", &arg(&mixed), "--jobs", "2"]);
    expect_exit(&out, EXIT_FINDINGS);
    let text = stdout(&out);
    assert!(
        text.contains("2 sessions checked in 2 files under")
            && text.contains("1319 events; 1 with errors (2 errors), 1 with warnings (1 warning)"),
        "{text}"
    );
    assert!(
        text.contains("surface.replace.start-not-on-surface"),
        "{text}"
    );

    expect_trouble(
        &run(&["check", &arg(&nothing)]),
        "no session file under this folder",
    );

    // `sessions` is a report: findings do not change its exit code.
    let out = run(&["sessions", &arg(&mixed)]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.contains("policy-p01 · 1317 events") && text.contains("2 sessions under"),
        "{text}"
    );
    assert!(
        text.contains("t · 2 events, 0 turns, 1 compaction, 2 errors"),
        "{text}"
    );
    expect_trouble(
        &run(&["sessions", &arg(&nothing)]),
        "no session file under this folder",
    );
}

#[test]
fn sessions_of_a_file() {
    let out = run(&["sessions", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        has_row(&text, &["id", "created", "events", "errors", "parent"]),
        "{text}"
    );
    assert!(
        has_row(&text, &["policy-p01", "1786000000000", "1317", "0", "-"]),
        "{text}"
    );

    let fork = upstream("v0-2026-06-26-surface-merge/subagent-fork.session.1.jsonl");
    let out = run(&["sessions", fork.to_str().unwrap()]);
    expect_exit(&out, EXIT_CLEAN);
    assert!(stdout(&out).contains("(seed 38)"), "{}", stdout(&out));

    expect_trouble(
        &run(&["sessions", P01, "--session", "nope"]),
        "no session \"nope\" in this file (it holds: policy-p01)",
    );
    expect_trouble(&run(&["sessions", "no/such.jsonl"]), "no/such.jsonl");
}

#[test]
fn surface_human_output_lists_nodes_and_rejected_ops() {
    let out = run(&["surface", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "surface at the end — surface mode, 12 nodes, 6309 tokens on the surface; meter total 11275 (usage) of window 16000 (70.5%, threshold 12800)\n"
        ),
        "{text}"
    );
    assert!(
        has_row(&text, &["seq", "type", "op", "tokens", "summary"]),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &["1231", "user/message", "replace", "1070..1144", "299"]
        ),
        "{text}"
    );
    // One row per node after the two header lines.
    assert_eq!(text.lines().count(), 2 + 12, "{text}");

    // An earlier cursor gives an earlier surface, and the threshold follows the option.
    let out = run(&["surface", P01, "--at", "100", "--threshold-ratio", "0.5"]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(text.starts_with("surface at seq 100 — "), "{text}");
    assert!(text.contains("threshold 8000)"), "{text}");

    // Invalid ops are shown, not judged: a report exits 0.
    let bad = log_with_an_error();
    let out = run(&["surface", path_of(&bad)]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(text.contains("rejected ops:"), "{text}");
    assert!(
        has_row(
            &text,
            &["1", "user/message", "start", "seq", "9", "and", "end"]
        ),
        "{text}"
    );

    expect_trouble(&run(&["surface", "no/such.jsonl"]), "no/such.jsonl");
    let out = run(&["surface", P01, "--at", "minus-one"]);
    expect_exit(&out, EXIT_TROUBLE);
    assert!(stderr(&out).contains("--at"), "{}", stderr(&out));
}

#[test]
fn messages_prints_the_derived_messages() {
    // `messages` has no human form: its output is the JSON array (docs/check.md).
    let out = run(&["messages", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let messages: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages = messages.as_array().unwrap();
    assert_eq!(messages.len(), 12);
    assert_eq!(messages[0]["seq"], 1231);
    assert_eq!(messages[0]["role"], "user");

    let bad = log_with_an_error();
    let out = run(&["messages", path_of(&bad)]);
    expect_exit(&out, EXIT_CLEAN);
    let messages: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(messages[0]["content"][0]["text"], "m0");

    expect_trouble(&run(&["messages", "no/such.jsonl"]), "no/such.jsonl");
    let out = run(&["messages"]);
    expect_exit(&out, EXIT_TROUBLE);
    assert!(stderr(&out).contains("<FILE>"), "{}", stderr(&out));
}

#[test]
fn tokens_human_and_csv() {
    let out = run(&["tokens", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "{P01}: 1317 events, window 16000, threshold 12800 (ratio 0.8); at the end 11275 tokens (usage), 6309 on the surface\n"
        )),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &[
                "seq", "type", "total", "surface", "baseline", "kind", "fill"
            ]
        ),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &[
                "1316", "turn/end", "11275", "6309", "11275", "usage", "70.5%"
            ]
        ),
        "{text}"
    );
    // One row per event after the two header lines; the over-threshold rows are marked.
    assert_eq!(text.lines().count(), 2 + 1317);
    assert!(text.contains("▲ over threshold"), "{text}");

    let out = run(&["tokens", P01, "--csv"]);
    expect_exit(&out, EXIT_CLEAN);
    let csv = stdout(&out);
    assert_eq!(
        csv.lines().next(),
        Some("seq,type,total,surface,baseline_kind,baseline,window,threshold")
    );
    assert_eq!(
        csv.lines().last(),
        Some("1316,turn/end,11275,6309,usage,11275,16000,12800")
    );

    expect_trouble(&run(&["tokens", "no/such.jsonl"]), "no/such.jsonl");
    let out = run(&["tokens", P01, "--json", "--csv"]);
    expect_exit(&out, EXIT_TROUBLE);
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn request_human_output_and_nothing_to_show() {
    let out = run(&["request", P01, "--at", "100"]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    for line in [
        "model request at seq 100: turn 1, step 4 (step/start seq 95, answered by seq 118) — mock / mock-a",
        "  estimate (the meter's prices): system 16 + tools 40 + messages 2328 = 2384 tokens",
        "  meter total when the messages were fixed: 3319 (usage baseline)",
        "  context window 16000, threshold 12800: 20.7% full",
        "  reported by the provider: input 1631 + cache read 1993 + cache write 0 = 3624 prompt tokens, output 74",
        "system: You are an AI agent powered by DeepSeek Harness.",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
    }
    assert!(text.contains("\nmessages ("), "{text}");

    // A log without a model call has no request to show: trouble, not a finding.
    let bad = log_with_an_error();
    expect_trouble(
        &run(&["request", path_of(&bad)]),
        "no model request (step/start) in the log",
    );
    expect_trouble(
        &run(&["request", P01, "--at", "0"]),
        "no model request (step/start) at or before seq 0",
    );
    expect_trouble(&run(&["request", "no/such.jsonl"]), "no/such.jsonl");
}

#[test]
fn preview_valid_invalid_and_trouble() {
    let out = run(&[
        "preview",
        P01,
        "--start",
        "1162",
        "--end",
        "1162",
        "--summary",
        "s",
        "--time",
        "5",
    ]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with("replace 1162..1162 at the end: valid\n"),
        "{text}"
    );
    assert!(text.contains("  shadows 1 node(s): [1162]\n"), "{text}");
    assert!(
        text.contains(
            "  before: 12 nodes, 11275 tokens; after: 12 nodes, 11239 tokens (threshold 12800)\n"
        ),
        "{text}"
    );
    assert!(text.contains(r#""seq":1317,"time":5,"#), "{text}");

    let out = run(&["preview", P01, "--start", "1164", "--end", "1162"]);
    expect_exit(&out, EXIT_FINDINGS);
    let text = stdout(&out);
    assert!(
        text.starts_with("replace 1164..1162 at the end: INVALID\n"),
        "{text}"
    );
    assert!(
        text.contains("  error: start seq 1164 stands after end seq 1162 on the surface"),
        "{text}"
    );

    let out = run(&["preview", P01, "--start", "1162"]);
    expect_exit(&out, EXIT_TROUBLE);
    assert!(stderr(&out).contains("--end"), "{}", stderr(&out));
    expect_trouble(
        &run(&["preview", "no/such.jsonl", "--start", "1", "--end", "1"]),
        "no/such.jsonl",
    );
}

#[test]
fn audit_human_markdown_html_and_refused_writes() {
    let out = run(&["audit", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "{P01}: 1317 events, 16 replace ops (8 summary, 8 prune, 0 other); window 16000, threshold 12800 (ratio 0.8)\n"
        )),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &[
                "253", "prune", "pressure", "97.1%", "→", "86.5%", "15543", "→", "13833", "1710"
            ]
        ),
        "{text}"
    );

    let out = run(&["audit", P01, "--markdown"]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("## Compaction audit: `{P01}`\n")),
        "{text}"
    );
    assert!(
        text.contains("| 253 | prune | pressure | 97.1% → 86.5% | 15543 → 13833 | 1710 |"),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.html");
    let out = run(&["audit", P01, "--html", report.to_str().unwrap()]);
    expect_exit(&out, EXIT_CLEAN);
    assert!(
        stdout(&out).ends_with(&format!("HTML report written to {}\n", report.display())),
        "{}",
        stdout(&out)
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("<svg") && html.contains("15543"),
        "{html:.300}"
    );

    // Refused writes: over the log, into a folder that does not exist, over a folder. The
    // error names the user's path, never the temporary file, and nothing is left behind.
    let log = dir.path().join("p01.jsonl");
    std::fs::copy(P01, &log).unwrap();
    let before = std::fs::read(&log).unwrap();
    let out = run(&[
        "audit",
        log.to_str().unwrap(),
        "--html",
        log.to_str().unwrap(),
    ]);
    expect_trouble(&out, "never writes to it");
    assert_eq!(std::fs::read(&log).unwrap(), before);
    for target in [
        dir.path().join("missing").join("report.html"),
        dir.path().to_path_buf(),
    ] {
        let out = run(&["audit", P01, "--html", target.to_str().unwrap()]);
        let named = format!("cannot write {}", target.display());
        expect_trouble(&out, &named);
        assert!(
            !stderr(&out).contains(".surface-viewer-"),
            "{}",
            stderr(&out)
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");

    expect_trouble(&run(&["audit", "no/such.jsonl"]), "no/such.jsonl");
}

#[test]
fn policy_agrees_disagrees_and_refuses_bad_settings() {
    let out = run(&["policy", P01]);
    expect_exit(&out, EXIT_CLEAN);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "{P01}: verify, 40 checks (10 fire), window 16000, 0 disagree\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("  settings: T 0.8 (threshold 12800)"),
        "{text}"
    );

    let out = run(&["policy", P01, "--threshold-ratio", "0.7"]);
    expect_exit(&out, EXIT_FINDINGS);
    let text = stdout(&out);
    assert!(text.contains("  first divergence: seq 211"), "{text}");

    expect_trouble(
        &run(&[
            "policy",
            P01,
            "--retain-ratio",
            "0.2",
            "--retain-tokens",
            "100",
        ]),
        "--retain-ratio and --retain-tokens exclude each other",
    );
    expect_trouble(&run(&["policy", "no/such.jsonl"]), "no/such.jsonl");
}

#[test]
fn help_states_the_exit_code_rule() {
    let out = run(&["--help"]);
    expect_exit(&out, EXIT_CLEAN);
    // Compared word by word: clap may wrap the text to the terminal.
    let help = stdout(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for part in [
        "0 clean",
        "1 findings",
        "2 trouble",
        "usage",
        "refused write",
    ] {
        assert!(help.contains(part), "{part:?} not in --help:\n{help}");
    }
    // A usage error is trouble, for the binary and every subcommand.
    for args in [
        vec!["--no-such-flag"],
        vec!["check", P01, "--no-such-flag"],
        vec!["no-such-command", P01],
    ] {
        let out = run(&args);
        expect_exit(&out, EXIT_TROUBLE);
        assert!(stderr(&out).contains("Usage:"), "{}", stderr(&out));
    }
}
