//! Each cause of a first change on a small hand-made log: the cause, its position and its
//! tokens, worked out from the events' text (user messages of known length; the assistant's
//! "ok" and the header read from the meter once).

use serde_json::{Value, json};

use super::tests::{header, log_of, step, summary, text, user};
use super::*;
use crate::audit::ReplaceKind;
use surface_engine::{EventIdx, EventLog, Meter, Surface};

/// The meter's price of a user message of `n` characters.
fn price(n: u64) -> u64 {
    4 + n.div_ceil(4) + 4
}

struct Run {
    log: EventLog,
    meter: Meter,
    breaks: CacheBreaks,
}

impl Run {
    fn of(lines: &[Value]) -> Run {
        let log = log_of(lines);
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let parts = parts_of(&log, &surface, &meter);
        let breaks = cache_breaks(&log, &surface, &meter, &parts);
        Run { log, meter, breaks }
    }

    /// The meter's price of the event of `seq`.
    fn price_of(&self, seq: u64) -> u64 {
        let idx = self.log.find_seq(seq).unwrap();
        self.meter.price(EventIdx(idx.get() as u32))
    }

    fn header_price(&self) -> u64 {
        self.meter.headers()[0].price()
    }

    fn request(&self, seq: u64) -> &RequestChange {
        self.breaks.requests.iter().find(|r| r.seq == seq).unwrap()
    }
}

fn header_with(seq: u64, model: &str, system: &str, tools: &[&str]) -> Value {
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t, "description": "d"}))
        .collect();
    json!({"type": "request/header", "seq": seq, "data": {"header": {
        "config": {"provider": "acme", "model": model}, "system": system, "tools": tools}}})
}

/// A header, user 1 (400 chars), call 3, user 5 (800 chars), call 7: the first two requests.
fn two_calls(first: Value) -> Vec<Value> {
    let mut l = vec![first, user(1, 400)];
    l.extend(step(2, 1, 1, [100, 0, 50, 10])); // 2, 3, 4
    l.push(user(5, 800));
    l.extend(step(6, 1, 2, [60, 100, 0, 10])); // 6, 7, 8
    l
}

fn cause_at(r: &RequestChange) -> (Cause, Block, usize, Option<u64>) {
    let c = r.first_change;
    (c.cause, c.at.block, c.at.index, c.at.seq)
}

#[test]
fn pure_growth_is_none_and_resends_nothing() {
    let run = Run::of(&two_calls(header(0)));
    let r = run.request(7);
    // The previous request was [user 1]; this one is [user 1, assistant 3, user 5].
    assert_eq!(cause_at(r), (Cause::None, Block::Message, 1, Some(3)));
    assert_eq!(r.prefix_tokens, run.header_price() + price(400));
    assert_eq!(r.resent_tokens, 0);
    assert_eq!(r.against, Some(3));
    // The first request is compared with nothing: all of it is new.
    let first = run.request(3);
    assert_eq!(
        (first.first_change.cause, first.prefix_tokens, first.against),
        (Cause::None, 0, None)
    );
    // expected = prefix × prompt ÷ estimate; the estimate is this request's meter price.
    let estimate = run.header_price() + price(400) + run.price_of(3) + price(800);
    assert_eq!(
        r.expected_cache_read,
        Some(r.prefix_tokens * 160 / estimate)
    );
    assert_eq!(r.cache_read, Some(100));
}

#[test]
fn a_changed_system_prompt_resends_everything() {
    let mut l = two_calls(header(0));
    l.insert(4, header_with(4, "m1", "another system prompt", &[]));
    let l: Vec<Value> = l.into_iter().collect();
    let run = Run::of(&l);
    let r = run.request(7);
    assert_eq!(cause_at(r), (Cause::System, Block::System, 0, None));
    assert_eq!(r.prefix_tokens, 0);
    assert_eq!(r.resent_tokens, run.header_price() + price(400));
}

#[test]
fn an_added_tool_names_its_index_and_keeps_the_system_prompt() {
    let mut l = two_calls(header_with(0, "m1", "sys", &["read"]));
    l.insert(4, header_with(4, "m1", "sys", &["read", "write"]));
    let run = Run::of(&l);
    let r = run.request(7);
    assert_eq!(cause_at(r), (Cause::Tools, Block::Tools, 1, None));
    let system = run.meter.headers()[0].system_price();
    assert_eq!(r.prefix_tokens, system);
    assert_eq!(r.resent_tokens, run.header_price() - system + price(400));
}

#[test]
fn a_model_route_switch_carries_no_cache() {
    let mut l = two_calls(header(0));
    l.insert(4, header_with(4, "m2", "sys", &[]));
    let run = Run::of(&l);
    let r = run.request(7);
    assert_eq!(cause_at(r), (Cause::Model, Block::System, 0, None));
    assert_eq!(
        (r.prefix_tokens, r.resent_tokens),
        (0, run.header_price() + price(400))
    );
}

/// Two calls, then `middle`, then a third call at seq 20: its request against [1, 3, 5].
fn three_calls(middle: Vec<Value>) -> Vec<Value> {
    let mut l = two_calls(header(0));
    l.extend(middle);
    l.extend(step(20, 1, 3, [50, 120, 0, 10])); // 20, 21, 22
    l
}

