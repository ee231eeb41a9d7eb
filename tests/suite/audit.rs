//! The compaction audit (docs/audit.md) through the public API and the binary: the upstream
//! compaction-recovery fixture held against the harness's own meter output, hand-written logs
//! for each trigger, each kind, a failed compaction, a refetch, a lost and a kept term, bad
//! compaction events, and the `audit` command's JSON, Markdown and HTML.

use crate::binary::{expect_exit, run};
use crate::common;
use crate::invariants;

use common::*;
use serde_json::{Value, json};
use surface_analysis::audit::{Audit, ReplaceKind, Trigger, audit, detail};
use surface_engine::{EventLog, Meter, Surface, check};

/// Audits a log at the default threshold ratio.
fn audit_of(log: &EventLog) -> Audit {
    audit_at(log, 0.8)
}

fn audit_at(log: &EventLog, ratio: f64) -> Audit {
    let surface = Surface::at_end(log);
    let meter = Meter::build(log, &surface);
    audit(log, &surface, &meter, ratio)
}

/// A hand-written HEAD-shaped log, one event per call, seqs from 0.
#[derive(Default)]
pub(crate) struct Log {
    lines: Vec<String>,
    seq: u64,
    turn: u64,
    step: u64,
    /// `(turn, step)` of each tool result written, by seq: a prune keeps them (the harness
    /// rewrites only the result's content).
    result_steps: std::collections::HashMap<u64, (u64, u64)>,
}

impl Log {
    fn event(&mut self, ty: &str, data: Value, sources: Option<&[u64]>, op: Option<Value>) -> u64 {
        let seq = self.seq;
        let mut e = json!({"type": ty, "seq": seq, "time": 1_000 + seq * 10, "data": data});
        if let Some(s) = sources {
            e["sourceEventSeqs"] = json!(s);
        }
        if let Some(op) = op {
            e["surfaceOp"] = op;
        }
        self.lines.push(e.to_string());
        self.seq += 1;
        seq
    }

    fn log(&mut self, ty: &str, data: Value) -> u64 {
        self.event(ty, data, None, None)
    }

    pub(crate) fn window(&mut self, w: u64) -> u64 {
        self.log(
            "request/context",
            json!({"provider":"p","model":"m","contextWindow": w}),
        )
    }

    pub(crate) fn turn_start(&mut self) {
        self.turn += 1;
        self.step = 0;
        let t = self.turn;
        self.log("turn/start", json!({"turn": t}));
    }

    pub(crate) fn turn_end(&mut self) {
        let t = self.turn;
        self.log(
            "turn/end",
            json!({"turn": t, "reason": {"kind": "completed"}}),
        );
    }

    pub(crate) fn step_start(&mut self) {
        self.step += 1;
        let (t, s) = (self.turn, self.step);
        self.log("step/start", json!({"turn": t, "step": s}));
    }

    pub(crate) fn step_end(&mut self) {
        let (t, s) = (self.turn, self.step);
        self.log("step/end", json!({"turn": t, "step": s}));
    }

    pub(crate) fn user(&mut self, text: &str) -> u64 {
        let data = json!({"content":[{"type":"text","text": text}],"source":{"kind":"user"},"role":"user","id": format!("u{}", self.seq)});
        self.event("user/message", data, None, Some(json!("append")))
    }

    pub(crate) fn assistant(&mut self, text: &str, usage: Option<Value>) -> u64 {
        let (t, s) = (self.turn, self.step);
        let mut data = json!({"turn": t, "step": s, "message": {"role":"assistant","content":[{"type":"text","text": text}],"source":{"kind":"model","provider":"p","model":"m"},"id": format!("a{}", self.seq)}});
        if let Some(u) = usage {
            data["usage"] = u;
        }
        self.event("assistant/message", data, Some(&[]), Some(json!("append")))
    }

    /// An assistant message calling `name(args)`, its `tool/call` and the `tool/result`.
    pub(crate) fn tool(&mut self, call: &str, name: &str, args: &str, output: &str) -> u64 {
        let (t, s) = (self.turn, self.step);
        let data = json!({"turn": t, "step": s, "message": {"role":"assistant","content":[{"type":"tool-call","id": call,"name": name,"arguments": args}],"source":{"kind":"model","provider":"p","model":"m"},"id": format!("a{}", self.seq)}});
        self.event("assistant/message", data, Some(&[]), Some(json!("append")));
        let c = self.log(
            "tool/call",
            json!({"turn": t, "step": s, "callId": call, "name": name, "arguments": args}),
        );
        self.tool_result(call, output, c, None)
    }

