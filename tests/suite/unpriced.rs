//! Unpriced is never zero (issue #61): with a price file that covers only some models — here
//! `mock-a`, the model of p01, p01.packed and p02, and not p11's `mock-o` nor p12's `mock-m` —
//! every form of `cost FILE`, `cost DIR` and `compare` says "unpriced" (or `null`, or an empty
//! cell) where a call has no price, states what a partly priced total covers and leaves out,
//! and `compare` falls back to tokens and says so. A log whose summarizer runs on another
//! model than its agent (p01 with its summaries' model renamed) is the partly priced session.

use crate::binary::{expect_exit, json_of, run, stdout};
use crate::common::repo_root as root;

use std::path::{Path, PathBuf};

use serde_json::Value;

const P01: &str = "tests/fixtures/policy/p01.jsonl";
const P11: &str = "tests/fixtures/policy/p11.jsonl";

/// Prices for `mock-a` only, in EUR.
const MOCK_A_ONLY: &str = r#"{"currency": "EUR", "per": 1000000, "models": {
    "mock-a": {"uncached": 0.28, "cache_read": 0.028, "cache_write": 0.28, "output": 0.42}}}"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder with the price file and, for the tests that need it, p01 with its summaries sent
/// to `mock-s` (no price): agent calls priced, summarizer calls not.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("prices.json"), MOCK_A_ONLY).unwrap();
        let p01 = std::fs::read_to_string(root().join(P01)).unwrap();
        let renamed: Vec<String> = p01
            .lines()
            .map(|l| {
                if l.contains(r#""type":"compaction/summary""#) {
                    l.replace(r#""model":"mock-a""#, r#""model":"mock-s""#)
                } else {
                    l.to_string()
                }
            })
            .collect();
        std::fs::write(dir.path().join("split.jsonl"), renamed.join("\n") + "\n").unwrap();
        Setup { dir }
    }

    fn prices(&self) -> PathBuf {
        self.dir.path().join("prices.json")
    }

    fn split(&self) -> PathBuf {
        self.dir.path().join("split.jsonl")
    }
}

fn cost_json(file: &str, prices: &Path) -> Value {
    let out = run(&["cost", file, "--json", "--prices", s(prices)]);
    expect_exit(&out, 0);
    json_of(&out)
}

