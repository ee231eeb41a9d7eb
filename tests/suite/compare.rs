//! Two runs side by side (docs/compare.md) on real harness runs: p01 and p02 ran one script at
//! threshold 0.8 and 0.7 (`tests/fixtures/policy/pairs.json`: byte-identical below seq 211). The
//! first divergence, and every turn's figures held against counts made here from the raw JSON
//! lines (serde_json values, never the engine); a run against itself, against a packed copy,
//! against a copy written in an older era's shapes, against another task, a log that stops
//! mid-turn and an empty one; then `compare` as a user runs it.

use crate::binary::{expect_exit, run, stdout};
use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use surface_analysis::compare::{Analysed, Comparison, DivergenceKind, Side, analyse, compare};
use surface_analysis::cost::PriceTable;
use surface_engine::{EventLog, Meter, Surface, detect_era};

const P01: &str = "tests/fixtures/policy/p01.jsonl";
const P01_PACKED: &str = "tests/fixtures/policy/p01.packed.jsonl";
const P02: &str = "tests/fixtures/policy/p02.jsonl";
const P11: &str = "tests/fixtures/policy/p11.jsonl";
const P12: &str = "tests/fixtures/policy/p12.jsonl";
const SAMPLE: &str = "assets/sample.session.jsonl";
const PRICES: &str = "assets/prices.example.json";
const HEAD_TOOL_TURN: &str = "v0-2026-08-20-head/tool-call-turn.session.jsonl";

fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn text(rel: &str) -> String {
    std::fs::read_to_string(path(rel)).unwrap()
}

/// A run read and analysed, as `compare` reads each side.
struct Run {
    log: EventLog,
    analysed: Analysed,
}

fn run_of_text(text: &str, prices: Option<&PriceTable>) -> Run {
    let log = common::log_of(text);
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let analysed = analyse(&log, &surface, &meter, 0.8, prices);
    Run { log, analysed }
}

fn run_of(rel: &str) -> Run {
    run_of_text(&text(rel), None)
}

fn side(r: &Run) -> Side<'_> {
    Side {
        log: &r.log,
        analysed: &r.analysed,
    }
}

fn compared(a: &Run, b: &Run) -> Comparison {
    compare(side(a), side(b))
}

// --- Counts from the raw JSON -----------------------------------------------------------

/// The events of a JSONL text (the header and blank lines left out).
fn events(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v.get("seq").is_some())
        .collect()
}

fn kind(e: &Value) -> &str {
    e["type"].as_str().unwrap()
}

/// One turn's figures, counted from the lines: `[agent calls, prompt, cache read, output,
/// summaries, prunes, failed]`.
type Counts = [u64; 7];

/// Every turn's counts, by turn index: the number of `turn/start` lines at or before an event.
fn counts(events: &[Value]) -> Vec<Counts> {
    let turns = events.iter().filter(|e| kind(e) == "turn/start").count();
    let mut out = vec![[0u64; 7]; turns + 1];
    let mut turn = 0;
    for (i, e) in events.iter().enumerate() {
        let t = kind(e);
        if t == "turn/start" {
            turn += 1;
        }
        let row = &mut out[turn];
        match t {
            "step/start" => {
                // The step runs to the next step or turn; it made a call when it streamed or
                // answered. Its usage: the message's, else its first `usage` chunk.
                let step: Vec<&Value> = events[i + 1..]
                    .iter()
                    .take_while(|e| !matches!(kind(e), "step/start" | "turn/start"))
                    .collect();
                let called = step
                    .iter()
                    .any(|e| matches!(kind(e), "assistant/chunk" | "assistant/message"));
                if !called {
                    continue;
                }
                row[0] += 1;
                let message = step
                    .iter()
                    .find(|e| kind(e) == "assistant/message")
                    .and_then(|e| e["data"].get("usage"));
                let chunk = step.iter().find_map(|e| {
                    let c = &e["data"]["chunk"];
                    (kind(e) == "assistant/chunk" && c["type"] == "usage").then(|| &c["usage"])
                });
                if let Some(u) = message.or(chunk) {
                    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    row[1] += n("inputTokens") + n("cacheReadTokens") + n("cacheWriteTokens");
                    row[2] += n("cacheReadTokens");
                    row[3] += n("outputTokens");
                }
            }
            "compaction/end" if e["data"].get("error").is_some_and(|x| !x.is_null()) => {
                row[6] += 1;
            }
            _ => {}
        }
        // A replace directly after `compaction/summary` or `compaction/prune`.
        let replace = e
            .get("surfaceOp")
            .is_some_and(|op| op.get("op").and_then(Value::as_str) == Some("replace"));
        if replace && i > 0 {
            match kind(&events[i - 1]) {
                "compaction/summary" => row[4] += 1,
                "compaction/prune" => row[5] += 1,
                _ => {}
            }
        }
    }
    out
}