    fn tool_result(&mut self, call: &str, output: &str, source: u64, op: Option<Value>) -> u64 {
        let pruned = op.as_ref().and_then(|o| o["start"].as_u64());
        let (t, s) = pruned
            .and_then(|seq| self.result_steps.get(&seq).copied())
            .unwrap_or((self.turn, self.step));
        self.result_steps.insert(self.seq, (t, s));
        let data = json!({"turn": t, "step": s, "message": {"source":{"kind":"tool","callId": call},"content":[{"type":"tool-result","toolCallId": call,"content":[{"type":"text","text": output}],"isError": false}],"role":"user","id": format!("t-{call}")}});
        let op = op.unwrap_or(json!("append"));
        self.event("tool/result", data, Some(&[source]), Some(op))
    }

    /// A summarizing compaction of `shadowed` (surface order), bracketed by start, summary,
    /// the replace and end. Returns the replace's seq.
    pub(crate) fn compact(
        &mut self,
        shadowed: &[u64],
        summary: &str,
        extra: Value,
        turn: Option<u64>,
    ) -> u64 {
        let id = format!("c{}", self.seq);
        let mut start = json!({"compactionId": id, "turn": turn});
        merge(&mut start, &extra);
        let start_seq = self.log("compaction/start", start);
        let (s, e) = (shadowed[0], shadowed[shadowed.len() - 1]);
        let mut sum = json!({"compactionId": id, "summary":[{"type":"text","text": summary}],
            "shadowedRange":{"start": s,"end": e},"shadowedSeqs": shadowed,"shadowedTokenCount": 40,
            "provider":"p","model":"summarizer","maxTokens": 512,"usage":{"inputTokens":300,"outputTokens":20}});
        merge(&mut sum, &extra);
        let summary_seq = self.log("compaction/summary", sum);
        let mut sources = vec![start_seq, summary_seq];
        sources.extend_from_slice(shadowed);
        let data = json!({"content":[{"type":"text","text": summary}],"source":{"kind":"plugin","plugin":"compact"},"role":"user","id": format!("s{}", self.seq)});
        let rep = self.event(
            "user/message",
            data,
            Some(&sources),
            Some(json!({"op":"replace","start": s,"end": e})),
        );
        let mut end = json!({"compactionId": id, "turn": turn});
        merge(&mut end, &extra);
        self.log("compaction/end", end);
        rep
    }

    /// A prune of the tool result `seq` (answering `call`), replaced by `placeholder`.
    pub(crate) fn prune(&mut self, seq: u64, call: &str, placeholder: &str) -> u64 {
        self.log(
            "compaction/prune",
            json!({"shadowedRange":{"start": seq,"end": seq},"shadowedSeqs":[seq],"shadowedTokenCount": 25}),
        );
        self.tool_result(
            call,
            placeholder,
            seq,
            Some(json!({"op":"replace","start": seq,"end": seq})),
        )
    }

    pub(crate) fn text(&self) -> String {
        let mut t = String::from(
            r#"{"type":"session","version":0,"id":"audit-test","createdAt":1,"cwd":"/w","delegationDepth":0}"#,
        );
        for l in &self.lines {
            t.push('\n');
            t.push_str(l);
        }
        t.push('\n');
        t
    }

    pub(crate) fn build(&self) -> EventLog {
        log_of(&self.text())
    }
}

fn merge(into: &mut Value, extra: &Value) {
    if let (Some(a), Some(b)) = (into.as_object_mut(), extra.as_object()) {
        for (k, v) in b {
            a.insert(k.clone(), v.clone());
        }
    }
}

/// Turn 1 with one long user message and one answer; returns the user message's seq.
fn opening(l: &mut Log, window: u64, text: &str) -> u64 {
    l.turn_start();
    l.step_start();
    let u = l.user(text);
    l.window(window);
    l.assistant("ok", None);
    l.step_end();
    u
}

// --- The upstream fixture ---------------------------------------------------------------

