//! The readings of docs/policy.md that an earlier replay got wrong, each on a log written for
//! it: overflow recoveries in a row counted until the step's message or the turn's end (not
//! reset at every `step/start`, docs/policy.md#the-policy-in-our-words); a check that fired
//! but found nothing to prune and no range bounds the threshold ratio only where the replay
//! would have acted (docs/policy.md#infer); a retain budget of 0 tokens verified and inferred
//! (docs/policy.md#verify, #infer); the tool pairing counts the `tool-call` blocks of the
//! messages, nothing else of their text (docs/policy.md#the-policy-in-our-words); the audit
//! and the policy read the same chunks as overflow finishes (docs/audit.md#triggers); an
//! overflow check of a what-if whose hypothetical request is over the window overflows, as the
//! totals count it (docs/policy.md#what-if).

use std::collections::BTreeMap;

use crate::binary::{bin, expect_exit};

use surface_analysis::audit::{Trigger, audit};
use surface_analysis::policy::{
    CheckKind, Outcome, PolicyInput, PolicyReport, PolicySettings, ReplayMode, Retain, replay,
};
use surface_engine::{EventIdx, EventLog, Meter, Surface};
use surface_store::read_jsonl;
use surface_synth::{PolicySynthConfig, generate_with_policy};

/// A log written event by event, seqs from 0.
#[derive(Default)]
struct Script {
    lines: Vec<String>,
}

impl Script {
    fn push(&mut self, type_name: &str, data: &str, tail: &str) -> u64 {
        let seq = self.lines.len() as u64;
        self.lines.push(format!(
            r#"{{"type":"{type_name}","seq":{seq},"time":{seq},"data":{data}{tail}}}"#
        ));
        seq
    }

    fn event(&mut self, type_name: &str, data: &str) -> u64 {
        self.push(type_name, data, "")
    }

