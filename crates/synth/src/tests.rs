//! Generated logs load, pass `check` with no finding, meet their event target, and build the
//! surface the writer tracked.

use super::writer::Streaming;
use super::*;
use surface_engine::{Effect, EventIdx, EventLog, Surface, check};
use surface_store::read_jsonl;

fn bytes_of(config: &SynthConfig) -> (Vec<u8>, SynthStats) {
    let mut out = Vec::new();
    let stats = generate(config, &mut out).unwrap();
    (out, stats)
}

fn load(bytes: Vec<u8>) -> EventLog {
    read_jsonl(bytes, None).unwrap()
}

fn assert_clean(log: &EventLog) {
    let findings = check(log, &Surface::at_end(log));
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(log.problems.is_empty(), "{:#?}", log.problems);
}

fn configs() -> Vec<SynthConfig> {
    let base = SynthConfig::with_events(3_000);
    vec![
        base.clone(),
        SynthConfig {
            pack: false,
            ..base.clone()
        },
        SynthConfig {
            nested: false,
            compaction_every: 2,
            prune_every: 1,
            ..base.clone()
        },
        SynthConfig {
            compaction_every: 1,
            tool_calls_per_turn: 1,
            chunks_per_message: 3,
            ..base.clone()
        },
        SynthConfig {
            tool_calls_per_turn: 0,
            compaction_every: 0,
            prune_every: 0,
            ..base.clone()
        },
        SynthConfig {
            chunks_per_message: 1,
            tool_output_lines: 1,
            seed: 99,
            ..base
        },
        SynthConfig::harness(3_000),
        SynthConfig {
            pack: false,
            ..SynthConfig::harness(3_000)
        },
    ]
}

#[test]
fn the_harness_shape_is_small_streamed_events() {
    // The harness's own 1,009,868-event log: 177.6 MB (about 176 bytes an event), 72.7 MB
    // packed, mostly `assistant/chunk` events. Seqs grow longer with the log, so a short one
    // runs a few bytes an event lighter.
    let config = SynthConfig::harness(40_000);
    let (packed, stats) = bytes_of(&config);
    let (plain, plain_stats) = bytes_of(&SynthConfig {
        pack: false,
        ..config
    });
    assert_eq!(stats.events, plain_stats.events);
    let per_event = |bytes: &[u8]| bytes.len() as f64 / stats.events as f64;
    let (a, b) = (per_event(&plain), per_event(&packed));
    assert!((165.0..=190.0).contains(&a), "{a} bytes an event unpacked");
    assert!((62.0..=80.0).contains(&b), "{b} bytes an event packed");
    let log = load(plain);
    let chunks = log
        .indices()
        .filter(|&i| log.type_name(i) == "assistant/chunk")
        .count();
    assert!(
        chunks * 10 >= log.len() * 8,
        "{chunks} of {} chunks",
        log.len()
    );
    assert_clean(&log);
}

#[test]
fn generated_logs_have_no_findings() {
    for config in configs() {
        let (bytes, stats) = bytes_of(&config);
        assert_eq!(stats.bytes, bytes.len() as u64);
        let log = load(bytes);
        assert_eq!(log.len() as u64, stats.events, "{config:?}");
        assert_clean(&log);
    }
}

#[test]
fn event_target_is_met_within_one_turn() {
    for target in [500, 2_000, 7_777] {
        let config = SynthConfig::with_events(target);
        let (_, stats) = bytes_of(&config);
        assert!(stats.events >= target);
        // One turn fewer stays below the target: the overshoot is less than one turn.
        let shorter = SynthConfig {
            target_events: 0,
            max_turns: stats.turns as u32 - 1,
            ..config
        };
        let (_, before) = bytes_of(&shorter);
        assert!(before.events < target, "{before:?} vs {stats:?}");
    }
}

#[test]
fn replaces_include_a_nested_compaction_and_a_prune() {
    let (bytes, stats) = bytes_of(&SynthConfig::with_events(5_000));
    assert!(stats.replaces() >= 2, "{stats:?}");
    assert!(
        stats.nested_compactions >= 1 && stats.prunes >= 1,
        "{stats:?}"
    );
    let log = load(bytes);
    let surface = Surface::at_end(&log);
    let applied = surface.applied_replaces();
    assert_eq!(applied.len() as u64, stats.replaces());
    let nested = applied
        .iter()
        .filter(|r| matches!(surface.effect(r.first), Some(Effect::Replaced(_))))
        .count();
    assert!(nested >= 1);
    let single = applied
        .iter()
        .filter(|r| r.count == 1 && log.type_name(r.by) == "tool/result");
    assert!(single.count() >= 1);
}

