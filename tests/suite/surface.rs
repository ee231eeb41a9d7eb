//! Scenario tests of the surface engine through the public API: the upstream fixtures, the
//! worked example of docs/parity.md, replay and delta processing.

use crate::common;

use common::*;
use surface_engine::{EventIdx, EventState, Mode, Surface, check, derive_messages};
use surface_store::open;

#[test]
fn every_upstream_fixture_loads_without_errors() {
    let files = upstream_files();
    assert_eq!(files.len(), 21, "all 21 fixtures are found");
    for f in files {
        let opened = open(&f, &surface_store::Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let log = &opened.log;
        assert!(!log.is_empty(), "{}", f.display());
        let surface = Surface::at_end(log);
        let errors: Vec<_> = check(log, &surface)
            .into_iter()
            .filter(|x| x.is_error())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
        assert!(
            !derive_messages(log, &surface).is_empty(),
            "{}",
            f.display()
        );
    }
}

#[test]
fn compaction_recovery_seq_21_replaces_4() {
    let log = open(
        &upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl"),
        &surface_store::Options::default(),
    )
    .unwrap()
    .log;
    let surface = Surface::at_end(&log);
    assert_eq!(surface.mode(), Mode::Surface);
    assert_eq!(node_seqs(&log, &surface), [21, 13, 15, 28]);
    let four = log.find_seq(4).unwrap();
    let twenty_one = log.find_seq(21).unwrap();
    assert_eq!(surface.state(four), EventState::Shadowed { by: twenty_one });
    // Before the replace, 4 is on the surface.
    let before = Surface::at_seq(&log, Some(20));
    assert_eq!(node_seqs(&log, &before), [4, 13, 15]);
    assert_eq!(before.state(four), EventState::OnSurface);
    assert_eq!(before.state(twenty_one), EventState::NotReached);
}

#[test]
fn agent_instructions_17_shadows_5() {
    let log = open(
        &upstream("v0-2026-08-20-head/agent-instructions.session.jsonl"),
        &surface_store::Options::default(),
    )
    .unwrap()
    .log;
    let surface = Surface::at_end(&log);
    let seqs = node_seqs(&log, &surface);
    assert_eq!(&seqs[..3], [4, 17, 6]);
    assert!(!seqs.contains(&5));
    let rep = surface.replace_of(log.find_seq(17).unwrap()).unwrap();
    assert_eq!(
        (log.event(rep.first).seq, log.event(rep.last).seq, rep.count),
        (5, 5, 1)
    );
}

#[test]
fn legacy_logs_use_the_linear_scan() {
    for name in [
        "multi-turn.session.jsonl",
        "tool-call-turn.session.jsonl",
        "text-turn.session.jsonl",
        "workspace-edit.session.jsonl",
    ] {
        let log = open(
            &upstream(&format!("v1-2026-06-19/{name}")),
            &surface_store::Options::default(),
        )
        .unwrap()
        .log;
        let surface = Surface::at_end(&log);
        assert_eq!(surface.mode(), Mode::Legacy, "{name}");
        let eligible: Vec<u64> = log
            .indices()
            .filter(|&i| log.is_eligible(i))
            .map(|i| log.event(i).seq)
            .collect();
        assert_eq!(node_seqs(&log, &surface), eligible, "{name}");
    }
}

#[test]
fn worked_example_of_the_format_report() {
    let lines = vec![
        other(0, "turn/start", r#"{"turn":1}"#),
        msg(1, "append", None),
        other(2, "assistant/chunk", "{}"),
        msg(3, "append", Some("[2]")),
        other(4, "tool/call", "{}"),
        msg(5, "append", Some("[4]")),
        msg(6, "append", None),
        other(7, "compaction/start", "{}"),
        other(8, "compaction/summary", "{}"),
        msg(
            9,
            r#"{"op":"replace","start":1,"end":5}"#,
            Some("[7,8,1,3,5]"),
        ),
        msg(10, r#"{"op":"replace","start":9,"end":6}"#, Some("[9,6]")),
    ];
    let log = log_of(&text_of(&lines));
    let mut s = Surface::at_seq(&log, Some(9));
    assert_eq!(node_seqs(&log, &s), [9, 6]);
    s.seek_seq(&log, 10);
    assert_eq!(node_seqs(&log, &s), [10]);
    // What each replace shadowed is known wherever the cursor is.
    for (by, want) in [(9, vec![1, 3, 5]), (10, vec![9, 6])] {
        let rep = s.replace_of(log.find_seq(by).unwrap()).unwrap();
        let got: Vec<u64> = s
            .shadowed_nodes(rep)
            .iter()
            .map(|&i| log.event(i).seq)
            .collect();
        assert_eq!(got, want);
    }
    // Step back twice: the shadowed chains splice back exactly.
    s.step_back();
    assert_eq!(node_seqs(&log, &s), [9, 6]);
    s.step_back();
    assert_eq!(node_seqs(&log, &s), [1, 3, 5, 6]);
    assert_eq!(s.state(EventIdx(1)), EventState::OnSurface);
}

#[test]
fn invalid_replace_is_skipped_and_replay_goes_on() {
    let lines = vec![
        msg(0, "append", None),
        msg(1, "append", None),
        msg(2, r#"{"op":"replace","start":7,"end":1}"#, Some("[1]")),
        msg(3, r#"{"op":"replace","start":1,"end":0}"#, Some("[0,1]")),
        msg(4, "append", None),
    ];
    let log = log_of(&text_of(&lines));
    let s = Surface::at_end(&log);
    assert_eq!(node_seqs(&log, &s), [0, 1, 4]);
    assert!(matches!(s.state(EventIdx(2)), EventState::Invalid(_)));
    assert!(matches!(s.state(EventIdx(3)), EventState::Invalid(_)));
}

#[test]
fn delta_processing_follows_a_growing_log() {
    let lines: Vec<String> = (0..50)
        .map(|s| {
            if s % 10 == 9 {
                msg(
                    s,
                    &format!(r#"{{"op":"replace","start":{},"end":{}}}"#, s - 3, s - 1),
                    Some(&format!("[{},{},{}]", s - 3, s - 2, s - 1)),
                )
            } else {
                msg(s, "append", None)
            }
        })
        .collect();
    let full = log_of(&text_of(&lines));
    let mut partial = log_of(&text_of(&lines[..20]));
    let mut s = Surface::at_end(&partial);
    let rest = text_of(&lines[20..]);
    let rest_body = &rest[rest.find('\n').unwrap() + 1..];
    let base = partial.append_text(rest_body.as_bytes());
    let batch = surface_store::parse_body(partial.stable_text().unwrap(), base, 22, None).unwrap();
    partial.extend(batch);
    assert_eq!(s.processed(), 20);
    s.catch_up(&partial);
    assert_eq!(s.processed(), 50);
    assert_eq!(
        node_seqs(&partial, &s),
        node_seqs(&full, &Surface::at_end(&full))
    );
}