/// The engine's counts for each turn of one side of a comparison.
fn engine_counts(c: &Comparison, a_side: bool) -> Vec<(u64, Counts)> {
    c.turns
        .iter()
        .filter_map(|t| {
            let r = if a_side { t.a } else { t.b }?;
            Some((
                t.turn,
                [
                    r.agent_calls,
                    r.prompt,
                    r.cache_read.unwrap_or(0),
                    r.output,
                    r.summaries,
                    r.prunes,
                    r.failed,
                ],
            ))
        })
        .collect()
}

fn expected(rel_or_text: &[Value]) -> Vec<(u64, Counts)> {
    counts(rel_or_text)
        .into_iter()
        .enumerate()
        .map(|(t, c)| (t as u64, c))
        // Turn 0 (the events before the first `turn/start`) is a row only when it did something.
        .filter(|(t, c)| *t > 0 || *c != [0; 7])
        .collect()
}

// --- The pair p01 / p02 -------------------------------------------------------------------

#[test]
fn p01_and_p02_first_diverge_at_seq_211_where_p02_prunes() {
    let (a, b) = (run_of(P01), run_of(P02));
    let c = compared(&a, &b);
    let d = c.first_divergence.as_ref().unwrap();
    assert_eq!((d.a_seq, d.b_seq), (Some(211), Some(211)));
    assert_eq!(d.a_type.as_deref(), Some("step/start"));
    assert_eq!(d.b_type.as_deref(), Some("compaction/prune"));
    assert_eq!(d.kind, DivergenceKind::Type);
    // Every event before it pairs equal: 211 of them, seqs 0..=210 (pairs.json says the logs
    // are byte-identical below seq 211).
    let pairs: Value = serde_json::from_str(&text("tests/fixtures/policy/pairs.json")).unwrap();
    assert_eq!(pairs[0]["identical_events_before_seq"], json!(211));
    assert_eq!(d.index, 211);
    // Turn 1, step 8 in p01 (the check before it found nothing to do); p02 pruned after step 7.
    let (pa, pb) = (d.a_position.unwrap(), d.b_position.unwrap());
    assert_eq!((pa.turn, pa.step, pb.turn, pb.step), (1, 8, 1, 7));
    assert!(d.a_summary.is_some() && d.b_summary.is_some());
}

#[test]
fn every_turn_of_every_policy_run_matches_counts_from_the_lines() {
    for (rel_a, rel_b) in [(P01, P02), (P11, P12)] {
        let (a, b) = (run_of(rel_a), run_of(rel_b));
        let c = compared(&a, &b);
        let want_a = expected(&events(&text(rel_a)));
        let want_b = expected(&events(&text(rel_b)));
        assert_eq!(engine_counts(&c, true), want_a, "{rel_a}");
        assert_eq!(engine_counts(&c, false), want_b, "{rel_b}");
        // The totals are the turns' sums.
        let sum = |w: &[(u64, Counts)]| {
            w.iter().fold([0u64; 7], |mut s, (_, c)| {
                for (x, y) in s.iter_mut().zip(c) {
                    *x += y;
                }
                s
            })
        };
        let t = &c.totals.a;
        assert_eq!(
            [
                t.agent_calls,
                t.prompt,
                t.cache_read.unwrap(),
                t.output,
                t.summaries,
                t.prunes,
                t.failed
            ],
            sum(&want_a),
            "{rel_a}"
        );
    }
}

#[test]
fn the_runs_exercise_what_the_counts_check() {
    // So that the test above could fail: compactions of every kind and a failed one.
    let all: Vec<Counts> = [P01, P02, P11, P12]
        .iter()
        .flat_map(|r| counts(&events(&text(r))))
        .collect();
    let any = |k: usize| all.iter().any(|c| c[k] > 0);
    assert!(
        any(4) && any(5) && any(6),
        "summaries, prunes and a failed compaction"
    );
    // p02 compacted more than p01: the difference is not zero.
    let c = compared(&run_of(P01), &run_of(P02));
    assert_eq!(c.totals.b_minus_a.summaries, 3);
    assert!(!c.totals.b_minus_a.is_zero());
}

