//! What a summary kept, through the public API and the binary: a hand-made session where each
//! kind of fact is kept, lost, and lost then needed again; the sample's first summary by hand;
//! the JSON shape on every fixture.

use crate::audit::Log;
use crate::binary::{expect_exit, run};
use serde_json::{Value, json};
use surface_analysis::audit::{Audit, FactKind, audit};
use surface_engine::{Meter, Surface};

fn audit_of(log: &surface_engine::EventLog) -> Audit {
    let surface = Surface::at_end(log);
    let meter = Meter::build(log, &surface);
    audit(log, &surface, &meter, 0.8)
}

/// `(facts, survived, needed, needed_lost)` of one kind.
fn figures(a: &Audit, k: usize, kind: FactKind) -> (u64, u64, u64, u64) {
    let f = a.replaces[k].fidelity.kinds.get(kind);
    (f.facts, f.survived, f.needed, f.needed_lost)
}

/// A session whose summary keeps some facts of each kind and loses others; a later tool call
/// and a user message need two of the lost ones.
fn session() -> (surface_engine::EventLog, String, u64, u64) {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.window(100_000);
    let first = l.user(
        "fix parse_amount in src/parse.rs and C:\\work\\ledger\\main.rs; spec at https://example.com/spec and https://example.com/old",
    );
    let result = l.tool(
        "c1",
        "bash",
        r#"{"command":"cargo test parses_negative_amounts"}"#,
        "error[E0308]: mismatched types\ntest parse::tests::parses_negative_amounts ... FAILED\nfinished in 1.87s, 340 ms per test",
    );
    l.step_end();
    l.step_start();
    l.compact(
        &[first, result - 2, result],
        "Fixed parse_amount in src/parse.rs (E0308 gone); tests ran in 1.87s. Spec: https://example.com/spec",
        json!({}),
        Some(1),
    );
    l.step_end();
    l.step_start();
    let call = l.tool(
        "c2",
        "bash",
        r#"{"command":"cargo test parses_negative_amounts"}"#,
        "ok",
    ) - 1;
    l.step_end();
    l.turn_end();
    l.turn_start();
    let user = l.user("and look at C:\\work\\ledger\\main.rs again");
    (l.build(), l.text(), call, user)
}

#[test]
fn each_kind_kept_lost_and_lost_then_needed() {
    let (log, _, call, user) = session();
    let a = audit_of(&log);
    assert_eq!(a.replaces.len(), 1);
    // Kept: src/parse.rs; lost, then needed by the user message: the Windows path.
    assert_eq!(figures(&a, 0, FactKind::Path), (2, 1, 1, 1));
    // The shell call's command, lost, then run again.
    assert_eq!(figures(&a, 0, FactKind::Command), (1, 0, 1, 1));
    // parse_amount kept; parses_negative_amounts (in the command) lost and needed.
    assert_eq!(figures(&a, 0, FactKind::Identifier), (2, 1, 1, 1));
    assert_eq!(figures(&a, 0, FactKind::Number), (2, 1, 0, 0));
    // E0308 kept; the message and the failing test's name lost.
    assert_eq!(figures(&a, 0, FactKind::Error), (3, 1, 0, 0));
    assert_eq!(figures(&a, 0, FactKind::Url), (2, 1, 0, 0));
    let f = &a.replaces[0].fidelity;
    assert_eq!(f.fidelity, Some(5.0 / 12.0));
    assert_eq!(f.needed_fidelity, Some(0.0));
    let seq_of = |text: &str| {
        let r = f.facts.iter().find(|r| r.text == text).unwrap();
        r.needed_seq
    };
    assert_eq!(seq_of("cargo test parses_negative_amounts"), Some(call));
    assert_eq!(seq_of("C:\\work\\ledger\\main.rs"), Some(user));
    assert_eq!(seq_of("https://example.com/old"), None);
    // Lost ones first in the list a view shows.
    assert!(!f.facts[0].survived && f.facts.last().unwrap().survived);
    let totals = a.fidelity_totals.kinds.get(FactKind::Command);
    assert_eq!((totals.facts, totals.needed_lost), (1, 1));
}

#[test]
fn the_json_carries_every_kind_and_the_totals() {
    let (_, text, _, _) = session();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    let out = run(&["audit", path.to_str().unwrap(), "--json"]);
    expect_exit(&out, 0);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fidelity = &v["replaces"][0]["fidelity"];
    let kinds: Vec<&String> = fidelity["kinds"].as_object().unwrap().keys().collect();
    assert_eq!(
        kinds,
        ["path", "command", "identifier", "number", "error", "url"]
    );
    assert_eq!(
        fidelity["kinds"]["command"],
        json!({"facts": 1, "survived": 0, "needed": 1, "needed_lost": 1,
               "lost": ["cargo test parses_negative_amounts"]})
    );
    assert_eq!(fidelity["needed_fidelity"], json!(0.0));
    assert_eq!(
        v["fidelity_totals"]["kinds"]["path"],
        json!({"facts": 2, "survived": 1, "needed": 1, "needed_lost": 1})
    );
}

#[test]
fn the_html_page_charts_survival_and_the_command_prints_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("a.html");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/sample.session.jsonl");
    let out = run(&["audit", sample, "--html", out_path.to_str().unwrap()]);
    expect_exit(&out, 0);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("HTML report written to "), "{stdout}");
    let html = std::fs::read_to_string(&out_path).unwrap();
    assert!(html.contains("<h2>What the summaries kept</h2>"));
    assert!(html.contains("aria-label=\"Survival by kind of fact\""));
}