#[test]
fn cost_file_says_unpriced_never_zero_in_every_form() {
    let setup = Setup::new();
    let prices = setup.prices();

    // Nothing priced (p11's model is mock-o).
    let doc = cost_json(P11, &prices);
    assert_eq!(
        doc["totals"]["all"]["cost"],
        Value::Null,
        "{}",
        doc["totals"]
    );
    assert_eq!(doc["totals"]["all"]["priced_cost"], Value::Null);
    assert!(doc["totals"]["all"]["unpriced"].as_u64().unwrap() > 0);
    assert_eq!(doc["unpriced_models"], serde_json::json!(["mock/mock-o"]));
    // A turn whose calls were all refused (no usage) billed nothing: its cost is a true 0.
    for turn in doc["turns"].as_array().unwrap() {
        if turn["all"]["reported"].as_u64() == Some(0) {
            assert_eq!(turn["all"]["cost"], serde_json::json!(0.0), "{turn}");
        } else {
            assert_eq!(turn["all"]["cost"], Value::Null, "{turn}");
        }
    }
    let out = run(&["cost", P11, "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let text = stdout(&out);
    let total = text
        .lines()
        .find(|l| l.trim_start().starts_with("total"))
        .unwrap();
    assert!(total.ends_with("unpriced"), "{total}");
    assert!(!total.contains("0.000000"), "{total}");
    assert!(
        text.contains("cost unpriced: no call of") && text.contains("unpriced: mock/mock-o"),
        "{text}"
    );

    // Partly priced: the agent's calls on mock-a, the summarizer's on mock-s.
    let split = setup.split();
    let doc = cost_json(s(&split), &prices);
    let all = &doc["totals"]["all"];
    assert_eq!(all["cost"], Value::Null, "{all}");
    let agent = doc["totals"]["agent"]["cost"].as_f64().unwrap();
    assert!(agent > 0.0);
    assert_eq!(all["priced_cost"].as_f64(), Some(agent), "the priced part");
    assert_eq!(doc["totals"]["summarizer"]["cost"], Value::Null);
    assert_eq!(all["unpriced"], doc["totals"]["summarizer"]["reported"]);
    assert_eq!(doc["unpriced_models"], serde_json::json!(["mock/mock-s"]));
    assert_eq!(doc["compaction_totals"]["balance"], Value::Null);
    let out = run(&["cost", s(&split), "--prices", s(&prices)]);
    let text = stdout(&out);
    let (reported, unpriced) = (
        all["reported"].as_u64().unwrap(),
        all["unpriced"].as_u64().unwrap(),
    );
    let expect = format!(
        "cost unpriced: {} EUR over {} of {reported} calls; {unpriced} unpriced: mock/mock-s",
        surface_analysis::cost::money(agent),
        reported - unpriced
    );
    assert!(text.contains(&expect), "{expect:?} not in\n{text}");

    // CSV: an unpriced call's cost is an empty cell, a priced one's a number.
    let out = run(&["cost", s(&split), "--csv", "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let text = stdout(&out);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (kind, cost) = (
        header.iter().position(|&h| h == "kind").unwrap(),
        header.iter().position(|&h| h == "cost").unwrap(),
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let summarizer: Vec<&&str> = (rows.iter())
        .filter(|r| r[kind] == "summarizer")
        .map(|r| &r[cost])
        .collect();
    assert!(!summarizer.is_empty());
    assert!(summarizer.iter().all(|c| c.is_empty()), "{summarizer:?}");
    assert!(
        rows.iter()
            .any(|r| r[kind] == "agent" && !r[cost].is_empty())
    );
}

#[test]
fn cost_dir_totals_the_priced_sessions_and_names_the_ones_left_out() {
    let setup = Setup::new();
    let prices = setup.prices();
    let folder = root().join("tests/fixtures/policy");
    let out = run(&["cost", s(&folder), "--json", "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let doc = json_of(&out);
    let sessions = doc["sessions"].as_array().unwrap();
    let mut priced_sum = 0.0;
    let mut unpriced = Vec::new();
    for row in sessions {
        let file = row["file"].as_str().unwrap();
        let cost = &row["totals"]["all"]["cost"];
        if file.contains("p11") || file.contains("p12") {
            assert_eq!(cost, &Value::Null, "{file}: unpriced is null, not 0");
            unpriced.push(file.to_string());
        } else {
            priced_sum += cost.as_f64().unwrap_or_else(|| panic!("{file}: {cost}"));
        }
    }
    assert_eq!(unpriced.len(), 2);
    let t = &doc["totals"];
    assert_eq!(t["cost"], Value::Null, "a total that leaves sessions out");
    let part = t["priced_cost"].as_f64().unwrap();
    assert!((part - priced_sum).abs() < 1e-9, "{part} vs {priced_sum}");
    assert_eq!(
        (
            t["priced_sessions"].as_u64(),
            t["unpriced_sessions"].as_u64()
        ),
        (Some(3), Some(2))
    );
    assert_eq!(
        t["unpriced_models"],
        serde_json::json!(["mock/mock-o", "mock/mock-m"])
    );
    assert_eq!(t["unpriced_files"].as_array().unwrap().len(), 2);

    let out = run(&["cost", s(&folder), "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let text = stdout(&out);
    for line in text
        .lines()
        .filter(|l| l.contains("p11") || l.contains("p12"))
    {
        assert!(line.contains("unpriced"), "{line}");
    }
    let last = text.lines().last().unwrap();
    assert!(
        last.contains(&format!(
            "cost {} EUR over 3 of 5 sessions; 2 unpriced (no price for mock/mock-o, mock/mock-m): ",
            surface_analysis::cost::money(part)
        )),
        "{last}"
    );
    for file in &unpriced {
        assert!(last.contains(file.as_str()), "{file} not named in {last}");
    }

    // CSV: the unpriced sessions' cost cells are empty.
    let out = run(&["cost", s(&folder), "--csv", "--prices", s(&prices)]);
    let text = stdout(&out);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cost = header.iter().position(|&h| h == "cost").unwrap();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let unpriced = line.contains("p11") || line.contains("p12");
        assert_eq!(cells[cost].is_empty(), unpriced, "{line}");
    }
}

#[test]
fn compare_falls_back_to_tokens_when_a_run_is_unpriced_and_says_so() {
    let setup = Setup::new();
    let prices = setup.prices();
    let out = run(&["compare", P01, P11, "--json", "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let doc = json_of(&out);
    let totals = &doc["totals"];
    assert!(totals["a"]["cost"].as_f64().is_some_and(|c| c > 0.0));
    assert_eq!(totals["b"]["cost"], Value::Null, "{}", totals["b"]);
    assert!(totals["b"]["unpriced_calls"].as_u64().unwrap() > 0);
    let cheaper = &totals["cheaper"];
    assert_eq!(cheaper["measure"], "tokens", "{cheaper}");
    assert_eq!(
        (
            cheaper["a_unpriced"].as_bool(),
            cheaper["b_unpriced"].as_bool()
        ),
        (Some(false), Some(true))
    );
    for turn in doc["turns"].as_array().unwrap() {
        if let Some(b) = turn["b"].as_object() {
            // Only a turn with a billed call can be unpriced (see above).
            let billed = b["prompt"].as_u64() != Some(0) || b["output"].as_u64() != Some(0);
            if billed {
                assert_eq!(b["cost"], Value::Null, "{turn}");
            }
        }
    }

    let out = run(&["compare", P01, P11, "--prices", s(&prices)]);
    expect_exit(&out, 0);
    let text = stdout(&out);
    let verdict = text.lines().last().unwrap();
    assert!(verdict.contains(" tokens"), "{verdict}");
    assert!(
        verdict.contains("in tokens, not money: the price file has no price for")
            && verdict.contains("calls of B"),
        "{verdict}"
    );
    assert!(!verdict.contains("both cost 0"), "{verdict}");
    assert!(
        text.contains("where priced (some calls are unpriced: runs weighed in tokens)"),
        "the header says the money is partial: {text}"
    );
    let b_total = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("total"))
        .nth(1)
        .unwrap();
    assert!(b_total.trim_end().ends_with("unpriced"), "{b_total}");

    // Neither run priced: never "both cost 0".
    let out = run(&["compare", P11, P11, "--prices", s(&prices)]);
    let verdict = stdout(&out).lines().last().unwrap().to_string();
    assert!(
        verdict.starts_with("neither run was cheaper: both paid for")
            && verdict.contains("calls of A and")
            && verdict.contains("calls of B"),
        "{verdict}"
    );
}

#[test]
fn compare_prints_no_turn_zero_row_that_paid_for_nothing() {
    // p01 and p02 open with an inbox splice before their first `turn/start`.
    let out = run(&["compare", P01, "tests/fixtures/policy/p02.jsonl", "--json"]);
    expect_exit(&out, 0);
    let doc = json_of(&out);
    let turns: Vec<u64> = (doc["turns"].as_array().unwrap().iter())
        .map(|t| t["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns.first(), Some(&1), "{turns:?}");
    let events = doc["totals"]["a"]["events"].as_u64().unwrap();
    assert_eq!(
        Some(events),
        doc["a"]["events"].as_u64(),
        "turn 0's events still count"
    );
    let out = run(&["compare", P01, "tests/fixtures/policy/p02.jsonl"]);
    let text = stdout(&out);
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("0  ")),
        "{text}"
    );
}
