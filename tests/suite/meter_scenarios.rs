//! Scenario tests of the meter on small hand-written logs: anchors, headers, windows,
//! compactions, streamed prices, bad input and live-follow appends.

use surface_engine::meter::*;
use surface_engine::*;

/// A log from JSONL lines (a header line is added).
fn log_of(lines: &[&str]) -> EventLog {
    let mut text = String::from(r#"{"type":"session","version":0,"id":"t","createdAt":1}"#);
    for l in lines {
        text.push('\n');
        text.push_str(l);
    }
    text.push('\n');
    surface_store::read_jsonl(text.into_bytes(), None).expect("no cancel")
}

fn meter_of(log: &EventLog) -> Meter {
    Meter::build(log, &Surface::at_end(log))
}

const HEADER_A: &str = r#"{"type":"request/header","seq":0,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"12345678"},"reason":"initial"}}"#;
const STEP: &str = r#"{"type":"step/start","seq":1,"data":{"turn":1,"step":1}}"#;
const USER: &str = r#"{"type":"user/message","seq":2,"data":{"content":[{"type":"text","text":"1234"}]},"surfaceOp":"append"}"#;
const ASSISTANT: &str = r#"{"type":"assistant/message","seq":3,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"usage":{"inputTokens":100,"outputTokens":5,"reasoningTokens":50}},"surfaceOp":"append"}"#;

#[test]
fn usage_anchors_the_total() {
    let log = log_of(&[HEADER_A, STEP, USER, ASSISTANT]);
    let m = meter_of(&log);
    // Header: ⌈8/4⌉ + 4 = 6. User: 4 + (1 + 4) = 9. Assistant: 4 + (1 + 4) = 9.
    assert_eq!(
        m.at(1),
        Figure {
            total: 6,
            surface: 0,
            baseline_kind: BaselineKind::Estimated,
            baseline: 6
        }
    );
    assert_eq!(m.at(3).total, 15);
    // P = 100 + 5 = 105 ≥ E = 6 + 0 + 9: the provider's figure, plus what the surface
    // gained since the step began (9 + 9) minus the anchor's own surface (0 + 9).
    assert_eq!(
        m.at(4),
        Figure {
            total: 105 + 18 - 9,
            surface: 18,
            baseline_kind: BaselineKind::Usage,
            baseline: 105
        }
    );
    assert_eq!(m.at(0), Figure::default());
}

#[test]
fn an_anchor_is_dropped_while_another_header_is_in_force() {
    let other = r#"{"type":"request/header","seq":4,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"123456789012"},"reason":"initial"}}"#;
    let same = r#"{"type":"request/header","seq":5,"data":{"header":{"config":{"provider":"p","model":"m","note":"x"},"system":"12345678"}}}"#;
    let log = log_of(&[HEADER_A, STEP, USER, ASSISTANT, other, same]);
    let m = meter_of(&log);
    assert_eq!(m.at(4).baseline_kind, BaselineKind::Usage);
    // Another system prompt: the header price (3 + 4) plus the surface, estimated.
    assert_eq!(
        m.at(5),
        Figure {
            total: 7 + 18,
            surface: 18,
            baseline_kind: BaselineKind::Estimated,
            baseline: 25
        }
    );
    // The anchor's header again (config fields outside the equality differ): anchored.
    assert_eq!(m.at(6).total, 114);
    assert_eq!(m.at(6).baseline_kind, BaselineKind::Usage);
}

#[test]
fn usage_below_the_estimate_keeps_the_estimate() {
    let small = ASSISTANT.replace("\"inputTokens\":100", "\"inputTokens\":1");
    let log = log_of(&[HEADER_A, STEP, USER, &small]);
    let m = meter_of(&log);
    // P = 6 < E = 6 + 0 + 9 = 15.
    assert_eq!(
        m.at(4),
        Figure {
            total: 15 + 18 - 9,
            surface: 18,
            baseline_kind: BaselineKind::Estimated,
            baseline: 15
        }
    );
}

#[test]
fn nothing_to_measure_is_none_and_an_assistant_outside_a_step_sets_no_anchor() {
    let end = r#"{"type":"step/end","seq":1,"data":{"turn":1,"step":1}}"#;
    let asst = ASSISTANT.replace("\"seq\":3", "\"seq\":2");
    let log = log_of(&[STEP.replace("\"seq\":1", "\"seq\":0").as_str(), end, &asst]);
    let m = meter_of(&log);
    assert_eq!(m.at(2).baseline_kind, BaselineKind::None);
    assert_eq!(
        m.at(3),
        Figure {
            total: 9,
            surface: 9,
            baseline_kind: BaselineKind::Estimated,
            baseline: 9
        }
    );
    assert!(m.anchors().next().is_none());
}

#[test]
fn a_compaction_inside_the_step_moves_the_total_by_the_surface_delta() {
    let summary = r#"{"type":"user/message","seq":4,"data":{"content":[{"type":"text","text":"s"}]},"sourceEventSeqs":[2,3],"surfaceOp":{"op":"replace","start":2,"end":3}}"#;
    let log = log_of(&[HEADER_A, STEP, USER, ASSISTANT, summary]);
    let m = meter_of(&log);
    // The summary (9) replaces both nodes (18): the total drops by 9.
    assert_eq!(m.at(5).total, m.at(4).total - 9);
    assert_eq!(m.at(5).surface, 9);
}

#[test]
fn the_streamed_message_is_priced_from_cited_chunks() {
    let chunks = [
        r#"{"type":"assistant/chunk","seq":3,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"12345678"}}}"#,
        r#"{"type":"assistant/chunk","seq":4,"data":{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"bash","arguments":"{}"}}}}"#,
        r#"{"type":"assistant/chunk","seq":5,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"max-tokens"}}}}"#,
    ];
    let asst = ASSISTANT
        .replace("\"seq\":3", "\"seq\":6")
        .replace("\"surfaceOp\"", "\"sourceEventSeqs\":[3,4,5],\"surfaceOp\"");
    let mut lines = vec![HEADER_A, STEP, USER];
    lines.extend(chunks);
    lines.push(&asst);
    let log = log_of(&lines);
    let m = meter_of(&log);
    // A = 4 + (2 + 4): the tool call is dropped after max-tokens; the anchor's surface is
    // S0 (0) + A.
    let a = m.anchor_at(log.len()).unwrap();
    assert_eq!(
        (a.surface, a.baseline, a.kind),
        (10, 105, BaselineKind::Usage)
    );
    assert_eq!(m.at(log.len()).total, 105 + 18 - 10);
}

#[test]
fn windows_and_thresholds() {
    let ctx = |seq: u64, w: &str| {
        format!(
            r#"{{"type":"request/context","seq":{seq},"data":{{"provider":"p","model":"m","contextWindow":{w}}}}}"#
        )
    };
    let (a, b, c, d) = (
        ctx(0, "1000"),
        ctx(1, "\"big\""),
        ctx(2, "1000"),
        ctx(3, "999"),
    );
    let log = log_of(&[&a, &b, &c, &d]);
    let m = meter_of(&log);
    assert_eq!(m.window_at(0), None);
    assert_eq!(
        m.window_at(2),
        Some(1000),
        "a bad window leaves the window in force"
    );
    assert_eq!(
        m.window_changes().len(),
        2,
        "an unchanged window is no change"
    );
    assert_eq!(m.threshold_at(4, 0.8), Some(799));
    assert_eq!(threshold(128_000, DEFAULT_THRESHOLD_RATIO), 102_400);
    let findings = meter_findings(&log);
    assert_eq!(
        findings.iter().map(|f| (f.rule, f.seq)).collect::<Vec<_>>(),
        [("meter.bad-window", Some(1))]
    );
}

#[test]
fn bad_usage_and_headers_are_warnings_and_priced_without_them() {
    let bad_usage = ASSISTANT.replace("\"inputTokens\":100", "\"inputTokens\":\"100\"");
    let bad_header = r#"{"type":"request/header","seq":4,"data":{"header":"none"}}"#;
    let log = log_of(&[HEADER_A, STEP, USER, &bad_usage, bad_header]);
    let m = meter_of(&log);
    assert_eq!(m.at(4).baseline_kind, BaselineKind::Estimated);
    assert!(m.header_at(5).is_none());
    let rules: Vec<_> = meter_findings(&log).iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["meter.bad-usage", "meter.bad-header"]);
}

