//! The ledger's formula edges on small hand-written logs: every figure below is worked out
//! from the events' text, not read back from the engine.

use serde_json::{Value, json};

use super::*;
use crate::audit::ReplaceKind;
use surface_engine::{EventBatch, EventLog, EventText, Meter, NewEvent, Surface, SurfaceOp};

/// A log of JSON lines, read as the store reads them (the comparison's tests use it too).
pub(crate) fn log_of(lines: &[Value]) -> EventLog {
    let mut text = Vec::new();
    let mut batch = EventBatch::default();
    for (k, v) in lines.iter().enumerate() {
        let line = v.to_string();
        let start = text.len() as u64;
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
        let op = match v.get("surfaceOp") {
            Some(Value::String(s)) if s == "append" => SurfaceOp::Append,
            Some(Value::Object(o)) => SurfaceOp::Replace {
                start: o["start"].as_u64().unwrap(),
                end: o["end"].as_u64().unwrap(),
            },
            _ => SurfaceOp::None,
        };
        let sources: Option<Vec<u64>> = v.get("sourceEventSeqs").map(|s| {
            s.as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_u64)
                .collect()
        });
        batch.push(NewEvent {
            seq: v["seq"].as_u64().unwrap(),
            time: None,
            type_name: v["type"].as_str().unwrap(),
            op,
            sources: sources.as_deref(),
            line: k as u32 + 1,
            text: EventText::Line {
                start,
                len: line.len() as u32,
            },
            plain: false,
        });
    }
    EventLog::new(None, text, batch)
}

/// The ledger of `lines`.
fn ledger(lines: &[Value], prices: Option<&PriceTable>) -> Ledger {
    let log = log_of(lines);
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    ledger_of(&log, &surface, &meter, prices)
}

/// A text of `n` ASCII characters: a user message of it costs `4 + n/4 + 4` meter tokens.
pub(crate) fn text(n: usize) -> String {
    "x".repeat(n)
}

pub(crate) fn header(seq: u64) -> Value {
    json!({"type": "request/header", "seq": seq, "data": {"header": {
        "config": {"provider": "acme", "model": "m1"}, "system": "sys"}}})
}

pub(crate) fn user(seq: u64, chars: usize) -> Value {
    json!({"type": "user/message", "seq": seq, "surfaceOp": "append",
        "data": {"content": [{"type": "text", "text": text(chars)}]}})
}

/// A step: `step/start`, an `assistant/message` with `usage` (`[uncached, cache_read,
/// cache_write, output]`), `step/end`; seqs `seq`, `seq + 1`, `seq + 2`.
pub(crate) fn step(seq: u64, turn: u64, step: u64, usage: [u64; 4]) -> Vec<Value> {
    let [i, r, w, o] = usage;
    vec![
        json!({"type": "step/start", "seq": seq, "data": {"turn": turn, "step": step}}),
        json!({"type": "assistant/message", "seq": seq + 1, "surfaceOp": "append",
            "data": {"turn": turn, "step": step,
                "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
                "usage": {"inputTokens": i, "cacheReadTokens": r, "cacheWriteTokens": w,
                          "outputTokens": o, "reasoningTokens": 5}}}),
        json!({"type": "step/end", "seq": seq + 2, "data": {"turn": turn, "step": step}}),
    ]
}

/// `compaction/prune` then its replace (a user message of `chars` characters).
pub(crate) fn prune(seq: u64, start: u64, end: u64, chars: usize) -> Vec<Value> {
    vec![
        json!({"type": "compaction/prune", "seq": seq, "data": {
            "shadowedRange": {"start": start, "end": end}, "shadowedSeqs": [start],
            "shadowedTokenCount": 1}}),
        json!({"type": "user/message", "seq": seq + 1,
            "surfaceOp": {"op": "replace", "start": start, "end": end},
            "data": {"content": [{"type": "text", "text": text(chars)}]}}),
    ]
}

