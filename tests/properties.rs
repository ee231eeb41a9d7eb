//! Property tests on random logs: the engine against a naive reference model of viewer-spec §2,
//! delta processing against a full rebuild, and replay backward against replay forward.

mod common;

use common::*;
use proptest::prelude::*;
use surface_viewer::engine::{EventLog, EventState, Surface};
use surface_viewer::store::parse_body;

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
        use surface_viewer::engine::SurfaceOp::*;
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

    #[test]
    fn delta_processing_equals_rebuild(steps in prop::collection::vec(step(), 1..60), cut in any::<prop::sample::Index>()) {
        let lines = lines_of(&steps);
        let k = cut.index(lines.len() + 1);
        let full = log_of(&text_of(&lines));
        let mut grown = log_of(&text_of(&lines[..k]));
        let mut s = Surface::at_end(&grown);
        let rest = text_of(&lines[k..]);
        let body = &rest[rest.find('\n').unwrap() + 1..];
        let base = grown.text.len();
        grown.text.extend_from_slice(body.as_bytes());
        let batch = parse_body(&grown.text, base, k as u32 + 2, None).unwrap();
        grown.extend(batch);
        s.catch_up(&grown);
        let rebuilt = Surface::at_end(&full);
        prop_assert_eq!(node_seqs(&grown, &s), node_seqs(&full, &rebuilt));
        prop_assert_eq!(states(&grown, &s), states(&full, &rebuilt));
        prop_assert_eq!(s.mode(), rebuilt.mode());
    }
}
