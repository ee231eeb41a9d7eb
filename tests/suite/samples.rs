//! The bundled samples in `assets/`: the sample session has no finding, shows every
//! surface feature and holds exactly the compactions the harness's default policy makes; the
//! problems session has exactly its four deliberate findings and one compaction the policy
//! would not have made. Both files are what `cargo run --example make-samples` writes.

use std::path::PathBuf;

use surface_engine::{Effect, EventLog, Finding, Surface, SurfaceOp, check};
use surface_store::read_jsonl;
use surface_synth::{write_problems_sample, write_sample};

fn asset(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn findings_of(log: &EventLog) -> Vec<Finding> {
    check(log, &Surface::at_end(log))
}

fn types_of(log: &EventLog) -> Vec<&str> {
    log.indices().map(|i| log.type_name(i)).collect()
}

#[test]
fn sample_has_no_findings() {
    let log = read_jsonl(asset("sample.session.jsonl"), None).unwrap();
    assert_eq!(findings_of(&log), Vec::<Finding>::new());
    assert!(log.problems.is_empty());
    let header = log.header.as_ref().unwrap();
    assert_eq!(
        (header.version, header.delegation_depth),
        (Some(0), Some(0))
    );
    assert!((100..=500).contains(&log.len()), "{} events", log.len());
}

#[test]
fn sample_shows_compactions_nesting_and_a_prune() {
    let log = read_jsonl(asset("sample.session.jsonl"), None).unwrap();
    let surface = Surface::at_end(&log);
    let replaces = surface.applied_replaces();
    assert_eq!(replaces.len(), 7);
    let summaries: Vec<_> = replaces
        .iter()
        .filter(|r| log.type_name(r.by) == "user/message")
        .collect();
    assert_eq!(summaries.len(), 5);
    // Every summary after the first starts at the one before: nested, head-anchored replaces.
    for pair in summaries.windows(2) {
        assert_eq!(pair[1].first, pair[0].by);
    }
    // Each summary is bracketed: start, summary, the replace, end.
    for r in &summaries {
        let i = r.by.get();
        assert_eq!(
            types_of(&log)[i - 2..=i + 1],
            [
                "compaction/start",
                "compaction/summary",
                "user/message",
                "compaction/end"
            ]
        );
        let sources = log.sources(r.by).unwrap();
        assert_eq!(sources[..2], [log.events[i - 2].seq, log.events[i - 1].seq]);
    }
    // The prune: compaction/prune, then a single-node tool/result replace citing the original.
    let prune = replaces
        .iter()
        .find(|r| log.type_name(r.by) == "tool/result")
        .unwrap();
    assert_eq!(prune.count, 1);
    assert_eq!(
        log.type_name(surface_engine::EventIdx(prune.by.0 - 1)),
        "compaction/prune"
    );
    let original = log.event(prune.first).seq;
    assert_eq!(
        log.op(prune.by),
        SurfaceOp::Replace {
            start: original,
            end: original
        }
    );
    assert_eq!(log.sources(prune.by), Some(&[original][..]));
    // The harness's pruner kept the head and the tail of the text around its marker.
    let pruned = log.data_value(prune.by).to_string();
    assert!(
        pruned.contains("[... tool result middle pruned ...]"),
        "{pruned}"
    );
    // The first summary shadows the pruned replacement node.
    assert!(matches!(
        surface.effect(prune.by),
        Some(Effect::Replaced(_))
    ));
    assert!(!surface.is_on_surface(prune.by));
    // Packed rows and identified messages are present.
    assert!(log.packed_rows.len() >= 10);
    let first_assistant = log
        .indices()
        .find(|&i| log.type_name(i) == "assistant/message")
        .unwrap();
    assert!(
        log.data_value(first_assistant)
            .pointer("/message/id")
            .is_some()
    );
}

#[test]
fn problems_have_exactly_the_deliberate_findings() {
    let bytes = asset("problems.session.jsonl");
    assert_ne!(bytes.last(), Some(&b'\n'), "the torn tail has no newline");
    let log = read_jsonl(bytes, None).unwrap();
    let mut rules: Vec<&str> = findings_of(&log).iter().map(|f| f.rule).collect();
    rules.sort_unstable();
    assert_eq!(
        rules,
        [
            "line.torn-tail",
            "surface.op-malformed",
            "surface.replace.provenance-incomplete",
            "surface.replace.start-not-on-surface",
        ]
    );
}

#[test]
fn problems_findings_point_at_the_right_events() {
    let log = read_jsonl(asset("problems.session.jsonl"), None).unwrap();
    let findings = findings_of(&log);
    let seq_of = |rule: &str| findings.iter().find(|f| f.rule == rule).and_then(|f| f.seq);
    let incomplete = seq_of("surface.replace.provenance-incomplete").unwrap();
    let stale = seq_of("surface.replace.start-not-on-surface").unwrap();
    let malformed = seq_of("surface.op-malformed").unwrap();
    assert!(incomplete < stale && stale < malformed);
    for seq in [incomplete, stale, malformed] {
        let idx = log.find_seq(seq).unwrap();
        assert_eq!(log.type_name(idx), "user/message");
    }
    let torn = findings
        .iter()
        .find(|f| f.rule == "line.torn-tail")
        .unwrap();
    let lines = asset("problems.session.jsonl")
        .split(|&b| b == b'\n')
        .count() as u32;
    assert_eq!(torn.line, Some(lines));
}

#[test]
fn committed_samples_match_the_generator() {
    let mut sample = Vec::new();
    write_sample(&mut sample).unwrap();
    assert!(
        sample == asset("sample.session.jsonl"),
        "run `cargo run --example make-samples`"
    );
    let mut problems = Vec::new();
    write_problems_sample(&mut problems).unwrap();
    assert!(
        problems == asset("problems.session.jsonl"),
        "run `cargo run --example make-samples`"
    );
}

#[test]
fn sample_audit_shows_each_kind_trigger_a_refetch_and_consistent_figures() {
    use surface_analysis::audit::{ReplaceKind, Trigger, audit};
    use surface_engine::Meter;
    let log = read_jsonl(asset("sample.session.jsonl"), None).unwrap();
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let a = audit(&log, &surface, &meter, 0.8);
    let got: Vec<_> = a.replaces.iter().map(|r| (r.kind, r.trigger)).collect();
    assert_eq!(
        got,
        [
            (ReplaceKind::Prune, Some(Trigger::Pressure)),
            (ReplaceKind::Summary, Some(Trigger::Pressure)),
            (ReplaceKind::Summary, Some(Trigger::Overflow)),
            (ReplaceKind::Prune, Some(Trigger::Pressure)),
            (ReplaceKind::Summary, Some(Trigger::Pressure)),
            (ReplaceKind::Summary, Some(Trigger::Pressure)),
            (ReplaceKind::Summary, Some(Trigger::Command)),
        ]
    );
    // The overflow compaction ran with the meter over the window.
    let overflow = &a.replaces[2];
    assert!(overflow.tokens_before > overflow.window.unwrap());
    assert!(a.replaces.iter().map(|r| r.refetches.len()).sum::<usize>() >= 1);
    assert!(!a.over_threshold_requests.is_empty());
    assert!(a.failed.is_empty() && a.warnings.is_empty());
    // The generator priced what it recorded with the meter: every recorded shadowedTokenCount
    // is the meter's price of the shadowed nodes, and the provider's usage anchors the meter
    // at every model call — but where a replace inside the step shrank the request below the
    // step's starting surface (the harness then keeps its own estimate, as in the upstream
    // compaction-recovery fixture).
    for r in &a.replaces {
        let recorded = r.compaction.as_ref().and_then(|c| c.shadowed_token_count);
        assert_eq!(recorded, Some(r.shadowed_tokens), "seq {}", r.seq);
    }
    for anchor in meter.anchors() {
        let step = meter.step_at(anchor.message.get()).unwrap();
        let replaced_in_step = a
            .replaces
            .iter()
            .any(|r| step.start < r.event && r.event < anchor.message);
        let usage = anchor.kind == surface_engine::BaselineKind::Usage;
        assert_eq!(usage, !replaced_in_step, "{anchor:?}");
    }
}

/// `policy` on the sample agrees at every check with the default settings (every compaction
/// is the one the harness's policy makes there, and the policy fires at pressure, overflow and
/// command checks); on the problems sample exactly one check disagrees: the stale compaction
/// the policy would not have made. Another threshold tells the sample apart.
#[test]
fn the_default_policy_agrees_with_the_sample_and_once_not_with_the_problems() {
    use surface_analysis::policy::{CheckKind, PolicyInput, PolicySettings, ReplayMode, replay};
    use surface_engine::Meter;
    let verify = |name: &str, settings: &PolicySettings| {
        let log = read_jsonl(asset(name), None).unwrap();
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        let settings = settings.validate(meter.window_at(log.len())).unwrap();
        replay(&log, &meter, &input, &settings, ReplayMode::Verify)
    };
    let defaults = PolicySettings::default();
    let sample = verify("sample.session.jsonl", &defaults);
    assert_eq!(sample.disagreements(), 0, "{:?}", sample.first_divergence);
    assert_eq!(sample.first_divergence, None);
    for kind in [CheckKind::Pressure, CheckKind::Overflow, CheckKind::Command] {
        assert!(
            sample
                .checks
                .iter()
                .any(|c| c.trigger == kind && c.agrees == Some(true) && !c.summaries.is_empty()),
            "{kind:?}"
        );
    }
    assert!(sample.totals.prunes > 0);
    let lower = PolicySettings {
        threshold_ratio: 0.7,
        ..defaults
    };
    assert!(verify("sample.session.jsonl", &lower).disagreements() > 0);
    let problems = verify("problems.session.jsonl", &defaults);
    assert_eq!(problems.disagreements(), 1);
    let agreeing_fires = problems
        .checks
        .iter()
        .filter(|c| c.agrees == Some(true) && !c.summaries.is_empty())
        .count();
    assert!(agreeing_fires > 0, "both verdicts on first run");
    let why = problems.first_divergence.as_ref().unwrap().why.clone();
    assert!(why.contains("not applied"), "{why}");
}
