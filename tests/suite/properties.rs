//! Property tests on random logs: the engine against a naive reference model of docs/format.md,
//! delta processing against a full rebuild, and replay backward against replay forward.

use crate::common;

use common::*;
use proptest::prelude::*;
use surface_engine::{EventIdx, EventLog, EventState, Revisit, Surface};
use surface_store::parse_body;

/// One random event: what kind, and raw choices resolved against the seqs written so far.
#[derive(Clone, Debug)]
enum Step {
    LogOnly,
    Append,
    Replace {
        a: usize,
        b: usize,
        full_provenance: bool,
    },
    ReplaceUnknown,
    Malformed,
    MissingOp,
    Stale,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::LogOnly),
        6 => Just(Step::Append),
        5 => (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(a, b, full_provenance)| Step::Replace { a, b, full_provenance }),
        1 => Just(Step::ReplaceUnknown),
        1 => Just(Step::Malformed),
        1 => Just(Step::MissingOp),
        1 => Just(Step::Stale),
    ]
}

/// Writes the log lines for `steps` (seqs 0.., with occasional stale seqs).
fn lines_of(steps: &[Step]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut written: Vec<u64> = Vec::new();
    let mut next = 0u64;
    for s in steps {
        let seq = next;
        let line = match s {
            Step::LogOnly => other(seq, "assistant/chunk", "{}"),
            Step::Append => msg(seq, "append", None),
            Step::Replace {
                a,
                b,
                full_provenance,
            } if !written.is_empty() => {
                let start = written[a % written.len()];
                let end = written[b % written.len()];
                let src = if *full_provenance {
                    let mut all: Vec<u64> = written.iter().copied().filter(|&x| x < seq).collect();
                    all.dedup();
                    format!("{all:?}")
                } else {
                    format!("[{start}]")
                };
                msg(
                    seq,
                    &format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#),
                    Some(&src),
                )
            }
            Step::Replace { .. } | Step::ReplaceUnknown => msg(
                seq,
                &format!(r#"{{"op":"replace","start":{},"end":0}}"#, seq + 1000),
                Some("[0]"),
            ),
            Step::Malformed => msg(seq, r#"{"op":"delete","start":0,"end":0}"#, None),
            Step::MissingOp => msg(seq, "", None),
            Step::Stale => {
                lines.push(msg(seq.saturating_sub(2), "append", None));
                continue;
            }
        };
        lines.push(line);
        written.push(seq);
        next += 1;
    }
    lines
}

/// The reference: a plain vector rebuilt by the rules, at cursor `n` (events applied).
fn reference(log: &EventLog, n: usize) -> Vec<u64> {
    let legacy = !log
        .indices()
        .any(|i| log.is_eligible(i) && log.op(i).is_present());
    let mut surface: Vec<u64> = Vec::new();
    let mut max: Option<u64> = None;
    for i in log.indices().take(n) {
        let e = log.event(i);
        if max.is_some_and(|m| e.seq <= m) {
            continue;
        }
        max = Some(e.seq);
        if !log.is_eligible(i) {
            continue;
        }
        if legacy {
            surface.push(e.seq);
            continue;
        }
        use surface_engine::SurfaceOp::*;
        match log.op(i) {
            Append => surface.push(e.seq),
            Replace { start, end } => {
                let ps = surface.iter().position(|&s| s == start);
                let pe = surface.iter().position(|&s| s == end);
                if let (Some(ps), Some(pe)) = (ps, pe)
                    && ps <= pe
                {
                    surface.splice(ps..=pe, [e.seq]);
                }
            }
            _ => {}
        }
    }
    surface
}

fn states(log: &EventLog, s: &Surface) -> Vec<EventState> {
    log.indices().map(|i| s.state(i)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn engine_matches_reference_at_every_cursor(steps in prop::collection::vec(step(), 0..60)) {
        let log = log_of(&text_of(&lines_of(&steps)));
        let mut s = Surface::new(&log);
        for n in 0..=log.len() {
            s.seek(&log, n);
            prop_assert_eq!(node_seqs(&log, &s), reference(&log, n), "cursor {}", n);
            prop_assert_eq!(s.len(), reference(&log, n).len());
        }
    }

    #[test]
    fn backward_equals_forward_and_undo_restores(steps in prop::collection::vec(step(), 0..60)) {
        let log = log_of(&text_of(&lines_of(&steps)));
        let mut s = Surface::new(&log);
        let mut forward = vec![(node_seqs(&log, &s), states(&log, &s))];
        while s.step_forward(&log) {
            forward.push((node_seqs(&log, &s), states(&log, &s)));
        }
        for n in (0..=log.len()).rev() {
            prop_assert_eq!(s.cursor(), n);
            prop_assert_eq!(&(node_seqs(&log, &s), states(&log, &s)), &forward[n]);
            // Apply then undo restores the exact surface.
            if s.step_forward(&log) {
                s.step_back();
                prop_assert_eq!(&node_seqs(&log, &s), &forward[n].0);
            }
            s.step_back();
        }
    }

    #[test]
    fn random_jumps_match_the_reference(
        steps in prop::collection::vec(step(), 0..60),
        targets in prop::collection::vec(any::<prop::sample::Index>(), 1..24),
    ) {
        let log = log_of(&text_of(&lines_of(&steps)));
        let mut s = Surface::new(&log);
        for t in targets {
            let n = t.index(log.len() + 1);
            s.seek(&log, n);
            prop_assert_eq!(s.cursor(), n);
            prop_assert_eq!(node_seqs(&log, &s), reference(&log, n), "jump to {}", n);
            let mut fresh = Surface::new(&log);
            fresh.seek(&log, n);
            prop_assert_eq!(states(&log, &s), states(&log, &fresh));
        }
    }

    /// A second cursor over a processed surface (checkpoints every `every` list changes, 1–4),
    /// started wherever the surface's own cursor stands, gives at every jump the reference's
    /// surface at that cursor; a jump past the processed events stops at their end.
    #[test]
    fn revisits_match_the_reference(
        steps in prop::collection::vec(step(), 0..80),
        every in 1usize..5,
        start in any::<prop::sample::Index>(),
        targets in prop::collection::vec(any::<prop::sample::Index>(), 1..24),
    ) {
        let log = log_of(&text_of(&lines_of(&steps)));
        let mut s = Surface::with_checkpoint_every(&log, every);
        s.seek(&log, log.len());
        s.seek(&log, start.index(log.len() + 1));
        let mut revisit = Revisit::new(&s);
        prop_assert_eq!(revisit.cursor(), s.cursor());
        for t in targets {
            let n = t.index(log.len() + 2);
            revisit.seek(n);
            let n = n.min(log.len());
            prop_assert_eq!(revisit.cursor(), n);
            let seqs: Vec<u64> = revisit.nodes().map(|i| log.event(i).seq).collect();
            prop_assert_eq!(seqs, reference(&log, n), "revisit at {}", n);
        }
    }

    /// Checkpoints every `every` list changes (1–4, so that short logs have many): any mix
    /// of jumps and steps gives the surface of a fresh replay, with consistent back links.
    #[test]
    fn checkpointed_seeks_and_steps_match_a_fresh_replay(
        steps in prop::collection::vec(step(), 0..80),
        every in 1usize..5,
        moves in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4), 1..32),
    ) {
        let log = log_of(&text_of(&lines_of(&steps)));
        let mut s = Surface::with_checkpoint_every(&log, every);
        for (t, how) in moves {
            match how {
                0 => {
                    s.step_forward(&log);
                }
                1 => {
                    s.step_back();
                }
                _ => s.seek(&log, t.index(log.len() + 1)),
            }
            let n = s.cursor();
            prop_assert_eq!(node_seqs(&log, &s), reference(&log, n), "cursor {}", n);
            let mut fresh = Surface::new(&log);
            fresh.seek(&log, n);
            prop_assert_eq!(states(&log, &s), states(&log, &fresh));
            prop_assert_eq!(s.len(), fresh.len());
            let nodes: Vec<EventIdx> = s.nodes().collect();
            prop_assert_eq!(s.last_node(), nodes.last().copied());
            for w in nodes.windows(2) {
                prop_assert_eq!(s.prev_node(w[1]), Some(w[0]));
            }
            if let Some(&first) = nodes.first() {
                prop_assert_eq!(s.prev_node(first), None);
            }
        }
    }

    #[test]
    fn checkpointed_delta_processing_equals_rebuild(
        steps in prop::collection::vec(step(), 1..80),
        cut in any::<prop::sample::Index>(),
        back in any::<prop::sample::Index>(),
    ) {
        let lines = lines_of(&steps);
        let k = cut.index(lines.len() + 1);
        let full = log_of(&text_of(&lines));
        let mut grown = log_of(&text_of(&lines[..k]));
        let mut s = Surface::with_checkpoint_every(&grown, 1);
        s.seek(&grown, grown.len());
        s.seek(&grown, back.index(grown.len() + 1));
        s.seek(&grown, grown.len());
        let rest = text_of(&lines[k..]);
        let body = &rest[rest.find('\n').unwrap() + 1..];
        let base = grown.append_text(body.as_bytes());
        let batch = parse_body(grown.stable_text().unwrap(), base, k as u32 + 2, None).unwrap();
        grown.extend(batch);
        s.catch_up(&grown);
        let rebuilt = Surface::at_end(&full);
        prop_assert_eq!(node_seqs(&grown, &s), node_seqs(&full, &rebuilt));
        prop_assert_eq!(states(&grown, &s), states(&full, &rebuilt));
        s.seek(&grown, 0);
        s.seek(&grown, grown.len());
        prop_assert_eq!(node_seqs(&grown, &s), node_seqs(&full, &rebuilt));
    }

    #[test]
    fn delta_processing_equals_rebuild(steps in prop::collection::vec(step(), 1..60), cut in any::<prop::sample::Index>()) {
        let lines = lines_of(&steps);
        let k = cut.index(lines.len() + 1);
        let full = log_of(&text_of(&lines));
        let mut grown = log_of(&text_of(&lines[..k]));
        let mut s = Surface::at_end(&grown);
        let rest = text_of(&lines[k..]);
        let body = &rest[rest.find('\n').unwrap() + 1..];
        let base = grown.append_text(body.as_bytes());
        let batch = parse_body(grown.stable_text().unwrap(), base, k as u32 + 2, None).unwrap();
        grown.extend(batch);
        s.catch_up(&grown);
        let rebuilt = Surface::at_end(&full);
        prop_assert_eq!(node_seqs(&grown, &s), node_seqs(&full, &rebuilt));
        prop_assert_eq!(states(&grown, &s), states(&full, &rebuilt));
        prop_assert_eq!(s.mode(), rebuilt.mode());
    }
}

// --- The token meter under replay ------------------------------------------------------

mod meter {
    use super::*;
    use surface_engine::Meter;
    use surface_engine::meter::node_price_reference;

    /// One random event of a metered log.
    #[derive(Clone, Debug)]
    enum M {
        Append,
        Replace(usize, usize),
        StepStart,
        StepEnd,
        Header(u8),
        Context(u32),
        Chunk(u8),
        Assistant { usage: Option<u32>, cite: bool },
    }

    fn m() -> impl Strategy<Value = M> {
        prop_oneof![
            4 => Just(M::Append),
            2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| M::Replace(a, b)),
            2 => Just(M::StepStart),
            1 => Just(M::StepEnd),
            1 => any::<u8>().prop_map(M::Header),
            1 => (0u32..300).prop_map(M::Context),
            3 => any::<u8>().prop_map(M::Chunk),
            2 => (prop::option::of(0u32..2000), any::<bool>()).prop_map(|(usage, cite)| M::Assistant { usage, cite }),
        ]
    }

    /// Log lines for `events`, seqs 0.. in order.
    fn lines_of_metered(events: &[M]) -> Vec<String> {
        let mut out = Vec::new();
        let mut chunks: Vec<u64> = Vec::new();
        let mut nodes: Vec<u64> = Vec::new();
        for (k, e) in events.iter().enumerate() {
            let seq = k as u64;
            let line = match e {
                M::Append => {
                    nodes.push(seq);
                    msg(seq, "append", None)
                }
                M::Replace(a, b) if !nodes.is_empty() => {
                    let (start, end) = (nodes[a % nodes.len()], nodes[b % nodes.len()]);
                    let line = msg(
                        seq,
                        &format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#),
                        Some(&format!("{nodes:?}")),
                    );
                    nodes.push(seq);
                    line
                }
                M::Replace(..) => msg(seq, r#"{"op":"replace","start":99,"end":99}"#, None),
                M::StepStart => other(seq, "step/start", r#"{"turn":1,"step":1}"#),
                M::StepEnd => other(seq, "step/end", r#"{"turn":1,"step":1}"#),
                M::Header(h) => {
                    let tools = match h % 3 {
                        0 => r#"[{"name":"bash"}]"#,
                        1 => r#""{{tools}}""#,
                        _ => "[]",
                    };
                    let system = if h % 2 == 0 { "sys" } else { "other system" };
                    other(
                        seq,
                        "request/header",
                        &format!(
                            r#"{{"header":{{"config":{{"provider":"p","model":"m"}},"system":"{system}","tools":{tools}}},"reason":"initial"}}"#
                        ),
                    )
                }
                M::Context(w) => other(
                    seq,
                    "request/context",
                    &format!(r#"{{"provider":"p","model":"m","contextWindow":{w}}}"#),
                ),
                M::Chunk(c) => {
                    chunks.push(seq);
                    let chunk = match c % 3 {
                        0 => format!(r#"{{"type":"text-delta","index":0,"text":"{}"}}"#, "x".repeat(*c as usize)),
                        1 => r#"{"type":"block-end","index":1,"block":{"type":"reasoning","text":"thinking hard"}}"#.to_string(),
                        _ => r#"{"type":"finish","reason":{"kind":"stop"}}"#.to_string(),
                    };
                    other(
                        seq,
                        "assistant/chunk",
                        &format!(r#"{{"turn":1,"step":1,"chunk":{chunk}}}"#),
                    )
                }
                M::Assistant { usage, cite } => {
                    nodes.push(seq);
                    let usage = usage.map_or(String::new(), |u| {
                        format!(r#","usage":{{"inputTokens":{u},"outputTokens":5}}"#)
                    });
                    let sources = if *cite {
                        format!(r#","sourceEventSeqs":{chunks:?}"#)
                    } else {
                        String::new()
                    };
                    chunks.clear();
                    format!(
                        r#"{{"type":"assistant/message","seq":{seq},"time":1,"data":{{"turn":1,"step":1,"message":{{"role":"assistant","content":[{{"type":"text","text":"answer {seq}"}}]}}{usage}}}{sources},"surfaceOp":"append"}}"#
                    )
                }
            };
            out.push(line);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        #[test]
        fn stepping_and_jumping_give_the_figures_of_a_fresh_replay(
            events in prop::collection::vec(m(), 0..50),
            targets in prop::collection::vec(any::<prop::sample::Index>(), 1..16),
        ) {
            let log = log_of(&text_of(&lines_of_metered(&events)));
            let meter = Meter::build(&log, &Surface::at_end(&log));
            let mut s = Surface::with_checkpoint_every(&log, 2);
            let check_at = |s: &Surface| -> Result<(), TestCaseError> {
                let n = s.cursor();
                let mut fresh = Surface::new(&log);
                fresh.seek(&log, n);
                let replayed = Meter::build(&log, &fresh);
                prop_assert_eq!(replayed.len(), n);
                prop_assert_eq!(meter.at(n), replayed.at(n), "cursor {}", n);
                prop_assert_eq!(meter.window_at(n), replayed.window_at(n));
                let priced: u64 = s.nodes().map(|i| node_price_reference(&log, i)).sum();
                prop_assert_eq!(meter.at(n).surface, priced, "cursor {}", n);
                Ok(())
            };
            while s.step_forward(&log) {
                check_at(&s)?;
            }
            while s.step_back() {
                check_at(&s)?;
            }
            for t in targets {
                s.seek(&log, t.index(log.len() + 1));
                check_at(&s)?;
            }
        }

        #[test]
        fn live_follow_deltas_equal_a_rebuild(events in prop::collection::vec(m(), 1..50), cut in any::<prop::sample::Index>()) {
            let lines = lines_of_metered(&events);
            let k = cut.index(lines.len() + 1);
            let full = log_of(&text_of(&lines));
            let mut grown = log_of(&text_of(&lines[..k]));
            let mut s = Surface::at_end(&grown);
            let mut meter = Meter::build(&grown, &s);
            let rest = text_of(&lines[k..]);
            let body = &rest[rest.find('\n').unwrap() + 1..];
            let base = grown.append_text(body.as_bytes());
            let batch = parse_body(grown.stable_text().unwrap(), base, k as u32 + 2, None).unwrap();
            grown.extend(batch);
            s.catch_up(&grown);
            meter.catch_up(&grown, &s);
            let rebuilt = Meter::build(&full, &Surface::at_end(&full));
            for n in 0..=full.len() {
                prop_assert_eq!(meter.at(n), rebuilt.at(n), "cursor {}", n);
            }
        }
    }
}