#[test]
fn peak_and_requests_over_the_threshold_follow_the_meter() {
    // At threshold 0.7 p01 (run at 0.8) sent 9 requests over it, p02 one (the policy lab's own
    // count of the same runs, README § The policy lab).
    let a_text = text(P01);
    let b_text = text(P02);
    let run_at = |t: &str| {
        let log = common::log_of(t);
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let peak = (0..log.len()).map(|i| meter.total_after(i)).max().unwrap();
        let analysed = analyse(&log, &surface, &meter, 0.7, None);
        (Run { log, analysed }, u64::from(peak))
    };
    let ((a, peak_a), (b, peak_b)) = (run_at(&a_text), run_at(&b_text));
    let c = compared(&a, &b);
    assert_eq!(
        (c.totals.a.over_threshold, c.totals.b.over_threshold),
        (9, 1)
    );
    assert_eq!(
        (c.totals.a.peak_total, c.totals.b.peak_total),
        (peak_a, peak_b)
    );
    assert_eq!(c.totals.b_over_a.over_threshold, Some(1.0 / 9.0));
}

// --- A run against itself ---------------------------------------------------------------

#[test]
fn a_run_against_itself_has_no_divergence_and_zero_differences() {
    let prices = PriceTable::parse(&text(PRICES)).unwrap();
    for rel in [P01, P11, SAMPLE] {
        let (a, b) = (
            run_of_text(&text(rel), Some(&prices)),
            run_of_text(&text(rel), Some(&prices)),
        );
        let c = compared(&a, &b);
        assert_eq!(c.first_divergence, None, "{rel}");
        assert!(c.totals.b_minus_a.is_zero(), "{rel}");
        for t in &c.turns {
            assert!(t.b_minus_a.unwrap().is_zero(), "{rel} turn {}", t.turn);
            assert!(t.calls.iter().all(|p| p.a == p.b));
        }
        assert_eq!(c.totals.cheaper.run, None);
        assert!(c.totals.a.cost.unwrap() > 0.0);
    }
}

#[test]
fn a_packed_and_an_unpacked_copy_of_one_session_do_not_diverge() {
    let (a, b) = (run_of(P01), run_of(P01_PACKED));
    assert!(!b.log.packed_rows.is_empty() && a.log.packed_rows.is_empty());
    assert_eq!(a.log.len(), b.log.len());
    let c = compared(&a, &b);
    assert_eq!(c.first_divergence, None);
    assert!(c.totals.b_minus_a.is_zero());
    // And the packed copy against p02 diverges where the unpacked one does.
    let d = compared(&b, &run_of(P02)).first_divergence.unwrap();
    assert_eq!((d.a_seq, d.b_seq), (Some(211), Some(211)));
}

/// A HEAD log rewritten as a mid-July harness (before packed rows and identified messages)
/// wrote the same session: chunk runs unpacked, a flat `user/message` without `role` and `id`,
/// a flat `assistant/message` with `provenance`, a flat `tool/result`, `turn/start` with a
/// `trigger`, and a header without `delegationDepth`.
fn rewritten_mid_july(head: &EventLog, header: &Value) -> String {
    let mut h = header.clone();
    h.as_object_mut().unwrap().remove("delegationDepth");
    let mut lines = vec![h.to_string()];
    for idx in head.indices() {
        let mut e: Value = serde_json::from_str(&head.event_json(idx)).unwrap();
        let data = e["data"].as_object_mut().unwrap();
        match head.type_name(idx) {
            "user/message" => {
                data.remove("role");
                data.remove("id");
            }
            "assistant/message" => {
                let m = data.remove("message").unwrap();
                data.insert("content".into(), m["content"].clone());
                let s = &m["source"];
                data.insert(
                    "provenance".into(),
                    json!({"provider": s["provider"], "model": s["model"]}),
                );
            }
            "tool/result" => {
                let m = data.remove("message").unwrap();
                let block = &m["content"][0];
                data.insert("callId".into(), m["source"]["callId"].clone());
                data.insert("content".into(), block["content"].clone());
                data.insert("isError".into(), block["isError"].clone());
            }
            "turn/start" => {
                data.insert(
                    "trigger".into(),
                    json!({"kind": "message", "source": {"kind": "user"}}),
                );
            }
            _ => {}
        }
        lines.push(e.to_string());
    }
    lines.join("\n") + "\n"
}