/// `compaction/start`, `summary` (usage `[input, output]`), the replace, `end`.
pub(crate) fn summary(
    seq: u64,
    turn: u64,
    start: u64,
    end: u64,
    chars: usize,
    usage: [u64; 2],
) -> Vec<Value> {
    let id = format!("c{seq}");
    vec![
        json!({"type": "compaction/start", "seq": seq, "data": {"compactionId": id, "turn": turn}}),
        json!({"type": "compaction/summary", "seq": seq + 1, "data": {"compactionId": id,
            "summary": [{"type": "text", "text": "s"}],
            "shadowedRange": {"start": start, "end": end}, "shadowedSeqs": [start],
            "shadowedTokenCount": 1, "provider": "acme", "model": "small", "maxTokens": 100,
            "usage": {"inputTokens": usage[0], "outputTokens": usage[1]}}}),
        json!({"type": "user/message", "seq": seq + 2,
            "surfaceOp": {"op": "replace", "start": start, "end": end},
            "data": {"content": [{"type": "text", "text": text(chars)}]}}),
        json!({"type": "compaction/end", "seq": seq + 3, "data": {"compactionId": id, "turn": turn}}),
    ]
}

/// The meter's price of a user message of `n` characters.
fn price(n: u64) -> u64 {
    4 + n.div_ceil(4) + 4
}

const PRICES: &str = r#"{"currency": "USD", "per": 1000000, "models": {
    "acme/m1": {"uncached": 1.0, "cache_read": 0.1, "cache_write": 1.25, "output": 4.0},
    "small":   {"uncached": 0.5, "cache_read": 0.05, "cache_write": 0.5, "output": 2.0}}}"#;

/// A caching session: two calls, a prune and a summary between them and the third, a fourth
/// call, a prune that shadows the first prune's replacement, a last call.
fn caching_session() -> Vec<Value> {
    let mut l = vec![header(1), user(2, 400)];
    l.extend(step(3, 1, 1, [100, 0, 50, 10])); // 3, 4, 5
    l.push(user(6, 800));
    l.extend(step(7, 1, 2, [60, 300, 0, 20])); // 7, 8, 9
    l.extend(prune(10, 6, 6, 40)); // 10, 11: 6 → 11
    l.extend(summary(12, 1, 2, 4, 80, [400, 50])); // 12..15: 2..4 → 14
    l.extend(step(16, 1, 3, [200, 90, 0, 30])); // 16, 17, 18
    l.extend(step(19, 2, 1, [20, 320, 0, 10])); // 19, 20, 21
    l.extend(prune(22, 11, 11, 4)); // 22, 23: 11 → 23
    l.extend(step(24, 2, 2, [30, 310, 0, 10])); // 24, 25, 26
    l
}

#[test]
fn the_calls_carry_their_four_columns_turns_and_kinds() {
    let l = ledger(&caching_session(), None);
    let kinds: Vec<(u64, CallKind, Option<u64>)> = l
        .calls
        .iter()
        .map(|c| (c.call.seq, c.call.kind, c.call.turn))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (4, CallKind::Agent, Some(1)),
            (8, CallKind::Agent, Some(1)),
            (13, CallKind::Summarizer, Some(1)),
            (17, CallKind::Agent, Some(1)),
            (20, CallKind::Agent, Some(2)),
            (25, CallKind::Agent, Some(2)),
        ]
    );
    let first = &l.calls[0];
    assert_eq!(
        (
            first.call.tokens.uncached,
            first.call.tokens.cache_write,
            first.call.tokens.output
        ),
        (100, 50, 10)
    );
    assert_eq!(first.prompt, 150);
    assert_eq!(first.cost, None);
    assert_eq!(l.routes[first.call.route as usize].route.label(), "acme/m1");
    assert_eq!(
        l.routes[l.calls[2].call.route as usize].route.label(),
        "acme/small"
    );
    assert!(l.caching);
}

#[test]
fn compactions_save_per_call_for_the_calls_that_saw_them() {
    let l = ledger(&caching_session(), None);
    let rows: Vec<(u64, ReplaceKind, i64, u64, i64)> = l
        .compactions
        .iter()
        .map(|c| {
            (
                c.seq,
                c.kind,
                c.saved_per_call,
                c.calls_after,
                c.prompt_saved,
            )
        })
        .collect();
    let prune1 = price(800) as i64 - price(40) as i64;
    // The summary shadows user 2 (400 chars), the first message (4 + "ok" 1 + 4 = 9) and … the
    // range 2..4 holds seqs 2 and 4 (6 comes after 4).
    let summary = (price(400) + 9) as i64 - price(80) as i64;
    let prune2 = price(40) as i64 - price(4) as i64;
    assert_eq!(
        rows,
        vec![
            // 11 is seen by the calls at 17 and 20, then shadowed by 23.
            (11, ReplaceKind::Prune, prune1, 2, prune1 * 2),
            (14, ReplaceKind::Summary, summary, 3, summary * 3),
            (23, ReplaceKind::Prune, prune2, 1, prune2),
        ]
    );
    assert_eq!(l.compactions[1].shadowed_tokens, price(400) + 9);
    assert_eq!(l.compactions[1].replacement_tokens, price(80));
    let s = l.compactions[1].summarizer.unwrap();
    assert_eq!(
        (s.seq, s.tokens.uncached, s.tokens.output, s.prompt),
        (13, 400, 50, 400)
    );
    assert!(l.compactions[0].summarizer.is_none());
}

