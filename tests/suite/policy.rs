//! The policy lab (docs/policy.md) through the public API and the binary: verify on four
//! real-loop runs whose settings and every decision were recorded from the live harness
//! (`tests/fixtures/policy/`, README there), wrong settings naming what differs, inference
//! bracketing the true settings, what-if against verify and against the counterfactual pair,
//! properties over generated logs, and the `policy` command's exit codes and refusals.

use crate::binary::{expect_exit, run};
use crate::common;

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value;
use surface_analysis::policy::{
    CheckKind, CheckVerdict, Node, Outcome, PolicyInput, PolicyReport, PolicySettings,
    PrunerSettings, ReplayMode, Retain, keep_index, replay,
};
use surface_engine::{EventLog, Meter, Surface};
use surface_store::read_jsonl;
use surface_synth::{SynthConfig, generate};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/policy")
        .join(name)
}

fn expect(run: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(&format!("{run}.expect.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A log with its surface, meter and the policy's input.
struct Lab {
    log: EventLog,
    meter: Meter,
    input: PolicyInput,
}

impl Lab {
    fn of(log: EventLog) -> Lab {
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        Lab { log, meter, input }
    }

    fn open(file: &str) -> Lab {
        let bytes = std::fs::read(fixture_path(file)).unwrap();
        Lab::of(read_jsonl(bytes, None).unwrap())
    }

    fn run(&self, settings: &PolicySettings, mode: ReplayMode) -> PolicyReport {
        let settings = settings
            .validate(self.meter.window_at(self.log.len()))
            .unwrap();
        replay(&self.log, &self.meter, &self.input, &settings, mode)
    }
}

/// The settings a fixture was recorded with.
fn true_settings(expect: &Value) -> PolicySettings {
    let s = &expect["settings"];
    let pruner = s["pruner"].as_object().map(|p| PrunerSettings {
        threshold_chars: p["threshold_chars"].as_u64().unwrap(),
        head_chars: p["head_chars"].as_u64().unwrap(),
        tail_chars: p["tail_chars"].as_u64().unwrap(),
    });
    let retain = match s["retain_tokens"].as_u64() {
        Some(n) => Retain::Tokens(n),
        None => Retain::Ratio(s["retain_ratio"].as_f64().unwrap()),
    };
    PolicySettings {
        threshold_ratio: s["threshold_ratio"].as_f64().unwrap(),
        retain,
        compaction_retries: s["compaction_retries"].as_u64().unwrap() as u32,
        max_overflow_retries: s["max_overflow_retries"].as_u64().unwrap() as u32,
        pruner,
        summary_tokens: None,
    }
}

/// The fixtures' outcome names beside the spec's.
fn outcome_of(name: &str) -> Outcome {
    match name {
        "below" => Outcome::Below,
        "prune-only" => Outcome::Pruned,
        "converged" => Outcome::Summarized,
        "exhausted" => Outcome::StillAbove,
        "summary-failed" => Outcome::Failed,
        other => panic!("unknown outcome {other}"),
    }
}

fn seqs(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect()
}

/// Holds the replayed check against the recorded one: pruned seqs, and every summary attempt's
/// range, shadowed nodes and tokens and whether it succeeded (failed attempts included).
fn assert_same_compactions(what: &str, ours: &CheckVerdict, recorded: &Value) {
    assert_eq!(ours.pruned, seqs(&recorded["pruned"]), "{what}: pruned");
    let theirs = recorded["summaries"].as_array().unwrap();
    assert_eq!(ours.summaries.len(), theirs.len(), "{what}: attempts");
    for (k, (o, t)) in ours.summaries.iter().zip(theirs).enumerate() {
        let w = format!("{what}, summary {k}");
        assert_eq!(o.start, t["start"].as_u64().unwrap(), "{w}: start");
        assert_eq!(o.end, t["end"].as_u64().unwrap(), "{w}: end");
        assert_eq!(o.shadowed, seqs(&t["shadowed_seqs"]), "{w}: shadowed");
        assert_eq!(
            o.shadowed_tokens,
            t["shadowed_tokens"].as_u64().unwrap(),
            "{w}: shadowed tokens"
        );
        assert_eq!(o.ok, t["ok"].as_bool().unwrap(), "{w}: ok");
    }
    assert_eq!(
        ours.total_after,
        recorded["total_after"].as_u64().unwrap(),
        "{what}: total after"
    );
}

fn verify_fixture(file: &str, run: &str) {
    let e = expect(run);
    let lab = Lab::open(file);
    let report = lab.run(&true_settings(&e), ReplayMode::Verify);
    assert_eq!(report.window, e["window"].as_u64());
    let disagreeing: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.agrees != Some(true))
        .map(|c| (c.step_start_seq, c.trigger, c.why.clone()))
        .collect();
    assert!(disagreeing.is_empty(), "{file}: {disagreeing:?}");
    assert_eq!(report.first_divergence, None);
    // Pressure checks, one by one.
    let pressure: Vec<&CheckVerdict> = report
        .checks
        .iter()
        .filter(|c| c.trigger == CheckKind::Pressure)
        .collect();
    let recorded = e["checks"].as_array().unwrap();
    assert_eq!(pressure.len(), recorded.len(), "{file}: pressure checks");
    for (ours, t) in pressure.iter().zip(recorded) {
        let what = format!("{file} check {}", t["step_start_seq"]);
        assert_eq!(ours.step_start_seq, t["step_start_seq"].as_u64().unwrap());
        assert_eq!(
            (ours.turn, ours.step),
            (t["turn"].as_u64(), t["step"].as_u64())
        );
        assert_eq!(ours.total, t["total"].as_u64().unwrap(), "{what}: total");
        assert_eq!(ours.threshold, t["threshold"].as_u64(), "{what}: threshold");
        assert_eq!(
            ours.outcome,
            outcome_of(t["outcome"].as_str().unwrap()),
            "{what}: outcome"
        );
        assert_same_compactions(&what, ours, t);
        assert!(ours.exact, "{what}");
    }
    // Overflow recoveries and commands, in log order.
    for (kind, key) in [
        (CheckKind::Overflow, "overflow"),
        (CheckKind::Command, "manual"),
    ] {
        let ours: Vec<&CheckVerdict> = report.checks.iter().filter(|c| c.trigger == kind).collect();
        let recorded = e[key].as_array().unwrap();
        assert_eq!(ours.len(), recorded.len(), "{file}: {key}");
        for (k, (o, t)) in ours.iter().zip(recorded).enumerate() {
            let what = format!("{file} {key} {k}");
            if kind == CheckKind::Overflow {
                assert_eq!(o.step_start_seq, t["step_start_seq"].as_u64().unwrap());
                assert_eq!(o.total, t["total"].as_u64().unwrap(), "{what}: total");
            }
            assert_same_compactions(&what, o, t);
        }
    }
    let totals = &report.totals;
    let counts = &e["counts"];
    assert_eq!(totals.checks as u64, counts["checks"].as_u64().unwrap());
    assert_eq!(
        report.actual_totals.summaries as u64,
        counts["summaries_ok"].as_u64().unwrap()
    );
}

#[test]
fn verify_with_the_true_settings_reproduces_every_recorded_decision() {
    verify_fixture("p01.jsonl", "p01");
    verify_fixture("p02.jsonl", "p02");
    verify_fixture("p11.jsonl", "p11");
    verify_fixture("p12.jsonl", "p12");
}

#[test]
fn verify_on_the_packed_variant_is_the_same() {
    verify_fixture("p01.packed.jsonl", "p01");
    let e = expect("p01");
    let plain = Lab::open("p01.jsonl").run(&true_settings(&e), ReplayMode::Verify);
    let packed = Lab::open("p01.packed.jsonl").run(&true_settings(&e), ReplayMode::Verify);
    assert_eq!(plain.checks, packed.checks);
    assert_eq!(plain.inferred, packed.inferred);
}

/// The first disagreement of a verify run with `settings` on p01.
fn first_disagreement(settings: PolicySettings) -> (u64, String) {
    let report = Lab::open("p01.jsonl").run(&settings, ReplayMode::Verify);
    assert!(report.disagreements() > 0);
    let d = report.first_divergence.expect("a divergence");
    (d.step_start_seq, d.why)
}

#[test]
fn wrong_settings_disagree_and_name_the_difference() {
    let truth = true_settings(&expect("p01"));
    // Another threshold: p02's first firing (step 1.8, p01's seq 211) is a check the log let
    // pass.
    let (seq, why) = first_disagreement(PolicySettings {
        threshold_ratio: 0.7,
        ..truth
    });
    assert_eq!(seq, 211);
    assert!(why.contains("but the log did nothing"), "{why}");
    // A higher threshold: the prunes alone suffice where the log also summarised, and later
    // the log compacted below it.
    let (seq, why) = first_disagreement(PolicySettings {
        threshold_ratio: 0.95,
        ..truth
    });
    assert_eq!(seq, 260);
    assert!(
        why.contains("the log made 1 summary attempt, the policy 0"),
        "{why}"
    );
    let report = Lab::open("p01.jsonl").run(
        &PolicySettings {
            threshold_ratio: 0.95,
            ..truth
        },
        ReplayMode::Verify,
    );
    let below = report
        .checks
        .iter()
        .find(|c| {
            c.why
                .as_deref()
                .is_some_and(|w| w.contains("below the threshold"))
        })
        .expect("a compaction below the threshold");
    assert_eq!((below.step_start_seq, below.outcome), (396, Outcome::Below));
    // Another retain budget: the same checks fire, with other ranges.
    let (_, why) = first_disagreement(PolicySettings {
        retain: Retain::Ratio(0.3),
        ..truth
    });
    assert!(why.contains("a different range"), "{why}");
    // No pruner: the log's prunes are not the policy's.
    let (seq, why) = first_disagreement(PolicySettings {
        pruner: None,
        ..truth
    });
    assert_eq!(seq, 260);
    assert!(
        why.contains("prune set") && why.contains("[162, 209]"),
        "{why}"
    );
}

#[test]
fn inference_brackets_the_true_settings() {
    for run in ["p01", "p02", "p11", "p12"] {
        let e = expect(run);
        let truth = true_settings(&e);
        let report = Lab::open(&format!("{run}.jsonl")).run(&truth, ReplayMode::Verify);
        let inferred = &report.inferred;
        assert!(
            inferred.conflicts.is_empty(),
            "{run}: {:?}",
            inferred.conflicts
        );
        let [lo, hi] = inferred.threshold_ratio.expect("checks with a window");
        assert!(
            lo <= truth.threshold_ratio && truth.threshold_ratio < hi.max(lo) + f64::EPSILON,
            "{run}: T {} in [{lo}, {hi})",
            truth.threshold_ratio
        );
        let retain = e["retain_tokens_effective"].as_u64().unwrap();
        let fired_summaries = e["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| !c["summaries"].as_array().unwrap().is_empty());
        match inferred.retain_tokens {
            Some([lo, hi]) => assert!(
                lo <= retain && retain <= hi,
                "{run}: {retain} in {lo}..={hi}"
            ),
            None => assert!(
                !fired_summaries,
                "{run}: pressure summaries but no retain bracket"
            ),
        }
        if let Some(p) = truth.pruner
            && let Some([lo, hi]) = inferred.threshold_chars
        {
            assert_eq!(inferred.pruner, Some(true));
            assert!(
                lo <= p.threshold_chars && p.threshold_chars <= hi,
                "{run}: {lo}..={hi}"
            );
        }
    }
    // p01 holds the pruner's edges: 8192 code points left, 8193 pruned.
    let report = Lab::open("p01.jsonl").run(&PolicySettings::default(), ReplayMode::Verify);
    assert_eq!(report.inferred.threshold_chars, Some([8192, 8192]));
}

#[test]
fn what_if_with_the_logs_own_settings_is_verify() {
    for run in ["p01", "p02", "p11", "p12"] {
        let truth = true_settings(&expect(run));
        let lab = Lab::open(&format!("{run}.jsonl"));
        let verify = lab.run(&truth, ReplayMode::Verify);
        let what_if = lab.run(&truth, ReplayMode::WhatIf);
        assert_eq!(what_if.first_divergence, None, "{run}");
        assert!(what_if.checks.iter().all(|c| c.exact), "{run}");
        assert_eq!(verify.checks, what_if.checks, "{run}");
        assert_eq!(verify.totals, what_if.totals, "{run}");
        // The hypothetical curve is the meter's.
        for c in 0..=lab.log.len() {
            assert_eq!(
                what_if.curve.total_at(&lab.meter, c),
                lab.meter.at(c).total,
                "{run} at {c}"
            );
        }
    }
}

#[test]
fn what_if_p01_with_p02_settings_first_fires_where_p02_did() {
    let pairs: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture_path("pairs.json")).unwrap())
            .unwrap();
    let pair = &pairs[0];
    assert_eq!(
        (pair["base"].as_str(), pair["other"].as_str()),
        (Some("p01"), Some("p02"))
    );
    let other = true_settings(&expect("p02"));
    let lab = Lab::open("p01.jsonl");
    let report = lab.run(&other, ReplayMode::WhatIf);
    let first = report
        .checks
        .iter()
        .find(|c| !c.pruned.is_empty() || !c.summaries.is_empty())
        .unwrap();
    let step = pair["first_fire_step"].as_array().unwrap();
    assert_eq!(
        (first.turn, first.step),
        (step[0].as_u64(), step[1].as_u64())
    );
    // The divergent check is that step; the two logs are byte-identical up to its step/start
    // in p01 (p02 wrote its prunes there, so p02's step/start of it is later).
    let d = report.first_divergence.as_ref().unwrap();
    let divergent = &pair["first_divergent_check"];
    assert_eq!(
        d.step_start_seq,
        pair["identical_events_before_seq"].as_u64().unwrap()
    );
    assert_eq!(
        (first.step_start_seq, first.turn, first.step),
        (
            d.step_start_seq,
            divergent["turn"].as_u64(),
            divergent["step"].as_u64()
        )
    );
    // Exact up to there, estimates after.
    let at = report
        .checks
        .iter()
        .position(|c| c.step_start_seq == d.step_start_seq)
        .unwrap();
    assert!(
        report.checks[..at]
            .iter()
            .all(|c| c.exact && c.agrees == Some(true))
    );
    assert!(report.checks[at..].iter().all(|c| !c.exact));
    assert!(!report.curve.marks.is_empty());
    // What p02 did there: a prune-only check.
    assert_eq!(first.outcome, Outcome::Pruned);
    let p02 = expect("p02");
    let recorded = p02["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| (c["turn"].as_u64(), c["step"].as_u64()) == (first.turn, first.step))
        .unwrap();
    assert_eq!(first.pruned, seqs(&recorded["pruned"]));
    assert_eq!(first.total, recorded["total"].as_u64().unwrap());
}

#[test]
fn a_log_without_a_window_never_fires_and_says_so_once() {
    let lab = Lab::open("p01.jsonl");
    let text = std::fs::read_to_string(fixture_path("p01.jsonl")).unwrap();
    let stripped: String = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"request/context\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let no_window = Lab::of(read_jsonl(stripped.into_bytes(), None).unwrap());
    let report = no_window.run(&PolicySettings::default(), ReplayMode::Verify);
    assert_eq!(report.window, None);
    let pressure: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.trigger == CheckKind::Pressure)
        .collect();
    assert!(pressure.iter().all(|c| c.outcome == Outcome::NoWindow));
    assert_eq!(
        report
            .notes
            .iter()
            .filter(|n| n.contains("no context window"))
            .count(),
        1
    );
    // Where the log compacted the policy can't judge: neutral, not a disagreement.
    assert_eq!(report.disagreements(), 0, "{:?}", report.first_divergence);
    assert!(report.first_divergence.is_none());
    let unjudged: Vec<_> = report.checks.iter().filter(|c| c.cant_judge()).collect();
    assert!(!unjudged.is_empty());
    for c in unjudged {
        assert_eq!((c.agrees, &c.why), (None, &None));
        assert!(
            c.note
                .as_deref()
                .unwrap_or_default()
                .starts_with("can't judge: no window")
        );
    }
    // A what-if follows the log there: nothing diverges.
    let what_if = no_window.run(&PolicySettings::default(), ReplayMode::WhatIf);
    assert!(what_if.first_divergence.is_none());
    assert!(
        what_if
            .checks
            .iter()
            .all(|c| c.exact || c.outcome != Outcome::NoWindow)
    );
    assert_eq!(lab.input.checks().len(), no_window.input.checks().len());
}

#[test]
fn every_upstream_fixture_and_bundled_sample_replays_without_a_panic() {
    let mut files = common::upstream_files();
    let assets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    files.push(assets.join("sample.session.jsonl"));
    files.push(assets.join("problems.session.jsonl"));
    for file in files {
        let lab = Lab::of(read_jsonl(std::fs::read(&file).unwrap(), None).unwrap());
        for mode in [ReplayMode::Verify, ReplayMode::WhatIf] {
            let report = lab.run(&PolicySettings::default(), mode);
            assert_eq!(report.checks.len(), lab.input.checks().len());
            let name = file.display().to_string();
            // A log written before the HEAD harness says which policy is modelled.
            if name.contains("v1-2026-06-19") || name.contains("v0-2026-06-26") {
                assert!(
                    report.notes.iter().any(|n| n.contains("older harness")),
                    "{name}: {:?}",
                    report.notes
                );
            }
        }
    }
}

// --- Properties over generated logs -----------------------------------------------------------

fn generated(seed: u64, events: u64, window: u64) -> Lab {
    let config = SynthConfig {
        seed,
        context_window: window,
        ..SynthConfig::with_events(events)
    };
    let mut bytes = Vec::new();
    generate(&config, &mut bytes).unwrap();
    Lab::of(read_jsonl(bytes, None).unwrap())
}

fn first_firing(report: &PolicyReport) -> Option<usize> {
    report
        .checks
        .iter()
        .position(|c| !c.pruned.is_empty() || !c.summaries.is_empty())
}

fn node(event: u32, price: u32, calls: u16, result: bool) -> Node {
    Node {
        event,
        seq: u64::from(event),
        price,
        calls,
        result,
        chars: 0,
        chars_exact: true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn raising_the_threshold_never_fires_earlier(
        seed in 0u64..1_000,
        window in 2_000u64..40_000,
        t in 0.3f64..0.9,
        dt in 0.0f64..0.1,
    ) {
        let lab = generated(seed, 3_000, window);
        let low = PolicySettings { threshold_ratio: t, retain: Retain::Ratio(0.1), ..PolicySettings::default() };
        let high = PolicySettings { threshold_ratio: t + dt, ..low };
        let a = first_firing(&lab.run(&low, ReplayMode::WhatIf));
        let b = first_firing(&lab.run(&high, ReplayMode::WhatIf));
        match (a, b) {
            (Some(a), Some(b)) => prop_assert!(b >= a, "{a} then {b}"),
            (None, Some(b)) => prop_assert!(false, "only the higher threshold fires, at {b}"),
            _ => {}
        }
    }

    #[test]
    fn what_if_totals_before_the_first_divergence_are_the_meters(
        seed in 0u64..1_000,
        window in 2_000u64..40_000,
        t in 0.3f64..1.0,
    ) {
        let lab = generated(seed, 3_000, window);
        let settings = PolicySettings { threshold_ratio: t, retain: Retain::Ratio(t / 4.0), ..PolicySettings::default() };
        let report = lab.run(&settings, ReplayMode::WhatIf);
        let end = report
            .checks
            .iter()
            .find(|c| c.agrees == Some(false))
            .map_or(lab.log.len(), |c| c.cursor);
        // The checks up to the divergent one measure the log as it is.
        for c in report.checks.iter().filter(|c| c.cursor <= end) {
            prop_assert_eq!(c.total, lab.meter.at(c.cursor).total);
        }
        // A hypothetical compaction at the divergent check counts from its cursor on.
        for cursor in 0..end {
            prop_assert_eq!(report.curve.total_at(&lab.meter, cursor), lab.meter.at(cursor).total);
        }
    }

    #[test]
    fn ranges_start_at_the_head_keep_pairs_and_grow_as_the_budget_shrinks(
        nodes in proptest::collection::vec((1u32..400, 0u16..3, any::<bool>()), 1..60),
        a in 0u64..6_000,
        b in 0u64..6_000,
    ) {
        let nodes: Vec<Node> = nodes
            .into_iter()
            .enumerate()
            .map(|(k, (price, calls, result))| node(k as u32, price, if result { 0 } else { calls }, result))
            .collect();
        let (small, large) = (a.min(b), a.max(b));
        let keep_small = keep_index(&nodes, small).unwrap_or(0);
        let keep_large = keep_index(&nodes, large).unwrap_or(0);
        prop_assert!(keep_small >= keep_large, "{keep_small} < {keep_large}");
        for keep in [keep_small, keep_large].into_iter().filter(|&k| k > 0) {
            let balance: i64 = nodes[..keep].iter().map(Node::pairing).sum();
            prop_assert_eq!(balance, 0);
        }
    }

    #[test]
    fn every_replayed_range_starts_at_the_first_surface_node(
        seed in 0u64..1_000,
        window in 2_000u64..20_000,
    ) {
        let lab = generated(seed, 2_000, window);
        let settings = PolicySettings { retain: Retain::Ratio(0.2), ..PolicySettings::default() };
        for mode in [ReplayMode::Verify, ReplayMode::WhatIf] {
            let report = lab.run(&settings, mode);
            for c in &report.checks {
                for s in &c.summaries {
                    prop_assert_eq!(s.shadowed.first().copied(), Some(s.start));
                    prop_assert_eq!(s.shadowed.last().copied(), Some(s.end));
                }
            }
        }
    }
}

// --- The command ---------------------------------------------------------------------------

fn path(name: &str) -> String {
    fixture_path(name).display().to_string()
}

#[test]
fn policy_exit_codes_json_and_csv() {
    let p01 = path("p01.jsonl");
    let out = run(&["policy", &p01]);
    expect_exit(&out, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("0 disagree") && text.contains("first divergence: none"),
        "{text}"
    );
    let out = run(&["policy", &p01, "--threshold-ratio", "0.7", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["mode"], "verify");
    assert_eq!(doc["window"], 16000);
    assert_eq!(doc["settings"]["threshold_ratio"], 0.7);
    assert_eq!(doc["settings"]["pruner"]["threshold_chars"], 8192);
    assert_eq!(doc["first_divergence"]["step_start_seq"], 211);
    for key in ["inferred", "checks", "totals"] {
        assert!(doc.get(key).is_some(), "{key}");
    }
    let check = &doc["checks"][0];
    for key in [
        "step_start_seq",
        "turn",
        "step",
        "trigger",
        "total",
        "threshold",
        "window",
        "outcome",
        "pruned",
        "summaries",
        "total_after",
        "exact",
        "actual",
        "agrees",
    ] {
        assert!(check.get(key).is_some(), "{key}");
    }
    let out = run(&[
        "policy",
        &p01,
        "--what-if",
        "--threshold-ratio",
        "0.7",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["mode"], "what-if");
    assert!(
        doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["exact"] == false)
    );
    let out = run(&["policy", &p01, "--csv"]);
    assert_eq!(out.status.code(), Some(0));
    let csv = String::from_utf8(out.stdout).unwrap();
    let header = surface_cli::policy::CSV_COLUMNS.join(",");
    assert_eq!(
        csv.lines().next(),
        Some(header.as_str()),
        "the writer's own header"
    );
    assert_eq!(csv.lines().count(), 1 + 40);
    let columns = surface_cli::policy::CSV_COLUMNS.len();
    for row in csv.lines().skip(1) {
        // No cell of p01 holds a comma or a quote: every row has one cell per column.
        assert_eq!(row.split(',').count(), columns, "{row}");
    }
    let out = run(&["policy", &path("nope.jsonl")]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn invalid_settings_are_one_line_naming_the_flag_and_exit_2() {
    let p01 = path("p01.jsonl");
    let cases: [(&[&str], &str); 8] = [
        (&["--threshold-ratio", "0"], "--threshold-ratio"),
        (&["--threshold-ratio", "1.2"], "--threshold-ratio"),
        (&["--threshold-ratio", "-0.5"], "--threshold-ratio"),
        (&["--retain-ratio", "0.9"], "--retain-ratio"),
        (
            &["--retain-ratio", "0.1", "--retain-tokens", "100"],
            "--retain-ratio and --retain-tokens",
        ),
        (&["--retain-tokens", "12800"], "--retain-tokens"),
        (&["--prune", "8192,4096"], "--prune"),
        (&["--prune", "5000,4096,1024"], "--prune"),
    ];
    for (flags, flag) in cases {
        let mut args = vec!["policy", p01.as_str()];
        args.extend_from_slice(flags);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(flag), "{flags:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// A small tool result's node holds an upper bound of its code points until a replay needs
/// the exact count; a large one holds the exact count: either way the replay decides on the
/// exact figure (the fixtures' expectations above), and the bound is never below it.
#[test]
fn small_results_hold_an_upper_bound_and_large_ones_the_exact_count() {
    use surface_analysis::policy::tool_result_chars;
    use surface_engine::EventIdx;
    for name in ["p01.jsonl", "p02.jsonl", "p11.jsonl"] {
        let bytes = std::fs::read(fixture_path(name)).unwrap();
        let log = read_jsonl(bytes, None).unwrap();
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        let (mut bounded, mut exact) = (0, 0);
        for check in input.checks() {
            let replacements = check.log.prunes.iter().filter_map(|p| p.replacement);
            for node in replacements.filter(|n| n.result) {
                let chars = tool_result_chars(&log, EventIdx(node.event));
                if node.chars_exact {
                    exact += 1;
                    assert_eq!(u64::from(node.chars), chars, "{name} seq {}", node.seq);
                } else {
                    bounded += 1;
                    assert!(u64::from(node.chars) >= chars, "{name} seq {}", node.seq);
                }
            }
        }
        assert!(bounded + exact > 0, "{name} prunes");
    }
}