#[test]
fn a_log_against_itself_written_by_an_older_era_does_not_diverge() {
    let head_text = std::fs::read_to_string(common::upstream(HEAD_TOOL_TURN)).unwrap();
    let header: Value = serde_json::from_str(head_text.lines().next().unwrap()).unwrap();
    let head = run_of_text(&head_text, None);
    let old_text = rewritten_mid_july(&head.log, &header);
    let old = run_of_text(&old_text, None);
    // Another era by the viewer's own detector, and not a copy of the bytes.
    let (era_head, era_old) = (detect_era(&head.log), detect_era(&old.log));
    assert!(
        era_old.at_least < era_head.at_least,
        "{era_old:?} vs {era_head:?}"
    );
    assert!(old.log.packed_rows.is_empty() && !head.log.packed_rows.is_empty());
    let flat = |t: &str| {
        events(&old_text)
            .iter()
            .filter(|e| kind(e) == t)
            .all(|e| e["data"].get("message").is_none() && e["data"].get("id").is_none())
    };
    assert!(flat("user/message") && flat("assistant/message") && flat("tool/result"));
    let c = compared(&head, &old);
    assert_eq!(c.first_divergence, None);
    assert!(c.totals.b_minus_a.is_zero());
    assert_eq!(c.totals.a.agent_calls, 2);
    // One word changed in the old copy's tool result is still found, at its HEAD path.
    let changed = old_text.replacen("SNAPSHOT_OK\\n", "SNAPSHOT_KO\\n", 1);
    let d = compared(&head, &run_of_text(&changed, None))
        .first_divergence
        .unwrap();
    assert_eq!(d.kind, DivergenceKind::Content);
    assert_eq!(d.a_type.as_deref(), Some("tool/result"));
    assert_eq!(
        d.path.as_deref(),
        Some("data.message.content[0].content[0].text")
    );
}

// --- Other tasks, other lengths, nothing ------------------------------------------------

#[test]
fn runs_of_other_tasks_diverge_early_and_pair_their_turns() {
    let (a, b) = (run_of(P01), run_of(SAMPLE));
    let c = compared(&a, &b);
    let d = c.first_divergence.as_ref().unwrap();
    assert!(d.index < 5, "{d:?}");
    // Every turn of either run is paired, the missing side null.
    let turns_a = a.analysed.positions.turns();
    let turns_b = b.analysed.positions.turns();
    assert_eq!(c.turns.last().unwrap().turn, turns_a.max(turns_b));
    for t in c.turns.iter().filter(|t| t.turn > 0) {
        assert_eq!(t.a.is_some(), t.turn <= turns_a, "turn {}", t.turn);
        assert_eq!(t.b.is_some(), t.turn <= turns_b, "turn {}", t.turn);
        assert_eq!(t.b_minus_a.is_some(), t.a.is_some() && t.b.is_some());
    }
    assert_eq!(
        c.totals.b_minus_a.agent_calls,
        b.analysed.total.agent_calls as i64 - a.analysed.total.agent_calls as i64
    );
}

#[test]
fn a_run_that_stops_mid_turn_diverges_where_it_stops() {
    // p02 cut inside turn 2, after a step's `assistant/message` (as a crashed harness leaves it).
    let full = text(P02);
    let lines: Vec<&str> = full.lines().collect();
    let evs = events(&full);
    let second_turn = evs
        .iter()
        .position(|e| kind(e) == "turn/start" && e["data"]["turn"] == 2)
        .unwrap();
    let cut = evs[second_turn..]
        .iter()
        .position(|e| kind(e) == "assistant/message")
        .unwrap()
        + second_turn
        + 1;
    let short_text = lines[..=cut].join("\n") + "\n"; // the header line + `cut` events
    let short = run_of_text(&short_text, None);
    assert_eq!(short.log.len(), cut);
    let long = run_of(P02);
    let c = compared(&long, &short);
    let d = c.first_divergence.as_ref().unwrap();
    assert_eq!(d.kind, DivergenceKind::BEnded);
    assert_eq!(d.index, cut);
    assert_eq!(d.a_seq, Some(evs[cut]["seq"].as_u64().unwrap()));
    assert_eq!((d.b_seq, d.b_type.as_deref()), (None, None));
    // Turn 1 is the same; turn 2 is B's part of it; turn 3 only A has.
    let turn = |t: u64| c.turns.iter().find(|p| p.turn == t).unwrap();
    assert!(turn(1).b_minus_a.unwrap().is_zero());
    let (two_a, two_b) = (turn(2).a.unwrap(), turn(2).b.unwrap());
    assert!(two_b.agent_calls >= 1 && two_b.agent_calls < two_a.agent_calls);
    assert_eq!(two_b.events, (cut - second_turn) as u64);
    assert!(turn(3).a.is_some() && turn(3).b.is_none() && turn(3).b_minus_a.is_none());
    // Counts from the lines hold on the cut log too.
    assert_eq!(engine_counts(&c, false), expected(&events(&short_text)));
}