    /// A `user/message` appended whose meter price is `tokens` (≥ 9): `4 + ⌈len/4⌉ + 4`.
    fn user(&mut self, tokens: u64) -> u64 {
        let text = "x".repeat(((tokens - 8) * 4) as usize);
        let data = format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]}}"#);
        self.push("user/message", &data, r#","surfaceOp":"append""#)
    }

    /// An `assistant/message` of step `turn.step` with `blocks` (JSON), appended.
    fn assistant(&mut self, (turn, step): (u64, u64), blocks: &str) -> u64 {
        let data = format!(
            r#"{{"turn":{turn},"step":{step},"message":{{"role":"assistant","content":{blocks}}}}}"#
        );
        self.push("assistant/message", &data, r#","surfaceOp":"append""#)
    }

    /// A short text answer (9 tokens).
    fn answer(&mut self, at: (u64, u64)) -> u64 {
        self.assistant(at, r#"[{"type":"text","text":"done"}]"#)
    }

    /// The model routed (a header whose price is 5) and a window.
    fn routed(&mut self, window: u64) {
        self.event(
            "request/header",
            r#"{"header":{"config":{"provider":"p","model":"m"},"system":"s"}}"#,
        );
        self.event(
            "request/context",
            &format!(r#"{{"provider":"p","model":"m","contextWindow":{window}}}"#),
        );
    }

    fn step_start(&mut self, (turn, step): (u64, u64)) -> u64 {
        self.event("step/start", &format!(r#"{{"turn":{turn},"step":{step}}}"#))
    }

    fn step_end(&mut self, (turn, step): (u64, u64)) -> u64 {
        self.event("step/end", &format!(r#"{{"turn":{turn},"step":{step}}}"#))
    }

    /// The model call of step `turn.step` failed: the window was exceeded.
    fn overflow(&mut self, (turn, step): (u64, u64)) -> u64 {
        self.event(
            "assistant/chunk",
            &format!(
                r#"{{"turn":{turn},"step":{step},"chunk":{{"type":"finish","reason":{{"kind":"error","failure":{{"message":"too long","code":"CONTEXT_WINDOW_EXCEEDED"}}}}}}}}"#
            ),
        )
    }

    /// A summarizing compaction of the nodes `start ..= end` (seqs) in turn `turn`, its
    /// summary message priced `tokens`; the summary's seq.
    fn summary(&mut self, id: &str, turn: u64, (start, end): (u64, u64), tokens: u64) -> u64 {
        let bracket = format!(r#"{{"compactionId":"{id}","turn":{turn}}}"#);
        self.event("compaction/start", &bracket);
        self.event(
            "compaction/summary",
            &format!(r#"{{"compactionId":"{id}","summary":[{{"type":"text","text":"summary"}}]}}"#),
        );
        let text = "s".repeat(((tokens - 8) * 4) as usize);
        let seq = self.push(
            "user/message",
            &format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]}}"#),
            &format!(r#","surfaceOp":{{"op":"replace","start":{start},"end":{end}}}"#),
        );
        self.event("compaction/end", &bracket);
        seq
    }

    fn log(&self) -> EventLog {
        let mut text = String::from(r#"{"type":"session","version":0,"id":"spec","createdAt":0}"#);
        text.push('\n');
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        read_jsonl(text.into_bytes(), None).unwrap()
    }
}

fn verify(log: &EventLog, settings: &PolicySettings) -> PolicyReport {
    let surface = Surface::at_end(log);
    let meter = Meter::build(log, &surface);
    let input = PolicyInput::build(log, &surface, &meter);
    let settings = settings.validate(meter.window_at(log.len())).unwrap();
    replay(log, &meter, &input, &settings, ReplayMode::Verify)
}

/// `(trigger, outcome, agrees)` of every check, in log order.
fn verdicts(report: &PolicyReport) -> Vec<(CheckKind, Outcome, Option<bool>)> {
    report
        .checks
        .iter()
        .map(|c| (c.trigger, c.outcome, c.agrees))
        .collect()
}

#[test]
fn overflow_recoveries_in_a_row_reset_at_the_message_and_the_turn_end_not_at_a_step() {
    let mut s = Script::default();
    s.event("turn/start", r#"{"turn":1}"#);
    s.step_start((1, 1));
    let u0 = s.user(100);
    s.routed(100_000);
    let a0 = s.answer((1, 1));
    s.step_end((1, 1));
    // Step 1.2 overflows and recovers; its retried call fails otherwise (no message).
    s.step_start((1, 2));
    s.overflow((1, 2));
    let s1 = s.summary("c1", 1, (u0, u0), 20);
    s.step_end((1, 2));
    // Step 1.3 overflows again, in the same turn with no message since: the one recovery in
    // a row has run, the error stands and the log does nothing.
    s.step_start((1, 3));
    s.overflow((1, 3));
    s.step_end((1, 3));
    s.event("turn/end", r#"{"turn":1}"#);
    // A new turn recovers again; so does the next step, after the step's message.
    s.event("turn/start", r#"{"turn":2}"#);
    s.step_start((2, 1));
    s.overflow((2, 1));
    let s2 = s.summary("c2", 2, (s1, s1), 20);
    s.answer((2, 1));
    s.step_end((2, 1));
    s.step_start((2, 2));
    s.overflow((2, 2));
    s.summary("c3", 2, (s2, a0), 20);
    s.answer((2, 2));
    s.step_end((2, 2));
    s.event("turn/end", r#"{"turn":2}"#);
    let report = verify(&s.log(), &PolicySettings::default());
    use CheckKind::{Overflow, Pressure};
    assert_eq!(
        verdicts(&report),
        [
            (Pressure, Outcome::Below, Some(true)),
            (Overflow, Outcome::Summarized, Some(true)),
            (Pressure, Outcome::Below, Some(true)),
            (Overflow, Outcome::Failed, Some(true)),
            (Pressure, Outcome::Below, Some(true)),
            (Overflow, Outcome::Summarized, Some(true)),
            (Pressure, Outcome::Below, Some(true)),
            (Overflow, Outcome::Summarized, Some(true)),
        ],
        "{:?}",
        report.first_divergence
    );
    // Two recoveries in a row allowed: step 1.3 recovers, and the log that did not disagrees.
    let two = PolicySettings {
        max_overflow_retries: 2,
        ..PolicySettings::default()
    };
    let report = verify(&s.log(), &two);
    assert_eq!(report.disagreements(), 1);
    let d = report.first_divergence.unwrap();
    assert!(d.why.contains("recovers from the overflow"), "{}", d.why);
}

/// Window 1,000, T 0.8 (threshold 800), R 0.16 (budget 160). The first check fires at 914
/// tokens but its surface is one large prompt and a short answer: nothing to prune, and no
/// tail of 160 tokens short of the whole surface, so no range — no events. The next check
/// summarises; after it a check below the threshold, where the policy would have acted.
fn fired_but_silent() -> Script {
    let mut s = Script::default();
    s.event("turn/start", r#"{"turn":1}"#);
    s.step_start((1, 1));
    let prompt = s.user(900);
    s.routed(1_000);
    let answer = s.answer((1, 1));
    s.step_end((1, 1));
    s.step_start((1, 2)); // fires at 5 + 900 + 9 = 914: nothing to do
    s.user(170);
    s.answer((1, 2));
    s.step_end((1, 2));
    s.summary("c1", 1, (prompt, answer), 20);
    s.step_start((1, 3)); // fires: summarises the prompt and the answer
    s.answer((1, 3));
    s.step_end((1, 3));
    s.event("turn/end", r#"{"turn":1}"#);
    s.event("turn/start", r#"{"turn":2}"#);
    s.step_start((2, 1)); // below: 5 + 20 + 170 + 9 + 9 = 213
    s.answer((2, 1));
    s.step_end((2, 1));
    s.event("turn/end", r#"{"turn":2}"#);
    s
}

#[test]
fn a_check_that_fired_with_nothing_to_do_does_not_bound_the_threshold_ratio() {
    let report = verify(&fired_but_silent().log(), &PolicySettings::default());
    let outcomes: Vec<(Outcome, u64)> =
        report.checks.iter().map(|c| (c.outcome, c.total)).collect();
    assert_eq!(
        outcomes,
        [
            (Outcome::NoRange, 914),
            (Outcome::Summarized, 1_093),
            (Outcome::Below, 213)
        ]
    );
    assert_eq!(report.disagreements(), 0, "{:?}", report.first_divergence);
    let inferred = &report.inferred;
    assert!(inferred.conflicts.is_empty(), "{:?}", inferred.conflicts);
    // The silent check at 914 says nothing; the one below the threshold, where the policy
    // would have summarised had it fired, says T ≥ 214/1000; the summary says T < 1094/1000
    // (above 1: T < 1).
    let [lo, hi] = inferred.threshold_ratio.unwrap();
    assert_eq!(lo, 214.0 / 1000.0);
    assert_eq!(hi, 1.0);
    assert!((lo..hi).contains(&0.8));
}

#[test]
fn a_retain_budget_of_zero_tokens_is_verified_and_inferred() {
    let settings = PolicySettings {
        threshold_ratio: 0.7,
        retain: Retain::Tokens(0),
        ..PolicySettings::default()
    };
    let config = PolicySynthConfig {
        seed: 7,
        turns: 10,
        context_window: 8_000,
        settings,
        big_output_percent: 20,
        tool_output_lines: 30,
        ..PolicySynthConfig::default()
    };
    let mut bytes = Vec::new();
    generate_with_policy(&config, &mut bytes).unwrap();
    let log = read_jsonl(bytes, None).unwrap();
    let report = verify(&log, &settings);
    let pressure_summaries = report
        .checks
        .iter()
        .filter(|c| c.trigger == CheckKind::Pressure)
        .filter(|c| c.summaries.iter().any(|s| s.ok))
        .count();
    assert!(pressure_summaries > 0, "the run summarised under pressure");
    assert_eq!(report.disagreements(), 0, "{:?}", report.first_divergence);
    let [lo, hi] = report.inferred.retain_tokens.unwrap();
    assert_eq!(lo, 0, "0 is in the interval: nothing rules it out");
    assert!(hi >= lo, "{:?}", report.inferred.conflicts);
    // The command line takes it too, and agrees.
    let mut written = Vec::new();
    generate_with_policy(&config, &mut written).unwrap();
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), written).unwrap();
    let out = bin()
        .args(["policy", "--threshold-ratio", "0.7", "--retain-tokens", "0"])
        .arg(file.path())
        .output()
        .unwrap();
    expect_exit(&out, 0);
}

/// Window 1,000, T 0.8, budget 160. Step 1.1 calls a tool whose arguments are an object that
/// holds the text `"type":"tool-call"`, and its result's text quotes it too; at step 1.3 the
/// policy summarises the prompt, the call and its result (the newest 160 tokens start at the
/// user message after them, and the pairing before it is balanced).
fn tool_call_text_in_places_that_are_not_calls() -> (Script, (u64, u64)) {
    let mut s = Script::default();
    s.event("turn/start", r#"{"turn":1}"#);
    s.step_start((1, 1));
    let prompt = s.user(600);
    s.routed(1_000);
    s.assistant(
        (1, 1),
        r#"[{"type":"tool-call","id":"c1","name":"read","arguments":{"path":"a","then":{"type":"tool-call"}}}]"#,
    );
    s.event(
        "tool/call",
        r#"{"turn":1,"step":1,"callId":"c1","name":"read","arguments":"{}"}"#,
    );
    let result = s.push(
        "tool/result",
        r#"{"turn":1,"step":1,"message":{"role":"user","id":"r1","source":{"kind":"tool","callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"it said \"type\":\"tool-call\" twice: {\"type\":\"tool-call\"}"}]}]}}"#,
        r#","surfaceOp":"append""#,
    );
    s.step_end((1, 1));
    s.step_start((1, 2)); // below
    s.user(200);
    s.answer((1, 2));
    s.step_end((1, 2));
    s.summary("c1", 1, (prompt, result), 20);
    s.step_start((1, 3)); // fires
    s.answer((1, 3));
    s.step_end((1, 3));
    s.event("turn/end", r#"{"turn":1}"#);
    (s, (prompt, result))
}

#[test]
fn the_tool_pairing_counts_call_blocks_not_the_text_tool_call() {
    let (script, (prompt, result)) = tool_call_text_in_places_that_are_not_calls();
    let report = verify(&script.log(), &PolicySettings::default());
    assert_eq!(report.disagreements(), 0, "{:?}", report.first_divergence);
    let fired = report
        .checks
        .iter()
        .find(|c| !c.summaries.is_empty())
        .unwrap();
    let range = (fired.summaries[0].start, fired.summaries[0].end);
    assert_eq!(
        range,
        (prompt, result),
        "the call and its result in one range"
    );
}

#[test]
fn the_audit_and_the_policy_read_the_same_overflow_finishes() {
    let mut s = Script::default();
    s.event("turn/start", r#"{"turn":1}"#);
    s.step_start((1, 1));
    let u0 = s.user(100);
    s.routed(100_000);
    s.answer((1, 1));
    s.step_end((1, 1));
    // A finish whose failure sits at data's top level, not in data.chunk: not an overflow.
    s.step_start((1, 2));
    s.event(
        "assistant/chunk",
        r#"{"turn":1,"step":2,"type":"finish","reason":{"kind":"error","failure":{"code":"CONTEXT_WINDOW_EXCEEDED"}}}"#,
    );
    let s1 = s.summary("c1", 1, (u0, u0), 20);
    s.answer((1, 2));
    s.step_end((1, 2));
    // The spec's chunk: an overflow.
    s.step_start((1, 3));
    s.overflow((1, 3));
    s.summary("c2", 1, (s1, s1), 20);
    s.answer((1, 3));
    s.step_end((1, 3));
    s.event("turn/end", r#"{"turn":1}"#);
    let log = s.log();
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let input = PolicyInput::build(&log, &surface, &meter);
    // Each replace op: overflow for the audit, and in an overflow check for the policy.
    let audited: BTreeMap<u64, bool> = audit(&log, &surface, &meter, 0.8)
        .replaces
        .iter()
        .map(|r| (r.seq, r.trigger == Some(Trigger::Overflow)))
        .collect();
    let mut replayed = BTreeMap::new();
    for check in input.checks() {
        for replace in check.log.summaries.iter().filter_map(|s| s.replace_event) {
            let seq = log.event(EventIdx(replace)).seq;
            replayed.insert(seq, check.kind == CheckKind::Overflow);
        }
    }
    assert_eq!(audited, replayed);
    assert_eq!(audited.values().filter(|&&o| o).count(), 1);
}

/// Window 1,000. Step 1.2's pressure check sees 5 + 200 + 100 + 9 = 314 tokens; the log does
/// nothing there. Inside the step a prompt of `prompt` tokens arrives and the model call fails
/// with `CONTEXT_WINDOW_EXCEEDED` (the log does nothing either).
fn overflow_after_a_divergence(prompt: u64) -> EventLog {
    let mut s = Script::default();
    s.event("turn/start", r#"{"turn":1}"#);
    s.step_start((1, 1));
    s.user(200);
    s.user(100);
    s.routed(1_000);
    s.answer((1, 1));
    s.step_end((1, 1));
    s.step_start((1, 2));
    s.user(prompt);
    s.overflow((1, 2));
    s.step_end((1, 2));
    s.event("turn/end", r#"{"turn":1}"#);
    s.log()
}

/// A what-if at T 0.3 (threshold 300) that fires at 314 where the log did not, keeping 50 tokens
/// and paying 150 for the summary of the first prompt (200): 50 tokens under the log from
/// there on.
fn what_if_at_03(log: &EventLog) -> PolicyReport {
    let surface = Surface::at_end(log);
    let meter = Meter::build(log, &surface);
    let input = PolicyInput::build(log, &surface, &meter);
    let settings = PolicySettings {
        threshold_ratio: 0.3,
        retain: Retain::Tokens(50),
        summary_tokens: Some(150),
        ..PolicySettings::default()
    };
    let settings = settings.validate(meter.window_at(log.len())).unwrap();
    replay(log, &meter, &input, &settings, ReplayMode::WhatIf)
}

#[test]
fn an_overflow_check_and_the_totals_agree_on_a_request_over_the_window() {
    // The log's request: 5 + 200 + 100 + 9 + 750 = 1,064; the what-if's 1,014, still over the
    // window of 1,000: it overflows too and recovers, as the totals count it over the window.
    let report = what_if_at_03(&overflow_after_a_divergence(750));
    let first = report
        .first_divergence
        .as_ref()
        .expect("T 0.3 fires where the log did not");
    assert!(first.why.contains("fired at 314"), "{}", first.why);
    let overflow = report
        .checks
        .iter()
        .find(|c| c.trigger == CheckKind::Overflow)
        .expect("an overflow check");
    assert_eq!((overflow.total, overflow.window), (1_014, Some(1_000)));
    assert_eq!(report.totals.requests_over_window, 1);
    assert_ne!(overflow.outcome, Outcome::Below, "{overflow:?}");
    assert_eq!(overflow.outcome, Outcome::Summarized);
    assert_eq!(overflow.total_after, 1_014 - 259 + 150);
    // A prompt of 650: the log's 964 overflowed (the provider's limit is lower than the
    // window), the what-if's 914 fits the window and is smaller than the log's: below, and
    // said why; no request over the window is counted.
    let report = what_if_at_03(&overflow_after_a_divergence(650));
    let overflow = report
        .checks
        .iter()
        .find(|c| c.trigger == CheckKind::Overflow)
        .expect("an overflow check");
    assert_eq!((overflow.total, overflow.outcome), (914, Outcome::Below));
    assert_eq!(report.totals.requests_over_window, 0);
    let note = overflow.note.as_deref().unwrap_or_default();
    assert!(
        note.contains("no overflow") && note.contains("(964)"),
        "{note}"
    );
}