#[test]
fn compaction_recovery_fixture_is_an_overflow_in_the_harness_own_figures() {
    let log = open_fixture("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let a = audit_of(&log);
    assert_eq!((a.window, a.threshold), (Some(128_000), Some(102_400)));
    assert_eq!(a.replaces.len(), 1);
    let r = &a.replaces[0];
    assert_eq!((r.seq, r.kind, r.valid), (21, ReplaceKind::Summary, true));
    assert_eq!(r.trigger, Some(Trigger::Overflow));
    assert_eq!((r.start, r.end, r.shadowed.clone()), (4, 4, vec![4]));
    assert_eq!((r.nodes_before, r.nodes_after), (3, 3));
    // The harness's own meter output for this fixture: 4701 at seq 20, 4551 at seq 21.
    let meter_rows = meter_fixture("compaction-recovery.meter.jsonl");
    assert_eq!(r.tokens_before, meter_rows[20]["total"].as_u64().unwrap());
    assert_eq!(r.tokens_after, meter_rows[21]["total"].as_u64().unwrap());
    assert_eq!((r.tokens_before, r.tokens_after), (4701, 4551));
    // Provider input tokens of the calls around it.
    assert_eq!((r.reported_before, r.reported_after), (Some(24), Some(20)));
    let c = r.compaction.as_ref().unwrap();
    assert_eq!(
        c.id.as_deref(),
        Some("338e88fa-e78b-4d49-bd38-8f919e85f5e1")
    );
    assert_eq!(
        (c.start_seq, c.end_seq, c.duration_ms),
        (Some(19), Some(22), Some(10))
    );
    assert_eq!(
        (c.provider.as_deref(), c.model.as_deref(), c.max_tokens),
        (
            Some("deepseek-official"),
            Some("deepseek-v4-flash"),
            Some(32)
        )
    );
    assert_eq!(c.usage, Some(json!({"inputTokens":20,"outputTokens":4})));
    // The recorded shadowedTokenCount beside the meter's price of node 4 (both 266).
    assert_eq!(c.shadowed_token_count, Some(266));
    assert_eq!(r.shadowed_tokens, 266);
    assert_eq!(r.replacement_tokens, 116);
    assert_eq!(c.error, None);
    assert!(a.failed.is_empty() && a.over_threshold_requests.is_empty());
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    // The summary beside what it shadowed.
    let d = detail(&log, r);
    assert!(d.replacement.contains("durable compaction premise"));
    assert_eq!(d.shadowed.len(), 1);
    assert!(
        d.shadowed[0]
            .text
            .starts_with("Establish a durable compaction premise")
    );
}

fn open_fixture(rel: &str) -> EventLog {
    let bytes = std::fs::read(upstream(rel)).unwrap();
    surface_store::read_jsonl(bytes, None).unwrap()
}

fn meter_fixture(name: &str) -> Vec<Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/meter")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_upstream_fixture_audits_without_a_panic() {
    for file in upstream_files() {
        let log = open_fixture(file.strip_prefix(upstream_dir()).unwrap().to_str().unwrap());
        let a = audit_of(&log);
        for r in &a.replaces {
            let _ = detail(&log, r);
        }
    }
}

// --- Triggers -----------------------------------------------------------------------------

/// A compaction inside turn 2's first step, with the meter judged against `window`.
fn compaction_in_a_step(window: u64, extra: Value, overflow: bool) -> EventLog {
    let mut l = Log::default();
    let u = opening(&mut l, window, &"word ".repeat(200));
    l.turn_end();
    l.turn_start();
    l.step_start();
    l.user("next");
    if overflow {
        let (t, s) = (l.turn, l.step);
        l.log("assistant/chunk", json!({"turn": t,"step": s,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"too long","code":"CONTEXT_WINDOW_EXCEEDED"}}}}));
    }
    let turn = l.turn;
    l.compact(&[u], "The user sent a long message.", extra, Some(turn));
    l.assistant("done", None);
    l.step_end();
    l.turn_end();
    l.build()
}

#[test]
fn pressure_below_threshold_and_no_window() {
    // The user message alone is ⌈1000/4⌉ + 8 = 258 tokens: over 80 % of 300, under 80 % of 10k.
    let a = audit_of(&compaction_in_a_step(300, json!({}), false));
    assert_eq!(a.replaces[0].trigger, Some(Trigger::Pressure));
    assert!(a.replaces[0].trigger_tokens.unwrap() >= 240);
    let a = audit_of(&compaction_in_a_step(10_000, json!({}), false));
    assert_eq!(a.replaces[0].trigger, Some(Trigger::BelowThreshold));
    // The ratio is the caller's: at 0.01 of 10k the same compaction is pressure.
    let a = audit_at(&compaction_in_a_step(10_000, json!({}), false), 0.01);
    assert_eq!(a.replaces[0].trigger, Some(Trigger::Pressure));
    assert_eq!(a.threshold, Some(100));
    // Without any request/context: no window, no trigger.
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    let u = l.user("hello there");
    let turn = l.turn;
    l.compact(&[u], "greeting", json!({}), Some(turn));
    l.step_end();
    l.turn_end();
    let a = audit_of(&l.build());
    assert_eq!((a.window, a.replaces[0].trigger), (None, None));
    assert_eq!(a.replaces[0].kind, ReplaceKind::Summary);
}

#[test]
fn a_command_outranks_pressure_and_an_overflow_outranks_both() {
    let command = json!({"sourceCommandId": "cmd-7"});
    let a = audit_of(&compaction_in_a_step(300, command.clone(), false));
    assert_eq!(a.replaces[0].trigger, Some(Trigger::Command));
    assert_eq!(
        a.replaces[0]
            .compaction
            .as_ref()
            .unwrap()
            .source_command_id
            .as_deref(),
        Some("cmd-7")
    );
    let a = audit_of(&compaction_in_a_step(300, command, true));
    assert_eq!(a.replaces[0].trigger, Some(Trigger::Overflow));
    let a = audit_of(&compaction_in_a_step(10_000, json!({}), true));
    assert_eq!(a.replaces[0].trigger, Some(Trigger::Overflow));
}