#[test]
fn live_follow_appends_cost_only_the_new_events() {
    let full = log_of(&[HEADER_A, STEP, USER, ASSISTANT]);
    let rebuilt = meter_of(&full);
    let mut grown = log_of(&[HEADER_A, STEP]);
    let mut surface = Surface::at_end(&grown);
    let mut m = Meter::build(&grown, &surface);
    let base = grown.append_text(format!("{USER}\n{ASSISTANT}\n").as_bytes());
    let batch = surface_store::parse_body(grown.stable_text().unwrap(), base, 4, None).unwrap();
    grown.extend(batch);
    surface.catch_up(&grown);
    m.catch_up(&grown, &surface);
    for c in 0..=full.len() {
        assert_eq!(m.at(c), rebuilt.at(c), "cursor {c}");
    }
}

#[test]
fn context_windows_read_from_bytes_equal_the_tree() {
    let values = [
        "8192",
        "1",
        "0",
        "1e3",
        "1000.0",
        "12.5",
        "-5",
        "18446744073709551615",
        "18446744073709551616",
        "null",
        "\"8192\"",
        "[8192]",
        "8192,\"contextWindow\":7",
    ];
    let mut lines: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(seq, w)| {
            format!(r#"{{"type":"request/context","seq":{seq},"data":{{"contextWindow":{w}}}}}"#)
        })
        .collect();
    lines.push(r#"{"type":"request/context","seq":90,"data":{"model":"m"}}"#.into());
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let log = log_of(&refs);
    assert_eq!(log.len(), lines.len());
    for idx in log.indices() {
        let tree = context_window_of_value(log.data_value(idx).get("contextWindow"));
        assert_eq!(context_window_of(&log, idx), tree, "{}", lines[idx.get()]);
    }
}

#[test]
fn a_packed_row_is_priced_the_same_wherever_its_index_stands() {
    // 201 one-letter members, cited by the message: priced as one 201-letter text delta.
    let members = 201;
    let dt = vec!["0"; members - 1].join(",");
    let texts = vec!["\"a\""; members].join(",");
    let index_first = format!(
        r#"{{"type":"text-chunks","seq0":3,"time0":1,"data":{{"turn":1,"step":1,"index":0,"dt":[{dt}],"texts":[{texts}]}}}}"#
    );
    // The harness writes the index third; a row with it after a long `dt` (past the bytes the
    // meter reads first) must still be read whole rather than misread.
    let index_late = format!(
        r#"{{"type":"text-chunks","seq0":3,"time0":1,"data":{{"turn":1,"step":1,"dt":[{dt}],"index":0,"texts":[{texts}]}}}}"#
    );
    let unpacked = format!(
        r#"{{"type":"assistant/chunk","seq":3,"data":{{"turn":1,"step":1,"chunk":{{"type":"text-delta","index":0,"text":"{}"}}}}}}"#,
        "a".repeat(members)
    );
    let cited = (3..3 + members).map(|s| s.to_string()).collect::<Vec<_>>();
    let surface_of = |chunk_lines: &str, cited: &[String]| {
        let asst = ASSISTANT
            .replace("\"seq\":3", &format!("\"seq\":{}", 3 + members))
            .replace(
                "\"surfaceOp\"",
                &format!("\"sourceEventSeqs\":[{}],\"surfaceOp\"", cited.join(",")),
            );
        let log = log_of(&[HEADER_A, STEP, USER, chunk_lines, &asst]);
        let m = meter_of(&log);
        m.anchor_at(log.len()).expect("an anchor").surface
    };
    let reference = surface_of(&unpacked, &cited[..1]);
    // 201 letters cost tens of tokens; the message's own "ok" a few.
    assert!(reference > 50, "the delta is priced: {reference}");
    assert_eq!(surface_of(&index_first, &cited), reference);
    assert_eq!(surface_of(&index_late, &cited), reference);
}
