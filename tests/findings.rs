//! Each finding rule of viewer-spec §3, triggered by a small hand-written log.

mod common;

use common::*;
use surface_viewer::engine::{Finding, Surface, check};

fn findings(text: &str) -> Vec<Finding> {
    let log = log_of(text);
    check(&log, &Surface::at_end(&log))
}

fn rules(text: &str) -> Vec<&'static str> {
    findings(text).into_iter().map(|f| f.rule).collect()
}

fn turn(lines: &[String]) -> Vec<String> {
    let n = lines.len() as u64;
    let mut out = lines.to_vec();
    out.push(other(
        n,
        "turn/end",
        r#"{"turn":1,"reason":{"kind":"completed"}}"#,
    ));
    out
}

#[test]
fn clean_log_has_no_findings() {
    let t = text_of(&turn(&[
        other(0, "turn/start", r#"{"turn":1}"#),
        msg(1, "append", None),
        msg(2, "append", None),
    ]));
    assert_eq!(rules(&t), Vec::<&str>::new());
}

#[test]
fn header_missing_and_version() {
    assert_eq!(
        rules(&format!("{}\n", msg(0, "append", None))),
        ["header.missing"]
    );
    let t = format!(
        "{}\n{}\n",
        r#"{"type":"session","version":7,"id":"x","createdAt":1}"#,
        msg(0, "append", None)
    );
    assert_eq!(rules(&t), ["header.version"]);
}

#[test]
fn unparseable_line_before_turn_end_and_torn_tail_after() {
    let mut lines = vec![
        other(0, "turn/start", r#"{"turn":1}"#),
        "{not json".to_string(),
    ];
    lines.push(other(
        1,
        "turn/end",
        r#"{"turn":1,"reason":{"kind":"completed"}}"#,
    ));
    lines.push(r#"{"type":"turn/start","seq":2,"ti"#.to_string());
    let f = findings(&text_of(&lines));
    let got: Vec<_> = f.iter().map(|f| (f.rule, f.line)).collect();
    assert_eq!(
        got,
        [("line.unparseable", Some(3)), ("line.torn-tail", Some(5))]
    );
    // A torn final line without newline, after the last turn/end.
    let mut t = text_of(&lines[..3]);
    t.push_str(r#"{"type":"turn/st"#);
    assert_eq!(rules(&t), ["line.unparseable", "line.torn-tail"]);
}

#[test]
fn seq_not_increasing_and_gap() {
    let t = text_of(&[
        msg(0, "append", None),
        msg(5, "append", None),
        msg(3, "append", None),
        msg(4, "append", None),
    ]);
    let f = findings(&t);
    let got: Vec<_> = f.iter().map(|f| (f.rule, f.seq)).collect();
    assert_eq!(
        got,
        [
            ("seq.gap", Some(5)),
            ("seq.not-increasing", Some(3)),
            ("seq.not-increasing", Some(4))
        ]
    );
}

#[test]
fn provenance_rules() {
    let t = text_of(&[
        msg(0, "append", None),
        msg(1, "append", Some("[]")),
        msg(2, "append", Some("[0,0]")),
        msg(3, "append", Some("[3]")),
        msg(4, "append", Some("[99]")),
    ]);
    let got: Vec<_> = findings(&t).into_iter().map(|f| (f.rule, f.seq)).collect();
    assert_eq!(
        got,
        [
            ("provenance.empty", Some(1)),
            ("provenance.duplicate", Some(2)),
            ("provenance.forward", Some(3)),
            ("provenance.forward", Some(4)),
            ("provenance.unknown", Some(4)),
        ]
    );
    // Empty provenance is allowed on assistant/message.
    let t = text_of(&turn(&[
        other(0, "turn/start", r#"{"turn":1}"#),
        r#"{"type":"assistant/message","seq":1,"data":{"turn":1,"content":[]},"sourceEventSeqs":[],"surfaceOp":"append"}"#.to_string(),
    ]));
    assert_eq!(rules(&t), Vec::<&str>::new());
}

#[test]
fn surface_op_rules() {
    let t = text_of(&[
        msg(0, "append", None),
        msg(1, "prepend", None),
        other(2, "tool/call", "{}").replace("}}", r#"},"surfaceOp":"append"}"#),
        msg(3, "", None),
        msg(4, r#"{"op":"replace","start":40,"end":41}"#, Some("[0]")),
        msg(5, "append", None),
        msg(6, r#"{"op":"replace","start":5,"end":0}"#, Some("[0,5]")),
        msg(7, r#"{"op":"replace","start":0,"end":5}"#, Some("[0]")),
    ]);
    let got: Vec<_> = findings(&t).into_iter().map(|f| (f.rule, f.seq)).collect();
    assert_eq!(
        got,
        [
            ("surface.op-malformed", Some(1)),
            ("surface.op-on-non-surface-event", Some(2)),
            // A tool/call outside any turn also breaks the turn structure.
            ("turn.structure", Some(2)),
            ("surface.missing-op", Some(3)),
            ("surface.replace.start-not-on-surface", Some(4)),
            ("surface.replace.end-not-on-surface", Some(4)),
            ("surface.replace.numeric-order", Some(6)),
            ("surface.replace.out-of-order", Some(6)),
            ("surface.replace.provenance-incomplete", Some(7)),
        ]
    );
}

#[test]
fn valid_replace_without_provenance_is_incomplete() {
    let t = text_of(&[
        msg(0, "append", None),
        msg(1, r#"{"op":"replace","start":0,"end":0}"#, None),
    ]);
    assert_eq!(rules(&t), ["surface.replace.provenance-incomplete"]);
}

#[test]
fn turn_structure_tool_pairing_and_open_turn() {
    let t = text_of(&[
        other(0, "turn/start", r#"{"turn":1}"#),
        other(1, "turn/start", r#"{"turn":2}"#),
        other(2, "step/start", r#"{"turn":2,"step":1}"#),
        r#"{"type":"tool/result","seq":3,"data":{"turn":2,"step":1,"callId":"c9","content":[],"isError":false},"surfaceOp":"append"}"#.to_string(),
        other(4, "step/end", r#"{"turn":2,"step":1}"#),
    ]);
    let got: Vec<_> = findings(&t).into_iter().map(|f| (f.rule, f.seq)).collect();
    assert_eq!(
        got,
        [
            ("turn.structure", Some(1)),
            ("tool.result-without-call", Some(3)),
            ("repair.open-turn", Some(4))
        ]
    );
}
