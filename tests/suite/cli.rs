//! The binary, run as a user would: output shapes of docs/check.md, exit codes, and one clear
//! error line for unreadable input.

use crate::binary::{json_of, run};
use crate::common;

use common::*;
use serde_json::Value;

fn fixture(rel: &str) -> String {
    upstream(rel).to_string_lossy().into_owned()
}

fn temp_log(text: &str) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}

#[test]
fn surface_json_has_the_contract_fields() {
    let out = run(&[
        "surface",
        &fixture("v0-2026-08-20-head/compaction-recovery.session.jsonl"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["at"], Value::Null);
    assert_eq!(v["mode"], "surface");
    let seqs: Vec<u64> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [21, 13, 15, 28]);
    assert_eq!(v["nodes"][0]["type"], "user/message");
    assert_eq!(v["invalid"], Value::Array(vec![]));

    let out = run(&[
        "surface",
        &fixture("v0-2026-08-20-head/compaction-recovery.session.jsonl"),
        "--at",
        "20",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["at"], 20);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 3);
}

#[test]
fn check_exit_codes_and_json() {
    let clean = run(&[
        "check",
        &fixture("v1-2026-06-19/multi-turn.session.jsonl"),
        "--json",
    ]);
    assert_eq!(clean.status.code(), Some(0));
    let v = json_of(&clean);
    assert_eq!(v["events"], 65);
    assert_eq!(v["findings"], Value::Array(vec![]));

    let bad = temp_log(&text_of(&[
        msg(0, "append", None),
        msg(1, r#"{"op":"replace","start":9,"end":9}"#, Some("[0]")),
    ]));
    let out = run(&["check", bad.path().to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "surface.replace.start-not-on-surface");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["seq"], 1);
    assert_eq!(f["line"], 3);
    assert!(f["message"].as_str().unwrap().contains('9'));

    let human = run(&["check", bad.path().to_str().unwrap()]);
    assert_eq!(human.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("surface.replace.start-not-on-surface")
    );
}

#[test]
fn surface_lists_invalid_ops_up_to_the_cursor() {
    let log = temp_log(&text_of(&[
        msg(0, "append", None),
        msg(1, "prepend", None),
        msg(2, r#"{"op":"replace","start":0,"end":7}"#, Some("[0]")),
    ]));
    let path = log.path().to_str().unwrap();
    let v = json_of(&run(&["surface", path, "--json"]));
    let invalid: Vec<u64> = v["invalid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(invalid, [1, 2]);
    assert!(
        v["invalid"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("end seq 7")
    );
    let v = json_of(&run(&["surface", path, "--json", "--at", "1"]));
    assert_eq!(v["invalid"].as_array().unwrap().len(), 1);
}

#[test]
fn messages_are_a_json_array() {
    let out = run(&[
        "messages",
        &fixture("v0-2026-06-26-surface-merge/tool-call-turn.session.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let msgs = v.as_array().unwrap();
    assert!(msgs.len() >= 3);
    for m in msgs {
        assert!(m["seq"].is_u64());
        assert!(matches!(
            m["role"].as_str(),
            Some("user" | "assistant" | "system")
        ));
        assert!(m["content"].is_array());
    }
    assert!(
        msgs.iter()
            .any(|m| m["content"][0]["type"] == "tool-result")
    );
}

#[test]
fn preview_valid_and_invalid() {
    let f = fixture("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let out = run(&[
        "preview",
        &f,
        "--start",
        "13",
        "--end",
        "15",
        "--summary",
        "ran bash",
        "--time",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["valid"], true);
    assert_eq!(v["shadowed"], serde_json::json!([13, 15]));
    assert_eq!(v["before"]["nodes"], 4);
    assert_eq!(v["after"]["nodes"], 3);
    assert_eq!(v["event"]["seq"], 31);
    assert_eq!(v["event"]["type"], "user/message");
    assert_eq!(
        v["event"]["surfaceOp"],
        serde_json::json!({"op":"replace","start":13,"end":15})
    );
    assert_eq!(v["event"]["sourceEventSeqs"], serde_json::json!([13, 15]));
    assert_eq!(v["event"]["time"], 5);

    let out = run(&["preview", &f, "--start", "15", "--end", "13", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["valid"], false);
    assert!(v["errors"][0].as_str().unwrap().contains("after"));
}

#[test]
fn sessions_lists_the_header() {
    let out = run(&[
        "sessions",
        &fixture("v0-2026-06-26-surface-merge/subagent-fork.session.1.jsonl"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v[0]["seed_length"], 38);
    assert!(v[0]["parent"].is_string());
}

#[test]
fn repair_adds_marked_closers() {
    let f = fixture("v0-2026-08-20-head/tool-outcome-unknown.session.expected.jsonl");
    // The fixture is already repaired (balanced): no closers.
    let v = json_of(&run(&["surface", &f, "--json", "--repair"]));
    assert_eq!(v["repaired"], 0);
    let open = temp_log(&text_of(&[
        other(
            0,
            "turn/start",
            r#"{"turn":1,"trigger":{"kind":"continuation"}}"#,
        ),
        other(1, "step/start", r#"{"turn":1,"step":1}"#),
        r#"{"type":"assistant/message","seq":2,"time":9,"data":{"turn":1,"step":1,"content":[{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"}]},"surfaceOp":"append"}"#.to_string(),
        other(3, "tool/call", r#"{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}"#),
    ]));
    let path = open.path().to_str().unwrap();
    let v = json_of(&run(&["surface", path, "--json", "--repair"]));
    assert_eq!(v["repaired"], 3);
    let last = v["nodes"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["seq"], 4);
    assert_eq!(last["type"], "tool/result");
    assert_eq!(last["synthesized"], true);
    let plain = json_of(&run(&["surface", path, "--json"]));
    assert_eq!(plain["nodes"].as_array().unwrap().len(), 1);
    let check = json_of(&run(&["check", path, "--json"]));
    assert_eq!(check["findings"][0]["rule"], "repair.open-turn");
}

#[test]
fn unreadable_input_is_one_line_and_exit_2() {
    for args in [
        vec!["check", "/nonexistent/x.jsonl"],
        vec!["surface", "/nonexistent/x.jsonl", "--json"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("/nonexistent/x.jsonl"));
        assert!(!err.contains("panicked"));
    }
    let empty = temp_log("");
    let out = run(&["check", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(empty.path().to_str().unwrap()));
}

#[test]
fn help_and_version() {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    // The first line names every headless command the help lists below it.
    let first = help.lines().next().unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 9, "{help}");
    for cmd in commands {
        assert!(first.contains(cmd), "the first line omits {cmd}: {first}");
    }
    let out = run(&["--version"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("surface-viewer "));
}

#[test]
fn check_names_the_era_and_format() {
    let f = fixture("v0-2026-08-20-head/packed-chunks.session.jsonl");
    let out = run(&["check", &f]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("events (HEAD (2026-08), JSONL packed, surface mode), 0 errors"),
        "{first}"
    );
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains("turn/start without trigger"),
        "{text}"
    );

    let v = json_of(&run(&["check", &f, "--json"]));
    assert_eq!(v["era"]["id"], "head");
    assert_eq!(v["era"]["label"], "HEAD (2026-08)");
    assert!(v["era"]["reason"].as_str().unwrap().contains("trigger"));
    assert_eq!(v["era"]["at_least"], "head");
    assert_eq!(v["era"]["judged_as"], "head");

    let old = json_of(&run(&[
        "check",
        &fixture("v0-2026-07-20-live/live-mode-switching-2026-07-07.session.jsonl"),
        "--json",
    ]));
    // Recorded on 07-07 (request/header-delta), with the delegationDepth of 07-20 added.
    assert_eq!(old["era"]["id"], "surface-merge");
    assert_eq!(old["era"]["at_least"], "mid-july");
    assert_eq!(old["era"]["judged_as"], "surface-merge");
    assert!(
        old["era"]["reason"]
            .as_str()
            .unwrap()
            .contains("delegationDepth")
    );
}

#[test]
fn check_judges_a_log_by_the_newest_era_that_could_have_written_it() {
    // delegationDepth and nothing HEAD refuses: mid-July or later, so HEAD's rules apply and
    // an extra key in a replace op is an error.
    let log = temp_log(concat!(
        r#"{"type":"session","version":0,"id":"t","createdAt":1,"delegationDepth":0}"#,
        "\n",
        r#"{"type":"user/message","seq":0,"time":0,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u0"},"surfaceOp":"append"}"#,
        "\n",
        r#"{"type":"user/message","seq":1,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0,"why":"x"}}"#,
        "\n",
    ));
    let f = log.path().to_string_lossy().into_owned();
    let out = run(&["check", &f]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().nth(1).unwrap(),
        "  era: mid-July or later (judged as HEAD) — header has delegationDepth 0 (from \
         2026-07-20); nothing older than HEAD",
    );
    assert!(text.contains("error   surface.op-malformed"), "{text}");
    let v = json_of(&run(&["check", &f, "--json"]));
    assert_eq!(v["era"]["id"], "head");
    assert_eq!(v["era"]["at_least"], "mid-july");
    assert_eq!(v["era"]["judged_as"], "head");
}

#[test]
fn an_unreadable_message_is_printed_with_its_reason() {
    let depth = 5_000;
    let deep = format!(
        r#"{{"type":"user/message","seq":1,"time":1,"data":{{"content":[{{"type":"text","text":"x","n":{}0{}}}],"source":{{"kind":"user"}}}},"surfaceOp":"append"}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let log = temp_log(&text_of(&[msg(0, "append", None), deep]));
    let path = log.path().to_str().unwrap();
    let v = json_of(&run(&["messages", path]));
    assert_eq!(v[1]["seq"], 1);
    assert_eq!(v[1]["role"], "user");
    assert_eq!(v[1]["content"], Value::Array(vec![]));
    assert!(v[1]["unreadable"].as_str().unwrap().contains("nested"));
    assert_eq!(v[0].get("unreadable"), None);

    let out = run(&["check", path, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c = json_of(&out);
    assert_eq!(c["findings"][0]["rule"], "message.shape");
    assert_eq!(c["findings"][0]["seq"], 1);
}

#[test]
fn version_is_the_cargo_version_and_the_changelog_s_newest() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        format!("surface-viewer {version}")
    );
    let changelog = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("CHANGELOG.md"),
    )
    .unwrap();
    let newest = changelog
        .lines()
        .find_map(|l| l.strip_prefix("## "))
        .and_then(|heading| heading.split_whitespace().next())
        .expect("CHANGELOG.md has a `## VERSION — DATE` entry");
    assert_eq!(
        newest, version,
        "CHANGELOG.md's newest entry against Cargo.toml"
    );
}