#[test]
fn an_overflow_needs_the_failure_in_the_same_step_before_any_answer() {
    // The failure, then an answer, then the compaction: not an overflow recovery.
    let mut l = Log::default();
    let u = opening(&mut l, 10_000, "first message");
    l.turn_end();
    l.turn_start();
    l.step_start();
    let (t, s) = (l.turn, l.step);
    l.log("assistant/chunk", json!({"turn": t,"step": s,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"CONTEXT_WINDOW_EXCEEDED"}}}}));
    l.assistant("answered anyway", None);
    l.compact(&[u], "s", json!({}), Some(t));
    l.step_end();
    // A failure in an earlier step does not carry over to the next one.
    l.step_start();
    let (t, s) = (l.turn, l.step);
    l.log("assistant/chunk", json!({"turn": t,"step": s,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"CONTEXT_WINDOW_EXCEEDED"}}}}));
    l.step_end();
    l.step_start();
    let v = l.user("more");
    l.compact(&[v], "s2", json!({}), Some(t));
    l.step_end();
    l.turn_end();
    // A compaction outside any turn (turn null) after an overflowing step is no overflow.
    l.turn_start();
    l.step_start();
    let (t, s) = (l.turn, l.step);
    let w = l.user("again");
    l.log("assistant/chunk", json!({"turn": t,"step": s,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"code":"CONTEXT_WINDOW_EXCEEDED"}}}}));
    l.compact(&[w], "s3", json!({}), None);
    l.step_end();
    l.turn_end();
    let a = audit_of(&l.build());
    let triggers: Vec<_> = a.replaces.iter().map(|r| r.trigger).collect();
    assert_eq!(triggers, [Some(Trigger::BelowThreshold); 3]);
}

