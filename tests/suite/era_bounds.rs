//! A log is judged by the newest era that could have written it (issue #27, docs/parity.md):
//! every HEAD-only rule is an error on a log with no era evidence beyond `delegationDepth`, or
//! none beyond header `version` 0, and stays a warning where something in the log rules HEAD
//! out (an upper-bound marker of an older era).

use crate::common;

use common::log_of;
use surface_engine::{Era, EraGuess, Finding, Severity, Surface, check_report};

const DEPTH_HEADER: &str =
    r#"{"type":"session","version":0,"id":"t","createdAt":1,"delegationDepth":0}"#;
const BARE_HEADER: &str = r#"{"type":"session","version":0,"id":"t","createdAt":1}"#;
const ADR_HEADER: &str = r#"{"type":"session","version":1,"id":"t","createdAt":1}"#;

fn event(seq: u64, type_name: &str, data: &str, rest: &str) -> String {
    format!(r#"{{"type":"{type_name}","seq":{seq},"time":{seq},"data":{data}{rest}}}"#)
}

/// An identified `user/message`.
fn user(seq: u64, id: &str, op: &str, sources: &str) -> String {
    event(
        seq,
        "user/message",
        &format!(
            r#"{{"content":[{{"type":"text","text":"m{seq}"}}],"source":{{"kind":"user"}},"role":"user","id":{id}}}"#
        ),
        &format!(r#"{sources},"surfaceOp":{op}"#),
    )
}

/// An identified `tool/result` of `call` (its block answers `block_call`).
fn result(
    seq: u64,
    call: &str,
    block_call: &str,
    id: &str,
    text: &str,
    op: &str,
    src: &str,
) -> String {
    event(
        seq,
        "tool/result",
        &format!(
            r#"{{"turn":1,"step":1,"message":{{"source":{{"kind":"tool","callId":"{call}"}},"content":[{{"type":"tool-result","toolCallId":"{block_call}","content":[{{"type":"text","text":"{text}"}}],"isError":false}}],"role":"user","id":"{id}"}}}}"#
        ),
        &format!(r#","sourceEventSeqs":{src},"surfaceOp":{op}"#),
    )
}

/// An identified `assistant/message` in step `step` with `content`.
fn assistant(seq: u64, step: u64, id: &str, content: &str) -> String {
    event(
        seq,
        "assistant/message",
        &format!(
            r#"{{"turn":1,"step":{step},"message":{{"role":"assistant","content":{content},"source":{{"kind":"model","provider":"p","model":"m"}},"id":"{id}"}}}}"#
        ),
        r#","surfaceOp":"append""#,
    )
}

const APPEND: &str = r#""append""#;

/// Turn 1 (its `turn/start` still with a trigger: a shape HEAD upgrades, no evidence either
/// way): a user message, then step 1 calling `c1` and `c2` with their results at seqs 6, 7.
/// `extra` follows from seq 9, then `turn/end`.
fn turn_with(extra: &[String]) -> Vec<String> {
    let calls = r#"[{"type":"tool-call","id":"c1","name":"read","arguments":"{}"},{"type":"tool-call","id":"c2","name":"read","arguments":"{}"}]"#;
    let mut lines = vec![
        event(
            0,
            "turn/start",
            r#"{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}"#,
            "",
        ),
        user(1, r#""u1""#, APPEND, ""),
        event(2, "step/start", r#"{"turn":1,"step":1}"#, ""),
        assistant(3, 1, "a3", calls),
        event(
            4,
            "tool/call",
            r#"{"turn":1,"step":1,"callId":"c1","name":"read","arguments":"{}"}"#,
            "",
        ),
        event(
            5,
            "tool/call",
            r#"{"turn":1,"step":1,"callId":"c2","name":"read","arguments":"{}"}"#,
            "",
        ),
        result(6, "c1", "c1", "t6", "64 lines", APPEND, "[4]"),
        result(7, "c2", "c2", "t7", "12 lines", APPEND, "[5]"),
        event(8, "step/end", r#"{"turn":1,"step":1}"#, ""),
    ];
    lines.extend_from_slice(extra);
    let end = lines.len() as u64;
    lines.push(event(
        end,
        "turn/end",
        r#"{"turn":1,"reason":{"kind":"completed"}}"#,
        "",
    ));
    lines
}

/// One log per HEAD-only rule: (what, lines, rule, seq of the finding).
fn head_only_violations() -> Vec<(&'static str, Vec<String>, &'static str, u64)> {
    let replace =
        |start: u64, end: u64| format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#);
    let mut mismatched = turn_with(&[]);
    mismatched[6] = result(6, "c1", "c9", "t6", "64 lines", APPEND, "[4]");
    let june_assistant = event(
        10,
        "assistant/message",
        r#"{"turn":1,"step":2,"content":[{"type":"text","text":"done"}]}"#,
        r#","surfaceOp":"append""#,
    );
    vec![
        (
            "replace op with an extra key",
            turn_with(&[user(
                9,
                r#""u9""#,
                r#"{"op":"replace","start":1,"end":1,"reason":"compact"}"#,
                r#","sourceEventSeqs":[1]"#,
            )]),
            "surface.op-malformed",
            9,
        ),
        (
            "prune that changes source.callId, toolCallId and the message id",
            turn_with(&[result(
                9,
                "c9",
                "c9",
                "t9",
                "[pruned]",
                &replace(6, 6),
                "[6]",
            )]),
            "surface.tool-result-rewrite",
            9,
        ),
        (
            "prune that changes isError",
            turn_with(&[
                result(9, "c1", "c1", "t6", "[pruned]", &replace(6, 6), "[6]")
                    .replace(r#""isError":false"#, r#""isError":true"#),
            ]),
            "surface.tool-result-rewrite",
            9,
        ),
        (
            "prune that shadows two nodes",
            turn_with(&[result(
                9,
                "c1",
                "c1",
                "t6",
                "[pruned]",
                &replace(6, 7),
                "[6,7]",
            )]),
            "surface.tool-result-rewrite",
            9,
        ),
        (
            "prune that targets a user/message",
            turn_with(&[result(
                9,
                "c1",
                "c1",
                "t6",
                "[pruned]",
                &replace(1, 1),
                "[1]",
            )]),
            "surface.tool-result-rewrite",
            9,
        ),
        (
            "tool-result block whose toolCallId is not source.callId",
            mismatched,
            "message.shape",
            6,
        ),
        (
            "user/message whose id is a number",
            turn_with(&[user(9, "7", APPEND, "")]),
            "message.shape",
            9,
        ),
        (
            "a June-shape assistant/message between identified ones",
            turn_with(&[
                event(9, "step/start", r#"{"turn":1,"step":2}"#, ""),
                june_assistant,
                event(11, "step/end", r#"{"turn":1,"step":2}"#, ""),
                event(12, "step/start", r#"{"turn":1,"step":3}"#, ""),
                assistant(13, 3, "a13", r#"[{"type":"text","text":"done"}]"#),
                event(14, "step/end", r#"{"turn":1,"step":3}"#, ""),
            ]),
            "message.shape",
            10,
        ),
    ]
}

fn log_text(header: &str, lines: &[String]) -> String {
    let mut t = format!("{header}\n");
    for l in lines {
        t.push_str(l);
        t.push('\n');
    }
    t
}

fn checked(text: &str) -> (EraGuess, Vec<Finding>) {
    let log = log_of(text);
    let report = check_report(&log, &Surface::at_end(&log));
    (report.era, report.findings)
}

fn graded(findings: &[Finding]) -> Vec<(&'static str, Option<u64>, Severity)> {
    findings
        .iter()
        .map(|f| (f.rule, f.seq, f.severity))
        .collect()
}

#[test]
fn every_head_only_rule_is_an_error_without_older_evidence() {
    for header in [DEPTH_HEADER, BARE_HEADER] {
        for (what, lines, rule, seq) in head_only_violations() {
            let (era, findings) = checked(&log_text(header, &lines));
            assert_eq!(era.era, Era::Head, "{what}: {}", era.reason);
            assert!(
                era.reason.ends_with("nothing older than HEAD"),
                "{what}: {}",
                era.reason
            );
            assert_eq!(
                graded(&findings),
                [(rule, Some(seq), Severity::Error)],
                "{what} ({header}): {findings:#?}"
            );
        }
    }
}

#[test]
fn without_the_violation_the_same_logs_are_clean() {
    for header in [DEPTH_HEADER, BARE_HEADER] {
        let (era, findings) = checked(&log_text(header, &turn_with(&[])));
        assert_eq!(era.era, Era::Head);
        assert_eq!(graded(&findings), [], "{header}");
        // A valid prune is clean too, and dates the log to August.
        let prune = result(
            9,
            "c1",
            "c1",
            "t6",
            "[pruned]",
            r#"{"op":"replace","start":6,"end":6}"#,
            "[6]",
        );
        let (era, findings) = checked(&log_text(header, &turn_with(&[prune])));
        assert_eq!((era.at_least, era.era), (Era::Head, Era::Head));
        assert_eq!(graded(&findings), [], "{header}");
    }
}

/// An upper-bound marker of each older era, as (era, header, lines to add after the turn).
fn older_markers(next: u64) -> Vec<(Era, &'static str, Vec<String>)> {
    let context = event(
        next,
        "context/message",
        r#"{"content":[{"type":"text","text":"AGENTS.md"}],"source":{"kind":"plugin","plugin":"agents"}}"#,
        r#","surfaceOp":"append""#,
    );
    let delta = event(next, "request/header-delta", r#"{"system":"s"}"#, "");
    let usage = event(
        next,
        "usage",
        r#"{"turn":1,"step":1,"usage":{"inputTokens":1,"outputTokens":1}}"#,
        "",
    );
    // A second turn whose reply has the June shape (flat, no provenance).
    let june_turn = vec![
        event(
            next,
            "turn/start",
            r#"{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}"#,
            "",
        ),
        event(next + 1, "step/start", r#"{"turn":2,"step":1}"#, ""),
        event(
            next + 2,
            "assistant/message",
            r#"{"turn":2,"step":1,"content":[{"type":"text","text":"done"}]}"#,
            r#","surfaceOp":"append""#,
        ),
        event(next + 3, "step/end", r#"{"turn":2,"step":1}"#, ""),
        event(
            next + 4,
            "turn/end",
            r#"{"turn":2,"reason":{"kind":"completed"}}"#,
            "",
        ),
    ];
    vec![
        (Era::Adr, ADR_HEADER, vec![]),
        (Era::Adr, DEPTH_HEADER, vec![usage]),
        (Era::SurfaceMerge, DEPTH_HEADER, vec![delta]),
        (Era::SurfaceMerge, BARE_HEADER, june_turn),
        (Era::MidJuly, DEPTH_HEADER, vec![context.clone()]),
        (Era::MidJuly, BARE_HEADER, vec![context]),
    ]
}

#[test]
fn with_an_older_era_marker_the_same_violations_stay_warnings() {
    // Every marker of `older_markers`, on every violation.
    for (what, lines, rule, seq) in head_only_violations() {
        let next = lines.len() as u64;
        for (era, header, marker) in older_markers(next) {
            let mut all = lines.clone();
            all.extend(marker);
            let (guess, findings) = checked(&log_text(header, &all));
            assert_eq!(guess.era, era, "{what}: {}", guess.reason);
            let got = graded(&findings);
            // The June shape is the older eras' own: there it is no finding at all.
            let own_shape = what.starts_with("a June-shape");
            assert!(
                got.contains(&(rule, Some(seq), Severity::Warning)) != own_shape,
                "{what} ({era:?}): {got:?}"
            );
            assert!(
                findings.iter().all(|f| !f.is_error()),
                "{what} ({era:?}): {got:?}"
            );
        }
    }
}

#[test]
fn a_june_shape_last_assistant_message_dates_the_log_to_the_surface_merge() {
    // A prune (seq 9) that breaks the block rule and the prune rule, then a June-shape reply
    // (flat, no provenance), which HEAD cannot upgrade: HEAD is ruled out.
    let lines = turn_with(&[
        result(
            9,
            "c1",
            "c9",
            "t6",
            "x",
            r#"{"op":"replace","start":6,"end":6}"#,
            "[6]",
        ),
        event(10, "step/start", r#"{"turn":1,"step":2}"#, ""),
        event(
            11,
            "assistant/message",
            r#"{"turn":1,"step":2,"content":[{"type":"text","text":"done"}]}"#,
            r#","surfaceOp":"append""#,
        ),
        event(12, "step/end", r#"{"turn":1,"step":2}"#, ""),
    ]);
    let (era, findings) = checked(&log_text(DEPTH_HEADER, &lines));
    assert_eq!(era.era, Era::SurfaceMerge, "{}", era.reason);
    assert!(
        era.reason.contains("seq 11 in the June shape"),
        "{}",
        era.reason
    );
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|f| !f.is_error()), "{findings:#?}");
}

/// The issue's example: two events, the second a prune that rewrites the first's call id,
/// block and message id. No turn, no step: the shape of the harness's own surface test cases.
#[test]
fn the_issue_example_is_refused() {
    let first = r#"{"type":"tool/result","seq":0,"time":0,"data":{"message":{"source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"x"}],"isError":false}],"role":"user","id":"t0"}},"surfaceOp":"append"}"#;
    let second = r#"{"type":"tool/result","seq":1,"time":1,"data":{"message":{"source":{"kind":"tool","callId":"c2"},"content":[{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"[pruned]"}],"isError":false}],"role":"user","id":"t1"}},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0}}"#;
    let text = log_text(DEPTH_HEADER, &[first.to_string(), second.to_string()]);
    let (era, findings) = checked(&text);
    assert_eq!((era.at_least, era.era), (Era::Head, Era::Head));
    assert_eq!(era.span(), "HEAD (2026-08)");
    assert!(
        graded(&findings).contains(&("surface.tool-result-rewrite", Some(1), Severity::Error)),
        "{findings:#?}"
    );
}

#[test]
fn the_bounds_are_named() {
    let (era, _) = checked(&log_text(DEPTH_HEADER, &turn_with(&[])));
    assert_eq!(era.span(), "mid-July or later (judged as HEAD)");
    assert!(
        era.reason.contains("delegationDepth 0")
            && era.reason.ends_with("; nothing older than HEAD"),
        "{}",
        era.reason
    );
    let next = turn_with(&[]).len() as u64;
    let mut lines = turn_with(&[]);
    lines.extend(older_markers(next).remove(4).2);
    let (era, _) = checked(&log_text(DEPTH_HEADER, &lines));
    assert_eq!(era.span(), "mid-July (2026-07)");
    assert!(
        era.reason.contains("context/message events"),
        "{}",
        era.reason
    );
}