#[test]
fn a_message_inserted_mid_history_is_an_insert() {
    // A context message takes user 5's place, and user 5 and assistant 7 are sent again
    // after it.
    let run = Run::of(&three_calls(vec![
        json!({"type": "user/message", "seq": 9, "surfaceOp": {"op": "replace", "start": 5, "end": 7},
            "data": {"content": [{"type": "text", "text": text(40)}]}}),
        user(10, 800),
        json!({"type": "assistant/message", "seq": 11, "surfaceOp": "append",
            "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}}),
    ]));
    let r = run.request(21);
    assert_eq!(cause_at(r), (Cause::Insert, Block::Message, 2, Some(9)));
    assert_eq!(
        r.prefix_tokens,
        run.header_price() + price(400) + run.price_of(3)
    );
    assert_eq!(r.resent_tokens, price(800));
}

#[test]
fn reasoning_dropped_from_an_earlier_message_is_an_edit() {
    let mut l = vec![header(0), user(1, 400)];
    l.push(json!({"type": "step/start", "seq": 2, "data": {"turn": 1, "step": 1}}));
    l.push(
        json!({"type": "assistant/message", "seq": 3, "surfaceOp": "append",
        "data": {"turn": 1, "step": 1, "message": {"role": "assistant", "content": [
            {"type": "reasoning", "text": text(200)}, {"type": "text", "text": "ok"}]},
            "usage": {"inputTokens": 100, "outputTokens": 10}}}),
    );
    l.push(json!({"type": "step/end", "seq": 4, "data": {"turn": 1, "step": 1}}));
    l.push(user(5, 800));
    l.extend(step(6, 1, 2, [60, 100, 0, 10]));
    // The harness sends assistant 3 again without its reasoning.
    l.push(json!({"type": "assistant/message", "seq": 9,
        "surfaceOp": {"op": "replace", "start": 3, "end": 3},
        "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}}));
    l.extend(step(20, 1, 3, [50, 120, 0, 10]));
    let run = Run::of(&l);
    let r = run.request(21);
    assert_eq!(cause_at(r), (Cause::Edit, Block::Message, 1, Some(9)));
    assert_eq!(r.prefix_tokens, run.header_price() + price(400));
    // The previous request (call 7's) ended at user 5.
    assert_eq!(r.resent_tokens, run.price_of(3) + price(800));
}

#[test]
fn a_summary_replace_is_named_with_its_seq_and_kind() {
    // The summary shadows user 1 .. assistant 3 with its replacement, seq 11.
    let run = Run::of(&three_calls(summary(9, 1, 1, 3, 80, [400, 50])));
    let r = run.request(21);
    assert_eq!(cause_at(r), (Cause::Replace, Block::Message, 0, Some(11)));
    assert_eq!(r.first_change.replace_seq, Some(11));
    assert_eq!(r.first_change.replace_kind, Some(ReplaceKind::Summary));
    assert_eq!(r.prefix_tokens, run.header_price());
    let prev_messages = price(400) + run.price_of(3) + price(800);
    assert_eq!(r.resent_tokens, prev_messages);
    // The summarizer is compared with the agent request before it (call 7): it runs on
    // another model here.
    let s = run.request(10);
    assert_eq!(
        (s.kind, s.against, s.first_change.cause),
        (CallKind::Summarizer, Some(7), Cause::Model)
    );
    assert_eq!(
        s.resent_tokens,
        run.header_price() + price(400) + run.price_of(3) + price(800)
    );
    // By-cause totals add up to the session's resent tokens.
    let by_cause = run.breaks.resent_by_cause.as_ref().unwrap();
    assert_eq!(
        by_cause.values().sum::<u64>(),
        run.breaks.resent_tokens.unwrap()
    );
    assert_eq!(by_cause["replace"], r.resent_tokens);
    assert_eq!(by_cause["model"], s.resent_tokens);
    assert_eq!(by_cause.len(), Cause::ALL.len());
}

#[test]
fn a_miss_no_change_explains_is_the_providers() {
    // Pure growth, but the provider read nothing from the cache.
    let mut l = two_calls(header(0));
    l.extend(step(9, 1, 3, [400, 0, 0, 10])); // 9, 10, 11
    let run = Run::of(&l);
    let r = run.request(10);
    assert_eq!(r.first_change.cause, Cause::None);
    let expected = r.expected_cache_read.unwrap();
    assert!(expected > 0);
    // The only noise pair is (3, 7): 150 − 100 = 50; then (7, 10): 160 − 0.
    assert_eq!(run.breaks.cache_noise_median, Some((50 + 160) / 2));
    assert_eq!(
        r.provider_miss,
        Some(expected.saturating_sub((50 + 160) / 2))
    );
}

#[test]
fn a_log_without_cache_figures_reports_null_never_zero() {
    let mut l = vec![header(0), user(1, 400)];
    l.extend(step(2, 1, 1, [100, 0, 0, 10]));
    l.push(user(5, 800));
    l.extend(step(6, 1, 2, [160, 0, 0, 10]));
    let run = Run::of(&l);
    let r = run.request(7);
    assert_eq!(
        (r.expected_cache_read, r.cache_read, r.provider_miss),
        (None, None, None)
    );
    assert_eq!(run.breaks.resent_by_cause, None);
    assert_eq!(
        (run.breaks.resent_tokens, run.breaks.provider_miss),
        (None, None)
    );
    // The change itself is still named: it is the request's, not the provider's.
    assert_eq!(r.first_change.cause, Cause::None);
}