#[test]
fn every_prune_of_a_check_shares_the_total_the_check_began_with() {
    // Two large tool results; the check before step 3 fires at ≥ 800 of a 1,000 window, and
    // its first prune alone brings the total under the threshold.
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.user("list");
    l.window(1_000);
    let r1 = l.tool("call-1", "bash", r#"{"command":"a"}"#, &"x".repeat(2_000));
    l.step_end();
    l.step_start();
    let r2 = l.tool("call-2", "bash", r#"{"command":"b"}"#, &"y".repeat(2_000));
    l.step_end();
    let p1 = l.prune(r1, "call-1", "[pruned]");
    let p2 = l.prune(r2, "call-2", "[pruned]");
    l.step_start();
    l.assistant("done", None);
    l.step_end();
    l.turn_end();
    let a = audit_of(&l.build());
    let triggers: Vec<_> = a.replaces.iter().map(|r| (r.seq, r.trigger)).collect();
    assert_eq!(
        triggers,
        [(p1, Some(Trigger::Pressure)), (p2, Some(Trigger::Pressure))]
    );
    // The meter stood under the threshold before the second prune, yet both share the total
    // the check began with.
    assert!(a.replaces[0].tokens_before >= 800);
    assert!(a.replaces[1].tokens_before < 800);
    assert_eq!(a.replaces[0].trigger_tokens, a.replaces[1].trigger_tokens);
    assert_eq!(
        a.replaces[1].trigger_tokens,
        Some(a.replaces[0].tokens_before)
    );
    // A later check starts afresh: a prune after the next step boundary is judged on its own.
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.user("list");
    l.window(1_000);
    let r1 = l.tool("call-1", "bash", r#"{"command":"a"}"#, &"x".repeat(2_000));
    l.step_end();
    l.step_start();
    let r2 = l.tool("call-2", "bash", r#"{"command":"b"}"#, &"y".repeat(2_000));
    l.step_end();
    l.prune(r1, "call-1", "[pruned]");
    l.step_start();
    l.assistant("done", None);
    l.step_end();
    let p2 = l.prune(r2, "call-2", "[pruned]");
    l.turn_end();
    let a = audit_of(&l.build());
    assert_eq!(a.replaces[1].seq, p2);
    assert_eq!(a.replaces[1].trigger, Some(Trigger::BelowThreshold));
}

// --- Kinds, failures, requests --------------------------------------------------------------

#[test]
fn a_prune_and_an_unbracketed_replace() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.user("list the files");
    l.window(50_000);
    let r = l.tool(
        "call-1",
        "bash",
        r#"{"command":"ls"}"#,
        "a.txt\nb.txt\nsrc/main.rs\n",
    );
    l.step_end();
    l.step_start();
    let p = l.prune(r, "call-1", "[pruned]");
    l.step_end();
    let data = json!({"content":[{"type":"text","text":"manual"}],"source":{"kind":"plugin","plugin":"other"},"role":"user","id":"m"});
    let other = l.event(
        "user/message",
        data,
        Some(&[p]),
        Some(json!({"op":"replace","start": p,"end": p})),
    );
    l.turn_end();
    let log = l.build();
    let a = audit_of(&log);
    let kinds: Vec<_> = a.replaces.iter().map(|x| (x.seq, x.kind)).collect();
    assert_eq!(
        kinds,
        [(p, ReplaceKind::Prune), (other, ReplaceKind::Other)]
    );
    let prune = &a.replaces[0];
    assert_eq!(prune.trigger, Some(Trigger::BelowThreshold));
    let c = prune.compaction.as_ref().unwrap();
    assert_eq!(
        (c.start_seq, c.end_seq, c.shadowed_token_count),
        (Some(p - 1), None, Some(25))
    );
    assert_eq!(prune.shadowed, [r]);
    assert_eq!(
        prune
            .lost_terms
            .iter()
            .map(|t| t.term.as_str())
            .collect::<Vec<_>>(),
        ["a.txt", "b.txt", "src/main.rs"]
    );
    let o = &a.replaces[1];
    assert_eq!((o.trigger, o.compaction.is_none()), (None, true));
    // The unbracketed replace is a warning, in the audit and in check.
    let rules: Vec<_> = a.warnings.iter().map(|w| (w.rule, w.seq)).collect();
    assert_eq!(rules, [("compaction.bracket", Some(other))]);
    let surface = Surface::at_end(&log);
    let found: Vec<_> = check(&log, &surface)
        .into_iter()
        .map(|f| (f.rule, f.seq))
        .collect();
    assert_eq!(found, [("compaction.bracket", Some(other))]);
}

#[test]
fn a_log_without_compaction_events_gets_no_bracket_warning() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    let u = l.user("hi");
    l.event(
        "user/message",
        json!({"content":[{"type":"text","text":"s"}]}),
        Some(&[u]),
        Some(json!({"op":"replace","start": u,"end": u})),
    );
    l.step_end();
    l.turn_end();
    let log = l.build();
    let a = audit_of(&log);
    assert_eq!(a.replaces[0].kind, ReplaceKind::Other);
    assert!(a.warnings.is_empty());
    assert!(check(&log, &Surface::at_end(&log)).is_empty());
}

#[test]
fn a_failed_compaction_and_requests_over_the_threshold() {
    let mut l = Log::default();
    opening(&mut l, 300, &"word ".repeat(200));
    l.step_start();
    let start = l.log("compaction/start", json!({"compactionId":"f1","turn":1}));
    let end = l.log(
        "compaction/end",
        json!({"compactionId":"f1","turn":1,"error":{"message":"summarizer timed out","code":"TIMEOUT"}}),
    );
    // The request of this step is made with the context still over the threshold.
    l.assistant("still here", None);
    l.step_end();
    l.turn_end();
    let a = audit_of(&l.build());
    assert!(a.replaces.is_empty());
    assert_eq!(a.failed.len(), 1);
    let f = &a.failed[0];
    assert_eq!((f.start_seq, f.end_seq), (Some(start), end));
    assert_eq!(f.error["code"], "TIMEOUT");
    assert_eq!(f.trigger, Some(Trigger::Pressure));
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    // Both steps' requests were made at ≥ 240 tokens (80 % of 300).
    assert_eq!(a.over_threshold_requests.len(), 2);
    for o in &a.over_threshold_requests {
        assert!(o.tokens >= o.threshold && o.threshold == 240 && o.window == 300);
    }
}

// --- Lost terms and refetches -----------------------------------------------------------------

#[test]
fn lost_and_kept_terms() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.window(100_000);
    let a1 = l.user("parse_amount in src/lib.rs fails with E0600, see src/lib.rs:14");
    let a2 = l.user("InvalidAmount shows up too");
    l.user("keep: E0600 stays visible here");
    l.step_end();
    l.step_start();
    let rep = l.compact(&[a1, a2], "Fixed parse_amount.", json!({}), Some(1));
    l.step_end();
    l.turn_end();
    let log = l.build();
    let a = audit_of(&log);
    let r = &a.replaces[0];
    assert_eq!(r.seq, rep);
    // parse_amount is kept by the summary, E0600 by another node on the surface.
    let lost: Vec<(&str, u64)> = r
        .lost_terms
        .iter()
        .map(|t| (t.term.as_str(), t.count))
        .collect();
    assert_eq!(lost, [("src/lib.rs", 2), ("InvalidAmount", 1)]);
    // Every lost term is marked where it occurs in the shadowed text.
    let d = detail(&log, r);
    let marked: Vec<&str> = d
        .shadowed
        .iter()
        .flat_map(|s| s.lost_spans.iter().map(|sp| &s.text[sp.clone()]))
        .collect();
    assert_eq!(marked, ["src/lib.rs", "src/lib.rs", "InvalidAmount"]);
}

#[test]
fn a_refetch_is_charged_to_the_latest_replace_that_shadowed_its_twin() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.user("look at the config");
    l.window(100_000);
    let first = l.tool(
        "c1",
        "read",
        r#"{"path":"src/config.rs","limit":40}"#,
        "fn load() {}\n",
    );
    l.step_end();
    l.step_start();
    let p = l.prune(first, "c1", "[pruned]");
    l.step_end();
    l.step_start();
    // Equal as JSON values: key order, spacing and 40.0 do not matter.
    l.tool(
        "c2",
        "read",
        r#"{ "limit": 40.0, "path": "src/config.rs" }"#,
        "fn load() { new }\n",
    );
    l.step_end();
    l.step_start();
    // Its twin's result is on the surface again: no refetch, and other arguments are another call.
    l.tool(
        "c3",
        "read",
        r#"{"path":"src/config.rs","limit":40}"#,
        "fn load() { new }\n",
    );
    l.tool("c4", "read", r#"{"path":"src/other.rs"}"#, "x\n");
    l.step_end();
    l.turn_end();
    let log = l.build();
    let a = audit_of(&log);
    assert_eq!(a.replaces.len(), 1);
    let r = &a.replaces[0];
    assert_eq!((r.seq, r.kind), (p, ReplaceKind::Prune));
    assert_eq!(r.refetches.len(), 1);
    let f = &r.refetches[0];
    assert_eq!((f.tool.as_str(), f.original_seq), ("read", first));
    // seq names the new tool/call; tokens is the meter's price of its result.
    assert_eq!(log.type_name(log.find_seq(f.seq).unwrap()), "tool/call");
    let result = f.result_seq.unwrap();
    let meter = Meter::build(&log, &Surface::at_end(&log));
    assert_eq!(f.tokens, Some(meter.price(log.find_seq(result).unwrap())));
    assert_eq!(f.tokens, Some(4 + (5 + 4) + 4));
}

// --- Bad input --------------------------------------------------------------------------------

#[test]
fn bad_compaction_events_are_warnings_and_nulls_never_panics() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.window(100_000);
    let u = l.user("first");
    let v = l.user("second");
    // No compactionId, shadowedSeqs not an array, usage not an object.
    l.log("compaction/start", json!({"turn": 1}));
    l.log(
        "compaction/summary",
        json!({"summary":[],"shadowedRange":{"start":u,"end":u},"shadowedSeqs":"4","shadowedTokenCount":1,"provider":"p","model":"m","usage":7}),
    );
    let rep = l.event(
        "user/message",
        json!({"content":[{"type":"text","text":"s"}]}),
        Some(&[u]),
        Some(json!({"op":"replace","start":u,"end":u})),
    );
    // An end without a start, a start without an end, a summary without a replace.
    let stray_end = l.log("compaction/end", json!({"compactionId":"zz","turn":1}));
    let open = l.log("compaction/start", json!({"compactionId":"open","turn":1}));
    let lonely = l.log(
        "compaction/summary",
        json!({"compactionId":"open","summary":[],"shadowedRange":{"start":v,"end":v},"shadowedSeqs":[v],"shadowedTokenCount":1,"provider":"p","model":"m"}),
    );
    l.log("compaction/prune", json!({"shadowedSeqs":{"a":1}}));
    l.step_end();
    l.turn_end();
    let log = l.build();
    let a = audit_of(&log);
    assert_eq!(a.replaces.len(), 1);
    let r = &a.replaces[0];
    assert_eq!((r.seq, r.kind, r.valid), (rep, ReplaceKind::Summary, true));
    let c = r.compaction.as_ref().unwrap();
    assert_eq!(
        (c.id.clone(), c.usage.clone(), c.shadowed_seqs.clone()),
        (None, None, None)
    );
    assert_eq!(c.end_seq, None, "the stray end has another id");
    let mut got: Vec<(&str, Option<u64>)> = a.warnings.iter().map(|w| (w.rule, w.seq)).collect();
    got.sort();
    let mut want = vec![
        ("compaction.bracket", Some(stray_end)),
        ("compaction.bracket", Some(open)),
        ("compaction.bracket", Some(lonely)),
        ("compaction.bracket", Some(rep - 2)),
        ("compaction.bracket", Some(lonely + 1)),
        ("compaction.malformed", Some(rep - 2)),
        ("compaction.malformed", Some(rep - 1)),
        ("compaction.malformed", Some(lonely + 1)),
    ];
    want.sort();
    assert_eq!(got, want, "{:#?}", a.warnings);
    let malformed = a.warnings.iter().find(|w| w.seq == Some(rep - 1)).unwrap();
    assert!(
        malformed.message.contains("no compactionId")
            && malformed.message.contains("shadowedSeqs is not an array")
            && malformed.message.contains("usage is not an object"),
        "{}",
        malformed.message
    );
    // check reports the same warnings, and nothing is an error.
    let found = check(&log, &Surface::at_end(&log));
    assert_eq!(found.len(), want.len());
    assert!(found.iter().all(|f| !f.is_error()));
}