#[test]
fn the_cache_loss_is_charged_once_per_gap_to_the_earliest_change() {
    let l = ledger(&caching_session(), None);
    // Between the calls at 8 (prompt 60 + 300) and 17 (cache read 90): 270 lost, once. The
    // summary changes the prompt at its first node (user 2, position 0), before the prune
    // (user 6, position 2): the summary is charged.
    let c = &l.compactions;
    assert_eq!(
        (c[0].cache_lost_gap, c[0].cache_lost, c[0].charged_cache),
        (Some(270), Some(0), false)
    );
    assert_eq!(
        (c[1].cache_lost_gap, c[1].cache_lost, c[1].charged_cache),
        (Some(270), Some(270), true)
    );
    assert_eq!((c[0].call_before, c[0].call_after), (Some(8), Some(17)));
    // The last prune: from the call at 20 (prompt 340) to 25 (cache read 310): 30.
    assert_eq!(c[2].cache_lost, Some(30));
    assert_eq!(l.compaction_totals.cache_lost, Some(300));
    // Noise: pairs 4→8 (150 − 300 → 0) and 17→20 (290 − 320 → 0); median 0.
    assert_eq!((l.cache_noise_pairs, l.cache_noise_median), (2, Some(0)));
}

#[test]
fn the_ledger_sums_per_turn_and_in_total_with_the_hit_rate() {
    let l = ledger(&caching_session(), None);
    assert_eq!(l.turns.len(), 2);
    let t1 = &l.turns[0].totals;
    assert_eq!(
        (t1.agent.calls, t1.summarizer.calls, t1.all.calls),
        (3, 1, 4)
    );
    assert_eq!(t1.agent.prompt, 150 + 360 + 290);
    assert_eq!(t1.agent.cache_read, Some(390));
    assert_eq!(t1.summarizer.cache_read, Some(0));
    let all = &l.totals.all;
    let prompt = 150 + 360 + 400 + 290 + 340 + 340;
    assert_eq!(all.prompt, prompt);
    assert_eq!(all.output, 10 + 20 + 50 + 30 + 10 + 10);
    let read = 300 + 90 + 320 + 310;
    assert_eq!(all.cache_read, Some(read));
    assert!((all.cache_hit_rate.unwrap() - read as f64 / prompt as f64).abs() < 1e-12);
    assert_eq!(all.cost, None);
}

#[test]
fn prices_give_each_call_a_cost_and_each_compaction_its_balance() {
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&caching_session(), Some(&prices));
    let first = l.calls[0].cost.unwrap();
    assert!((first - (100.0 * 1.0 + 50.0 * 1.25 + 10.0 * 4.0) / 1e6).abs() < 1e-15);
    let summarizer_cost = (400.0 * 0.5 + 50.0 * 2.0) / 1e6;
    let c = &l.compactions[1];
    let saved = c.saved_per_call as f64;
    // summarizer + 270 × (1.0 − 0.1) − saved × 3 calls × 0.1, per million.
    let expect = summarizer_cost + 270.0 * 0.9 / 1e6 - saved * 3.0 * 0.1 / 1e6;
    assert!(
        (c.balance.unwrap() - expect).abs() < 1e-15,
        "{:?}",
        c.balance
    );
    let p = c.balance_parts.unwrap();
    assert!((p.summarizer - summarizer_cost).abs() < 1e-15);
    // The first prune is charged no cache: it only saves.
    let prune = &l.compactions[0];
    let expect = -(prune.saved_per_call as f64) * 2.0 * 0.1 / 1e6;
    assert!((prune.balance.unwrap() - expect).abs() < 1e-15);
    assert_eq!(l.routes[0].price_key.as_deref(), Some("acme/m1"));
    assert_eq!(l.routes[1].price_key.as_deref(), Some("small"));
    let t = &l.compaction_totals;
    let sum: f64 = l.compactions.iter().map(|c| c.balance.unwrap()).sum();
    assert!((t.balance.unwrap() - sum).abs() < 1e-15);
    assert_eq!(l.currency.as_deref(), Some("USD"));
}