#[test]
fn generation_is_deterministic() {
    let config = SynthConfig::with_events(1_000);
    assert_eq!(bytes_of(&config).0, bytes_of(&config).0);
    let other = SynthConfig {
        seed: 1,
        ..config.clone()
    };
    assert_ne!(bytes_of(&config).0, bytes_of(&other).0);
}

#[test]
fn packed_and_unpacked_logs_hold_the_same_events() {
    let packed = SynthConfig::with_events(1_500);
    let plain = SynthConfig {
        pack: false,
        ..packed.clone()
    };
    let (a, sa) = bytes_of(&packed);
    let (b, sb) = bytes_of(&plain);
    assert!(sa.lines < sb.lines && sa.events == sb.events);
    let (a, b) = (load(a), load(b));
    for i in 0..a.len() as u32 {
        assert_eq!(
            a.event_value(EventIdx(i)),
            b.event_value(EventIdx(i)),
            "event #{i}"
        );
    }
}

#[test]
fn writer_surface_matches_the_engine() {
    let mut out = Vec::new();
    let mut w = LogWriter::new(&mut out, 7, 1_000, true);
    w.set_streaming(Streaming::Words(2));
    w.header("/tmp/x").unwrap();
    for turn in 1..=4u32 {
        w.turn_start().unwrap();
        w.step_start().unwrap();
        w.user_message("please run the tests again").unwrap();
        if turn == 3 {
            w.prune(2, "[pruned]").unwrap();
            let last = w.surface().len() - 2;
            w.compact(1, last, "summary one").unwrap();
        }
        if turn == 4 {
            let last = w.surface().len() - 2;
            w.compact(1, last, "summary two").unwrap();
        }
        let call = w
            .assistant(
                "run them",
                Reply::Tool {
                    name: "bash",
                    arguments: "{\"command\":\"cargo test\"}",
                },
            )
            .unwrap()
            .unwrap();
        w.tool_result(&call, "ok\n[exit code: 0]", false).unwrap();
        w.step_end().unwrap();
        w.step_start().unwrap();
        w.assistant("", Reply::Text("All tests pass.")).unwrap();
        w.step_end().unwrap();
        w.turn_end().unwrap();
    }
    let tracked: Vec<u64> = w.surface().iter().map(|n| n.seq).collect();
    let (_, stats) = w.finish().unwrap();
    assert_eq!(
        (stats.compactions, stats.nested_compactions, stats.prunes),
        (2, 1, 1)
    );
    let log = load(out);
    assert_clean(&log);
    let surface = Surface::at_end(&log);
    let seqs: Vec<u64> = surface.nodes().map(|i| log.event(i).seq).collect();
    assert_eq!(seqs, tracked);
}

#[test]
fn bad_ranges_are_errors_not_panics() {
    let mut out = Vec::new();
    let mut w = LogWriter::new(&mut out, 1, 0, false);
    assert!(w.compact(0, 3, "x").is_err());
    assert!(w.prune(0, "x").is_err());
}

#[test]
fn prng_ranges() {
    let mut r = SplitMix64::new(3);
    for _ in 0..1000 {
        assert!(r.below(7) < 7);
        let v = r.range(5, 9);
        assert!((5..=9).contains(&v));
    }
    assert_eq!(r.below(0), 0);
    assert_eq!(r.range(4, 2), 4);
}

#[test]
fn generated_logs_exercise_every_trigger_failures_and_refetches() {
    use surface_analysis::audit::{ReplaceKind, Trigger, audit};
    use surface_engine::Meter;
    let (bytes, stats) = bytes_of(&SynthConfig::with_events(20_000));
    assert!(
        stats.command_compactions >= 1 && stats.overflows >= 1 && stats.failed_compactions >= 1,
        "{stats:?}"
    );
    let log = load(bytes);
    assert_clean(&log);
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let a = audit(&log, &surface, &meter, 0.8);
    let has = |kind: ReplaceKind, trigger: Trigger| {
        a.replaces
            .iter()
            .any(|r| r.kind == kind && r.trigger == Some(trigger))
    };
    assert!(has(ReplaceKind::Summary, Trigger::Overflow));
    assert!(has(ReplaceKind::Summary, Trigger::Command));
    assert!(has(ReplaceKind::Summary, Trigger::Pressure));
    assert!(has(ReplaceKind::Prune, Trigger::BelowThreshold));
    assert_eq!(a.failed.len() as u64, stats.failed_compactions);
    assert!(a.replaces.iter().any(|r| !r.refetches.is_empty()));
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    // The recorded figures are the meter's.
    for r in &a.replaces {
        let recorded = r.compaction.as_ref().and_then(|c| c.shadowed_token_count);
        assert_eq!(recorded, Some(r.shadowed_tokens), "seq {}", r.seq);
    }
}