#[test]
fn a_recorded_range_that_is_not_the_op_is_a_mismatch() {
    let mut l = Log::default();
    l.turn_start();
    l.step_start();
    l.window(100_000);
    let u = l.user("a");
    let v = l.user("b");
    l.compact(&[u], "s", json!({"shadowedSeqs": [u, v]}), Some(1));
    l.step_end();
    l.turn_end();
    let a = audit_of(&l.build());
    let rules: Vec<_> = a.warnings.iter().map(|w| w.rule).collect();
    assert_eq!(rules, ["compaction.shadowed-mismatch"]);
    assert!(a.warnings[0].message.contains(&format!("[{u}, {v}]")));
}

#[test]
fn hostile_payloads_never_panic() {
    let lines = [
        r#"{"type":"compaction/start","seq":0,"data":null}"#,
        r#"{"type":"compaction/summary","seq":1,"data":[1,2]}"#,
        r#"{"type":"compaction/end","seq":2,"data":"x"}"#,
        r#"{"type":"compaction/prune","seq":3}"#,
        r#"{"type":"user/message","seq":4,"data":{"content":"not blocks"},"surfaceOp":"append"}"#,
        r#"{"type":"user/message","seq":5,"data":{"content":[{"type":"text","text":7}]},"sourceEventSeqs":[4],"surfaceOp":{"op":"replace","start":4,"end":4}}"#,
        r#"{"type":"tool/call","seq":6,"data":{"callId":5,"name":null}}"#,
        r#"{"type":"tool/result","seq":7,"data":{"message":"x"},"surfaceOp":"append"}"#,
        r#"{"type":"assistant/chunk","seq":8,"data":{"chunk":{"type":"finish","reason":"CONTEXT_WINDOW_EXCEEDED"}}}"#,
        r#"{"type":"compaction/start","seq":9,"data":{"compactionId":"x","turn":"one"}}"#,
        r#"{"type":"user/message","seq":10,"data":{"content":[]},"surfaceOp":{"op":"replace","start":99,"end":98}}"#,
    ];
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    let log = log_of(&text);
    let a = audit_of(&log);
    assert_eq!(a.replaces.len(), 2);
    assert!(a.replaces[0].valid && !a.replaces[1].valid);
    assert!(!a.warnings.is_empty());
    let findings = invariants::assert_log_invariants(&log, "hostile payloads");
    // The bad replace (end before start) is named by its line.
    assert!(
        findings
            .iter()
            .any(|f| f.line == Some(11) && f.seq == Some(10)),
        "{findings:#?}"
    );
}