#[test]
fn without_cache_reads_every_cache_figure_is_null_and_saved_tokens_are_uncached() {
    let lines: Vec<Value> = caching_session()
        .into_iter()
        .map(|mut v| {
            if let Some(u) = v.pointer_mut("/data/usage/cacheReadTokens") {
                *u = json!(0);
            }
            v
        })
        .collect();
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&lines, Some(&prices));
    assert!(!l.caching);
    assert_eq!(l.cache_noise_median, None);
    assert!(
        l.compactions
            .iter()
            .all(|c| c.cache_lost.is_none() && c.cache_lost_gap.is_none())
    );
    assert_eq!(l.compaction_totals.cache_lost, None);
    assert_eq!(l.totals.all.cache_read, None);
    assert_eq!(l.totals.all.cache_hit_rate, None);
    // Cache writes are billed tokens, still counted.
    assert_eq!(l.totals.all.cache_write, 50);
    let prune = &l.compactions[0];
    let expect = -(prune.saved_per_call as f64) * 2.0 * 1.0 / 1e6;
    assert!((prune.balance.unwrap() - expect).abs() < 1e-15);
    assert_eq!(prune.balance_parts.unwrap().cache_lost, 0.0);
    let json = serde_json::to_value(&l).unwrap();
    assert_eq!(json["compactions"][1]["cache_lost"], Value::Null);
    assert_eq!(json["cache_noise_median"], Value::Null);
}

#[test]
fn a_compaction_with_no_next_call_saved_nothing_and_lost_nothing_yet() {
    let mut lines = caching_session();
    lines.extend(prune(27, 23, 23, 1));
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&lines, Some(&prices));
    let last = l.compactions.last().unwrap();
    assert_eq!(last.seq, 28);
    assert_eq!((last.calls_after, last.prompt_saved), (0, 0));
    assert_eq!((last.call_before, last.call_after), (Some(25), None));
    assert_eq!(last.cache_lost, None);
    assert_eq!(last.balance, Some(0.0));
}

#[test]
fn a_replacement_shadowed_before_any_call_saves_nothing_and_is_not_charged() {
    let mut l = vec![header(1), user(2, 400)];
    l.extend(step(3, 1, 1, [100, 0, 0, 10]));
    l.push(user(6, 800));
    l.extend(step(7, 1, 2, [60, 300, 0, 20]));
    l.extend(prune(10, 6, 6, 40)); // 6 → 11
    l.extend(summary(12, 1, 2, 11, 80, [400, 50])); // shadows 11 before any call
    l.extend(step(16, 1, 3, [200, 90, 0, 30]));
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&l, Some(&prices));
    let (p, s) = (&l.compactions[0], &l.compactions[1]);
    assert_eq!((p.calls_after, p.prompt_saved), (0, 0));
    assert_eq!((p.cache_lost, s.cache_lost), (Some(0), Some(270)));
    assert!(s.charged_cache && !p.charged_cache);
    assert_eq!(p.balance, Some(0.0));
    assert_eq!(s.calls_after, 1);
}

#[test]
fn a_failed_summary_is_paid_for_and_saves_nothing() {
    let mut l = vec![header(1), user(2, 400)];
    l.extend(step(3, 1, 1, [100, 0, 0, 10]));
    l.push(json!({"type": "compaction/start", "seq": 6, "data": {"compactionId": "f", "turn": 1}}));
    l.push(
        json!({"type": "compaction/summary", "seq": 7, "data": {"compactionId": "f",
        "summary": [{"type": "text", "text": "s"}], "provider": "acme", "model": "small",
        "usage": {"inputTokens": 1000, "outputTokens": 100}}}),
    );
    l.push(
        json!({"type": "compaction/end", "seq": 8, "data": {"compactionId": "f", "turn": 1,
        "error": "summary is not smaller than the shadowed content"}}),
    );
    l.extend(step(9, 1, 2, [20, 110, 0, 10]));
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&l, Some(&prices));
    assert!(l.compactions.is_empty());
    assert_eq!(l.calls[1].call.kind, CallKind::Summarizer);
    let t = &l.compaction_totals;
    assert_eq!(t.failed_summaries, vec![7]);
    assert_eq!(t.summarizer_tokens, 1100);
    let cost = (1000.0 * 0.5 + 100.0 * 2.0) / 1e6;
    assert!((t.summarizer_cost.unwrap() - cost).abs() < 1e-15);
    assert!((t.balance.unwrap() - cost).abs() < 1e-15);
    assert_eq!(l.totals.summarizer.calls, 1);
}