#[test]
fn an_empty_log_compares_with_nothing_in_it() {
    let empty = run_of_text(&(common::HEADER.to_string() + "\n"), None);
    assert_eq!(empty.log.len(), 0);
    let p01 = run_of(P01);
    let c = compared(&empty, &p01);
    let d = c.first_divergence.as_ref().unwrap();
    assert_eq!(
        (d.kind, d.index, d.a_seq, d.b_seq),
        (DivergenceKind::AEnded, 0, None, Some(0))
    );
    assert!(c.turns.iter().all(|t| t.a.is_none()));
    assert_eq!(c.totals.a.agent_calls, 0);
    assert_eq!(c.totals.b_over_a.prompt, None); // A is 0
    assert_eq!(compared(&empty, &empty).first_divergence, None);
}

// --- The command ------------------------------------------------------------------------

#[test]
fn compare_json_is_the_document_of_section_12() {
    let out = run(&["compare", P01, P02, "--json"]);
    expect_exit(&out, 0);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["a"]["file"], json!(P01));
    assert_eq!(doc["b"]["file"], json!(P02));
    let d = &doc["first_divergence"];
    assert_eq!(
        (&d["a_seq"], &d["a_type"], &d["b_seq"], &d["b_type"]),
        (
            &json!(211),
            &json!("step/start"),
            &json!(211),
            &json!("compaction/prune")
        )
    );
    let row_keys = [
        "agent_calls",
        "prompt",
        "cache_read",
        "output",
        "summaries",
        "prunes",
        "failed",
        "peak_total",
        "over_threshold",
        "refetches",
        "cost",
    ];
    let turns = doc["turns"].as_array().unwrap();
    assert!(!turns.is_empty());
    for t in turns {
        assert!(t["turn"].is_u64());
        for side in ["a", "b"] {
            let row = &t[side];
            assert!(
                row.is_null() || row_keys.iter().all(|k| row.get(k).is_some()),
                "{t}"
            );
            if row.is_object() {
                assert!(row["cost"].is_null(), "cost is null unless priced");
            }
        }
    }
    for side in ["a", "b", "b_minus_a", "b_over_a"] {
        let row = &doc["totals"][side];
        assert!(
            row_keys.iter().all(|k| row.get(k).is_some()),
            "{side}: {row}"
        );
    }
    assert_eq!(doc["totals"]["b_minus_a"]["summaries"], json!(3));
    assert!(
        doc["totals"]["b_over_a"]["failed"].is_null(),
        "A is 0: null"
    );
    // Priced: every row has a cost.
    let out = run(&["compare", P01, P02, "--json", "--prices", PRICES]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(doc["totals"]["a"]["cost"].as_f64().unwrap() > 0.0);
    assert_eq!(doc["currency"], json!("USD"));
}

#[test]
fn compare_says_why_each_runs_cache_missed_as_cost_requests_does() {
    let out = run(&["compare", P01, P02, "--json", "--prices", PRICES]);
    expect_exit(&out, 0);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut lines = Vec::new();
    for (side, file) in [("a", P01), ("b", P02)] {
        let single = run(&["cost", file, "--requests", "--json", "--prices", PRICES]);
        let single: Value = serde_json::from_str(&stdout(&single)).unwrap();
        let got = &doc["cache_misses"][side];
        for key in [
            "resent_tokens",
            "resent_by_cause",
            "provider_miss",
            "resent_cost",
        ] {
            assert_eq!(got[key], single[key], "{side}: {key}");
        }
        assert!(got["resent_by_cause"]["replace"].as_u64().unwrap() > 0);
        lines.push(format!(
            "why {}'s cache missed — resent: {} tokens",
            side.to_uppercase(),
            got["resent_tokens"]
        ));
    }
    let text = stdout(&run(&["compare", P01, P02]));
    for line in lines {
        assert!(text.contains(&line), "{line}\n{text}");
    }
}