// --- The command ---------------------------------------------------------------------------

#[test]
fn audit_json_has_the_contract_fields() {
    let fixture = upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let out = run(&[
        "audit",
        fixture.to_str().unwrap(),
        "--json",
        "--threshold-ratio",
        "0.5",
    ]);
    expect_exit(&out, 0);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "file",
        "events",
        "window",
        "threshold_ratio",
        "threshold",
        "replaces",
        "failed",
        "over_threshold_requests",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(
        (v["events"].as_u64(), v["threshold"].as_u64()),
        (Some(31), Some(64_000))
    );
    let r = &v["replaces"][0];
    for key in [
        "seq",
        "kind",
        "valid",
        "start",
        "end",
        "shadowed",
        "nodes_before",
        "nodes_after",
        "tokens_before",
        "tokens_after",
        "trigger",
        "reported_before",
        "reported_after",
        "compaction",
        "lost_terms",
        "refetches",
    ] {
        assert!(r.get(key).is_some(), "replaces[0].{key}");
    }
    assert_eq!(r["trigger"], "overflow");
    for key in [
        "id",
        "start_seq",
        "end_seq",
        "duration_ms",
        "provider",
        "model",
        "usage",
        "max_tokens",
        "shadowed_token_count",
        "error",
    ] {
        assert!(r["compaction"].get(key).is_some(), "compaction.{key}");
    }
    assert_eq!(r["compaction"]["shadowed_token_count"], 266);
}

#[test]
fn audit_human_and_markdown_output() {
    let fixture = upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let out = run(&["audit", fixture.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1 replace op (1 summary, 0 prune, 0 other)"),
        "{text}"
    );
    assert!(
        text.contains("overflow") && text.contains("4701 → 4551"),
        "{text}"
    );
    let out = run(&["audit", fixture.to_str().unwrap(), "--markdown"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("## Compaction audit"), "{md}");
    assert!(md.contains("| seq | kind | trigger |"), "{md}");
    assert!(md.contains("| 21 | summary | overflow |"), "{md}");
}

#[test]
fn audit_of_an_unreadable_file_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["audit", dir.path().join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.jsonl"), "{err}");
}

/// Checks that `html` is well-formed: every non-void element closed in order, attributes
/// quoted, no stray `<`. Returns the element names in document order.
fn well_formed(html: &str) -> Vec<String> {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let close = rest.find('>').expect("every tag ends");
        let tag = &rest[..close];
        rest = &rest[close + 1..];
        assert!(!tag.contains('<'), "stray < in tag {tag:?}");
        if tag.starts_with('!') {
            assert!(tag.eq_ignore_ascii_case("!DOCTYPE html"), "{tag}");
            continue;
        }
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in {tag:?}"
        );
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name, "</{name}> closes <{top}>");
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(!name.is_empty(), "tag without a name: {tag:?}");
        names.push(name.clone());
        if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    names
}