#[test]
fn an_unpriced_model_leaves_its_balance_null() {
    let prices = PriceTable::parse(
        r#"{"currency":"USD","models":{"m1":{"uncached":1,"cache_read":0.1,"cache_write":1,"output":2}}}"#,
    )
    .unwrap();
    let l = ledger(&caching_session(), Some(&prices));
    // The agent's model is priced by its bare name; the summarizer's "small" is not.
    assert_eq!(l.routes[0].price_key.as_deref(), Some("m1"));
    assert_eq!(l.routes[1].price_key, None);
    assert_eq!(l.compactions[1].balance, None);
    assert!(l.compactions[0].balance.is_some());
    assert_eq!(l.totals.summarizer.unpriced, 1);
    assert_eq!(l.compaction_totals.balance, None);
    // Unpriced is never 0: the summarizer's and the session's cost are unknown, the agent's
    // (every call priced) known; the priced part and the model left out are stated.
    assert_eq!(l.totals.summarizer.cost, None);
    assert_eq!(
        l.totals.summarizer.priced_cost, None,
        "none of them is priced"
    );
    assert_eq!(l.totals.all.cost, None);
    assert!(l.totals.agent.cost.is_some_and(|c| c > 0.0));
    assert_eq!(l.totals.all.priced_cost, l.totals.agent.cost);
    assert_eq!(l.totals.all.unpriced, 1);
    assert_eq!(l.unpriced_models, ["acme/small"]);
    assert!(l.turns.iter().any(|t| t.totals.all.cost.is_none()));
    assert_eq!(l.compaction_totals.summarizer_cost, None);
    // Every model priced: nothing is left out.
    let all = ledger(
        &caching_session(),
        Some(&PriceTable::parse(PRICES).unwrap()),
    );
    assert!(all.unpriced_models.is_empty());
    assert_eq!(all.totals.all.cost, all.totals.all.priced_cost);
}

#[test]
fn a_call_without_usage_is_not_counted_after_the_compaction_and_saves_no_money() {
    let mut lines = caching_session();
    // A refused call after the last prune: a step whose message reports no usage.
    lines.push(json!({"type": "step/start", "seq": 27, "data": {"turn": 2, "step": 3}}));
    lines.push(
        json!({"type": "assistant/message", "seq": 28, "surfaceOp": "append",
        "data": {"turn": 2, "step": 3,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}}),
    );
    let prices = PriceTable::parse(PRICES).unwrap();
    let l = ledger(&lines, Some(&prices));
    let last = l.calls.last().unwrap();
    assert_eq!(
        (last.call.seq, last.call.reported, last.cost),
        (28, false, None)
    );
    assert_eq!(l.totals.agent.calls, 6);
    assert_eq!(l.totals.agent.reported, 5);
    let prune = l.compactions.last().unwrap();
    // Only billed calls count: the refused call at 28 saw the prune but paid for nothing.
    assert_eq!(prune.calls_after, 1);
    // Only the reported call at 25 is priced: −saved × 0.1 once.
    let expect = 30.0 * 0.9 / 1e6 - prune.saved_per_call as f64 * 0.1 / 1e6;
    assert!(
        (prune.balance.unwrap() - expect).abs() < 1e-15,
        "{:?}",
        prune.balance
    );
}

#[test]
fn a_message_without_usage_takes_its_usage_chunk() {
    let lines = vec![
        header(1),
        user(2, 40),
        json!({"type": "step/start", "seq": 3, "data": {"turn": 1, "step": 1}}),
        json!({"type": "assistant/chunk", "seq": 4, "data": {"turn": 1, "step": 1,
            "chunk": {"type": "text-delta", "index": 0, "text": "ok"}}}),
        json!({"type": "assistant/chunk", "seq": 5, "data": {"turn": 1, "step": 1,
            "chunk": {"type": "usage", "usage": {"inputTokens": 7, "cacheReadTokens": 30,
                "outputTokens": 2}}}}),
        json!({"type": "assistant/message", "seq": 6, "surfaceOp": "append",
            "sourceEventSeqs": [4, 5],
            "data": {"turn": 1, "step": 1,
                "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}}),
    ];
    let l = ledger(&lines, None);
    let c = &l.calls[0];
    assert!(c.call.reported);
    assert_eq!(
        (
            c.call.tokens.uncached,
            c.call.tokens.cache_read,
            c.call.tokens.output
        ),
        (7, 30, 2)
    );
    assert!(l.caching);
}