#[test]
fn the_report_names_the_divergence_the_turns_and_the_cheaper_run() {
    let out = run(&["compare", P01, P02]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("first divergence after 211 equal events"),
        "{text}"
    );
    assert!(text.contains("A  seq 211"), "{text}");
    assert!(text.contains("B  seq 211"), "{text}");
    assert!(text.contains("compaction/prune"), "{text}");
    assert!(text.contains(" total  A"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("B was cheaper than A by 6070 tokens"),
        "{last}"
    );
    assert!(last.contains("summaries 8 → 11"), "{last}");
    // In money the other run wins: the summarizer calls cost more than the prompts saved.
    let out = run(&["compare", P01, P02, "--prices", PRICES]);
    let last = stdout(&out).lines().last().unwrap().to_string();
    assert!(
        last.starts_with("A was cheaper than B by 0.000297 USD"),
        "{last}"
    );
    // The same run twice: no divergence, no winner.
    let out = run(&["compare", P01, P01_PACKED]);
    let text = stdout(&out);
    assert!(text.contains("no divergence"), "{text}");
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("neither run was cheaper"),
        "{text}"
    );
}

#[test]
fn trouble_is_exit_2_with_the_file_named() {
    let empty = tempfile::NamedTempFile::new().unwrap();
    let empty_path = empty.path().to_str().unwrap();
    for args in [
        vec!["compare", P01, "no-such.jsonl"],
        vec!["compare", empty_path, P01],
        vec!["compare", P01, P02, "--prices", "no-such-prices.json"],
        vec!["compare", P01],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{err}");
        if let Some(named) = args.get(2).filter(|a| a.starts_with("no-such")) {
            assert!(err.contains(named), "{err}");
        }
    }
}

#[test]
fn sessions_of_a_sqlite_file_are_picked_per_side() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let p01 = text(P01);
    crate::formats::to_sqlite(&db, 17, &p01, &common::log_of(&p01));
    let db = db.to_str().unwrap();
    // The same session in SQLite and in JSONL: no divergence.
    let out = run(&["compare", db, P01, "--session-a", "policy-p01", "--json"]);
    expect_exit(&out, 0);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["a"]["session"], json!("policy-p01"));
    assert!(
        doc["first_divergence"].is_null(),
        "{}",
        doc["first_divergence"]
    );
    // Another session of the same file on B's side.
    let out = run(&[
        "compare",
        db,
        db,
        "--session-a",
        "policy-p01",
        "--session-b",
        "older",
        "--json",
    ]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["b"]["session"], json!("older"));
    assert!(doc["first_divergence"].is_object());
    // A session the file does not hold: trouble.
    let out = run(&["compare", db, P01, "--session-a", "no-such-session"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-session"));
}

#[test]
fn the_audit_without_terms_is_the_audit_less_its_lost_terms() {
    // What the comparison reads of the audit, on every log at hand: every figure but the terms.
    let mut files: Vec<PathBuf> = [P01, P02, P11, P12, SAMPLE, "assets/problems.session.jsonl"]
        .iter()
        .map(|r| path(r))
        .collect();
    files.extend(common::upstream_files());
    let mut refetches = 0;
    for file in files {
        let log = common::log_of(&std::fs::read_to_string(&file).unwrap());
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let full = surface_analysis::audit::audit(&log, &surface, &meter, 0.8);
        let lite = surface_analysis::audit::audit_without_terms(&log, &surface, &meter, 0.8);
        let mut without = full.clone();
        // Fidelity is read from the same terms: without them it is empty too.
        for r in &mut without.replaces {
            r.lost_terms.clear();
            r.fidelity = Default::default();
        }
        without.fidelity_totals = Default::default();
        assert_eq!(lite, without, "{}", file.display());
        refetches += full
            .replaces
            .iter()
            .map(|r| r.refetches.len())
            .sum::<usize>();
    }
    assert!(refetches > 0, "some refetch was found both ways");
}