/// `audit LOG --html DIR/audit.html`, which must succeed: the report's text.
fn html_report(log: &std::path::Path, dir: &std::path::Path) -> String {
    let out_path = dir.join("audit.html");
    let out = run(&[
        "audit",
        log.to_str().unwrap(),
        "--html",
        out_path.to_str().unwrap(),
    ]);
    expect_exit(&out, 0);
    std::fs::read_to_string(&out_path).unwrap()
}

#[test]
fn the_html_report_is_well_formed_self_contained_and_holds_the_curve() {
    let dir = tempfile::tempdir().unwrap();
    let sample =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl");
    let html = html_report(&sample, dir.path());
    let names = well_formed(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needed in [
        "html", "head", "body", "svg", "path", "table", "section", "mark",
    ] {
        assert!(names.iter().any(|n| n == needed), "no <{needed}>");
    }
    assert!(!html.contains("<script"), "readable without scripts");
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no network"
    );
    // One section per replace op, each linked from the table.
    let a = audit_of(&log_of(&std::fs::read_to_string(&sample).unwrap()));
    for r in &a.replaces {
        assert!(html.contains(&format!("id=\"r-{}\"", r.seq)));
        assert!(html.contains(&format!("href=\"#r-{}\"", r.seq)));
    }
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn the_html_report_never_goes_over_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    let original = std::fs::read(upstream(
        "v0-2026-08-20-head/compaction-recovery.session.jsonl",
    ))
    .unwrap();
    std::fs::write(&log, &original).unwrap();
    let out = run(&[
        "audit",
        log.to_str().unwrap(),
        "--html",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("never writes"), "{err}");
    assert_eq!(std::fs::read(&log).unwrap(), original);
}

/// The Markdown audit of the bundled sample, against the committed expected file (rewrite it
/// with `UPDATE_SNAPSHOTS=1 cargo test --test suite audit::` after a deliberate change).
#[test]
fn markdown_of_the_sample_matches_the_snapshot() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let log = log_of(&std::fs::read_to_string(root.join("assets/sample.session.jsonl")).unwrap());
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let a = audit(&log, &surface, &meter, 0.8);
    let ledger = surface_analysis::cost::ledger_of(&log, &surface, &meter, None);
    let report = surface_cli::audit::Report {
        file: "assets/sample.session.jsonl".to_string(),
        log: &log,
        meter: &meter,
        audit: &a,
        ledger: &ledger,
        policy: None,
    };
    let markdown = surface_cli::audit::markdown(&report);
    let expected_path = root.join("tests/snapshots/audit_sample.md");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&expected_path, &markdown).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        markdown == expected,
        "the sample's Markdown audit changed; review it and run UPDATE_SNAPSHOTS=1 cargo test --test suite audit::\n{markdown}"
    );
}

/// Every `href="#…"` of `html` and every `id="…"`.
fn anchors(html: &str) -> (Vec<&str>, std::collections::HashSet<&str>) {
    let hrefs = html
        .split("href=\"#")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    let ids = html
        .split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    (hrefs, ids)
}

#[test]
fn the_html_report_of_a_long_log_links_only_to_sections_it_holds() {
    // More compactions than the report shows with their texts.
    let config = surface_synth::SynthConfig {
        target_events: 40_000,
        chunks_per_message: 4,
        compaction_every: 1,
        ..surface_synth::SynthConfig::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("long.session.jsonl");
    let file = std::fs::File::create(&log).unwrap();
    surface_synth::generate(&config, std::io::BufWriter::new(file)).unwrap();
    let html = html_report(&log, dir.path());
    let replaces = html.matches("<section id=\"r-").count();
    assert!(
        replaces > surface_cli::audit::DETAILED,
        "{replaces} sections: the log needs more compactions than are shown in full"
    );
    let (hrefs, ids) = anchors(&html);
    assert!(
        hrefs.len() > 2 * surface_cli::audit::DETAILED,
        "{}",
        hrefs.len()
    );
    let dead: Vec<&&str> = hrefs.iter().filter(|h| !ids.contains(**h)).collect();
    assert!(
        dead.is_empty(),
        "{} dead links, the first {:?}",
        dead.len(),
        dead.first()
    );
    // The chart is a band from each column's lowest to its highest total, and the table has
    // the policy's verdict on every compaction.
    assert!(html.contains("lowest to highest in each column"));
    assert!(html.contains("<th>policy</th>"));
    assert!(html.contains("as the policy decided") || html.contains("class=\"differs\""));
    // Two charts: the context curve and what the summaries kept, by kind of fact.
    assert_eq!(well_formed(&html).iter().filter(|n| *n == "svg").count(), 2);
}
