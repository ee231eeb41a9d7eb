//! What context costs (docs/cost.md) on real harness runs: the ledger and every compaction's
//! figures held against figures worked out here from the raw JSON lines — the usage fields as
//! written, the meter's prices (docs/meter.md#the-meter-in-one-paragraph) of the `shadowedSeqs` the
//! harness recorded, the calls between a replace and the compaction that shadowed its replacement —
//! never from the engine's own passes. Then `cost` and `audit --prices` as a user runs them.

use crate::binary::{run, stderr, stdout};
use crate::common;

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use surface_analysis::cost::{CallKind, Ledger, PriceTable, ledger_of};
use surface_engine::{Meter, Surface};

const P01: &str = "tests/fixtures/policy/p01.jsonl";
const P02: &str = "tests/fixtures/policy/p02.jsonl";
const P11: &str = "tests/fixtures/policy/p11.jsonl";
const P12: &str = "tests/fixtures/policy/p12.jsonl";
const SAMPLE: &str = "assets/sample.session.jsonl";
const PRICES: &str = "assets/prices.example.json";

fn path(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn events(rel: &str) -> Vec<Value> {
    std::fs::read_to_string(path(rel))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v.get("seq").is_some())
        .collect()
}

fn ledger(rel: &str, prices: Option<&PriceTable>) -> Ledger {
    let log = common::log_of(&std::fs::read_to_string(path(rel)).unwrap());
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    ledger_of(&log, &surface, &meter, prices)
}

fn example_prices() -> PriceTable {
    PriceTable::parse(&std::fs::read_to_string(path(PRICES)).unwrap()).unwrap()
}

// --- Figures from the raw JSON ----------------------------------------------------------

fn seq(e: &Value) -> u64 {
    e["seq"].as_u64().unwrap()
}

fn kind(e: &Value) -> &str {
    e["type"].as_str().unwrap()
}

/// `[uncached, cache_read, cache_write, output]` of a `usage` object.
fn usage(u: &Value) -> [u64; 4] {
    let f = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    [
        f("inputTokens"),
        f("cacheReadTokens"),
        f("cacheWriteTokens"),
        f("outputTokens"),
    ]
}

fn prompt(u: [u64; 4]) -> u64 {
    u[0] + u[1] + u[2]
}

/// `(seq, usage)` of every `assistant/message` with `usage`, in order.
fn agent_usage(ev: &[Value]) -> Vec<(u64, [u64; 4])> {
    ev.iter()
        .filter(|e| kind(e) == "assistant/message")
        .filter_map(|e| Some((seq(e), usage(e["data"].get("usage")?))))
        .collect()
}

fn ceil4(n: usize) -> u64 {
    n.div_ceil(4) as u64
}

fn len16(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The meter's price of a block (docs/meter.md#the-meter-in-one-paragraph), for the block types
/// these logs hold.
fn block_price(b: &Value) -> u64 {
    let text = |k: &str| b[k].as_str().unwrap();
    match b["type"].as_str().unwrap() {
        "text" | "reasoning" => ceil4(len16(text("text"))) + 4,
        "tool-call" => ceil4(len16(text("name"))) + ceil4(len16(text("arguments"))) + 4,
        "tool-result" => {
            b["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(block_price)
                .sum::<u64>()
                + 4
        }
        other => panic!("no hand price for a {other} block"),
    }
}

/// The meter's price of a message event: `4 + Σ block` over its content; an empty
/// `assistant/message` has no message and costs 0.
fn message_price(e: &Value) -> u64 {
    let d = &e["data"];
    let content = d
        .pointer("/message/content")
        .or_else(|| d.get("content"))
        .unwrap()
        .as_array()
        .unwrap();
    if content.is_empty() && kind(e) == "assistant/message" {
        return 0;
    }
    4 + content.iter().map(block_price).sum::<u64>()
}

/// The seq that places each model request: its step's first `assistant/message`, else the
/// step's first `assistant/chunk` (a call the provider refused has no message).
fn requests(ev: &[Value]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut open: Option<(Option<u64>, Option<u64>)> = None;
    let close = |open: &mut Option<(Option<u64>, Option<u64>)>, out: &mut Vec<u64>| {
        if let Some((message, chunk)) = open.take()
            && let Some(s) = message.or(chunk)
        {
            out.push(s);
        }
    };
    for e in ev {
        match kind(e) {
            "step/start" => {
                close(&mut open, &mut out);
                open = Some((None, None));
            }
            "assistant/message" => {
                if let Some((m, _)) = open.as_mut() {
                    *m = m.or(Some(seq(e)));
                }
            }
            "assistant/chunk" => {
                if let Some((_, c)) = open.as_mut() {
                    *c = c.or(Some(seq(e)));
                }
            }
            _ => {}
        }
    }
    close(&mut open, &mut out);
    out
}

/// The requests the provider billed: those whose agent message reports usage (a refused call,
/// e.g. a context-window finish, has none).
fn billed_requests(ev: &[Value]) -> Vec<u64> {
    let billed: Vec<u64> = agent_usage(ev).iter().map(|(s, _)| *s).collect();
    requests(ev)
        .into_iter()
        .filter(|s| billed.contains(s))
        .collect()
}

/// The agent calls before and after a replace (by seq).
type Around = (Option<u64>, Option<u64>);

/// One compaction as the raw JSON tells it.
#[derive(Debug)]
struct RawCompaction {
    seq: u64,
    kind: &'static str,
    saved_per_call: i64,
    calls_after: u64,
    /// `(P_prev − cache_read_next)⁺` of the calls around it.
    gap_lost: Option<u64>,
    /// The calls around it.
    around: Around,
    /// The summarizer's usage.
    summarizer: Option<[u64; 4]>,
}

/// Every replace that directly follows a `compaction/summary` or `compaction/prune`, with its
/// figures worked out from the events: the shadowed nodes are the `shadowedSeqs` the harness
/// recorded, a replacement's calls end at the compaction whose `shadowedSeqs` name it.
fn raw_compactions(ev: &[Value]) -> Vec<RawCompaction> {
    raw_compactions_counting(ev, &billed_requests(ev))
}

/// [`raw_compactions`], counting `requests` as the calls after each replace.
fn raw_compactions_counting(ev: &[Value], requests: &[u64]) -> Vec<RawCompaction> {
    let by_seq: HashMap<u64, &Value> = ev.iter().map(|e| (seq(e), e)).collect();
    let calls = agent_usage(ev);
    let mut out = Vec::new();
    for (k, e) in ev.iter().enumerate() {
        if !e["surfaceOp"].is_object() || k == 0 {
            continue;
        }
        let before = &ev[k - 1];
        let kind = match kind(before) {
            "compaction/summary" => "summary",
            "compaction/prune" => "prune",
            _ => continue,
        };
        let shadowed: u64 = before["data"]["shadowedSeqs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| message_price(by_seq[&s.as_u64().unwrap()]))
            .sum();
        let r = seq(e);
        // The compaction that shadowed this replacement, if any.
        let until = ev
            .iter()
            .filter(|c| matches!(kind_of(c), Some("summary" | "prune")))
            .filter(|c| {
                c["data"]["shadowedSeqs"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|x| x.as_u64() == Some(r)))
            })
            .map(seq)
            .next();
        let calls_after = requests
            .iter()
            .filter(|&&s| s > r && until.is_none_or(|u| s < u))
            .count() as u64;
        let prev = calls.iter().rev().find(|(s, _)| *s < r);
        let next = calls.iter().find(|(s, _)| *s > r);
        out.push(RawCompaction {
            seq: r,
            kind,
            saved_per_call: shadowed as i64 - message_price(e) as i64,
            calls_after,
            gap_lost: prev
                .zip(next)
                .map(|(p, n)| prompt(p.1).saturating_sub(n.1[1])),
            around: (prev.map(|p| p.0), next.map(|n| n.0)),
            summarizer: (kind == "summary").then(|| usage(&before["data"]["usage"])),
        });
    }
    out
}

fn kind_of(e: &Value) -> Option<&'static str> {
    match kind(e) {
        "compaction/summary" => Some("summary"),
        "compaction/prune" => Some("prune"),
        _ => None,
    }
}

/// Holds the ledger of `rel` against the raw figures; returns them.
fn agrees_with_the_raw_json(rel: &str) -> (Ledger, Vec<RawCompaction>) {
    let ev = events(rel);
    let l = ledger(rel, None);
    // Calls: every reported agent call and summarizer call, in order, with its columns.
    let reported: Vec<(u64, [u64; 4])> = l
        .calls
        .iter()
        .filter(|c| c.call.kind == CallKind::Agent && c.call.reported)
        .map(|c| {
            let t = c.call.tokens;
            (
                c.call.seq,
                [t.uncached, t.cache_read, t.cache_write, t.output],
            )
        })
        .collect();
    assert_eq!(reported, agent_usage(&ev), "{rel}: agent calls");
    let summaries: Vec<(u64, [u64; 4])> = ev
        .iter()
        .filter(|e| kind(e) == "compaction/summary")
        .map(|e| (seq(e), usage(&e["data"]["usage"])))
        .collect();
    let got: Vec<(u64, [u64; 4])> = l
        .calls
        .iter()
        .filter(|c| c.call.kind == CallKind::Summarizer)
        .map(|c| {
            let t = c.call.tokens;
            (
                c.call.seq,
                [t.uncached, t.cache_read, t.cache_write, t.output],
            )
        })
        .collect();
    assert_eq!(got, summaries, "{rel}: summarizer calls");
    // Totals and the hit rate.
    let all: Vec<[u64; 4]> = agent_usage(&ev)
        .iter()
        .map(|c| c.1)
        .chain(summaries.iter().map(|s| s.1))
        .collect();
    let sum = |i: usize| all.iter().map(|u| u[i]).sum::<u64>();
    let t = &l.totals.all;
    assert_eq!(
        (t.uncached, t.cache_read, t.cache_write, t.output),
        (sum(0), Some(sum(1)), sum(2), sum(3)),
        "{rel}: totals"
    );
    let rate = sum(1) as f64 / (sum(0) + sum(1) + sum(2)) as f64;
    assert!((t.cache_hit_rate.unwrap() - rate).abs() < 1e-12, "{rel}");
    // Compactions.
    let raw = raw_compactions(&ev);
    assert_eq!(l.compactions.len(), raw.len(), "{rel}: compactions");
    for (c, r) in l.compactions.iter().zip(&raw) {
        let what = format!("{rel} seq {}", r.seq);
        assert_eq!((c.seq, c.kind.as_str()), (r.seq, r.kind), "{what}");
        assert_eq!(c.saved_per_call, r.saved_per_call, "{what}: saved per call");
        assert_eq!(c.calls_after, r.calls_after, "{what}: calls after");
        assert_eq!(
            c.prompt_saved,
            r.saved_per_call * r.calls_after as i64,
            "{what}"
        );
        assert_eq!(c.cache_lost_gap, r.gap_lost, "{what}: cache lost");
        assert_eq!(
            (c.call_before, c.call_after),
            r.around,
            "{what}: calls around"
        );
        let summarizer = c.summarizer.map(|s| {
            let t = s.tokens;
            [t.uncached, t.cache_read, t.cache_write, t.output]
        });
        assert_eq!(summarizer, r.summarizer, "{what}: summarizer");
    }
    // Between two calls the cache is lost once: the charged losses of a gap sum to its loss.
    let mut gaps: HashMap<Around, (u64, Option<u64>)> = HashMap::new();
    for (c, r) in l.compactions.iter().zip(&raw) {
        let g = gaps.entry(r.around).or_insert((0, r.gap_lost));
        g.0 += c.cache_lost.unwrap_or(0);
    }
    for (around, (charged, lost)) in gaps {
        assert_eq!(charged, lost.unwrap_or(0), "{rel} gap {around:?}");
    }
    (l, raw)
}

#[test]
fn p01_first_compaction_matches_the_hand_figures() {
    let (l, raw) = agrees_with_the_raw_json(P01);
    // The issue's figures: the prune at 253 saves 1710 per call for 2 calls, the summary at
    // 258 saves 3040 for 2, and the call after them reads 10980 fewer tokens from the cache
    // than the previous prompt held (6688 + 8173 at seq 248; 3881 read at seq 287).
    let row = |s: u64| raw.iter().find(|r| r.seq == s).unwrap();
    assert_eq!((row(253).saved_per_call, row(253).calls_after), (1710, 2));
    assert_eq!((row(258).saved_per_call, row(258).calls_after), (3040, 2));
    assert_eq!(row(258).gap_lost, Some(6688 + 8173 - 3881));
    assert_eq!(row(258).gap_lost, Some(10980));
    let c = |s: u64| l.compactions.iter().find(|c| c.seq == s).unwrap();
    // The summary changed the prompt at its head: the loss is charged to it, not the prunes.
    assert_eq!(
        (c(253).cache_lost, c(255).cache_lost, c(258).cache_lost),
        (Some(0), Some(0), Some(10980))
    );
    assert_eq!(c(258).summarizer.unwrap().prompt, 6522);
    assert!(l.caching);
    // The provider's own noise is far below a compaction's loss.
    let noise = l.cache_noise_median.unwrap();
    assert!(noise < 10980 / 2, "{noise}");
}

#[test]
fn p02_p11_p12_agree_with_the_raw_json() {
    for rel in [P02, P11, P12] {
        agrees_with_the_raw_json(rel);
    }
}

#[test]
fn p11_overflow_recoveries_are_placed_before_the_retried_call() {
    let (l, _) = agrees_with_the_raw_json(P11);
    // The prune at 191 and the summary at 194 ran inside step 1.7 after its call overflowed;
    // the retried call (message 217) is the first after them, and the summary shadowed the
    // prune's replacement before any call saw it.
    let c = |s: u64| l.compactions.iter().find(|c| c.seq == s).unwrap();
    assert_eq!(c(191).call_after, Some(217));
    assert_eq!(c(191).calls_after, 0);
    assert_eq!(c(191).cache_lost, Some(0));
    assert!(c(194).charged_cache);
}

#[test]
fn p11_refused_calls_are_not_counted_as_calls_after_a_compaction() {
    let (l, raw) = agrees_with_the_raw_json(P11);
    let ev = events(P11);
    let all = requests(&ev);
    let billed = billed_requests(&ev);
    // The log's calls refused for the context window: sent, never billed.
    let refused: Vec<u64> = all
        .iter()
        .filter(|s| !billed.contains(s))
        .copied()
        .collect();
    assert!(refused.len() >= 2, "{refused:?}");
    // They stay among the calls, unreported.
    assert!(l.calls.iter().filter(|c| !c.call.reported).count() >= 2);
    // A compaction whose replacement they held is credited with the billed calls only.
    let every_request = raw_compactions_counting(&ev, &all);
    let held_refused: Vec<u64> = raw
        .iter()
        .zip(&every_request)
        .filter(|(billed, sent)| sent.calls_after > billed.calls_after)
        .map(|(billed, _)| billed.seq)
        .collect();
    assert!(
        !held_refused.is_empty(),
        "no replacement held a refused call"
    );
    for seq in held_refused {
        let c = l.compactions.iter().find(|c| c.seq == seq).unwrap();
        let r = raw.iter().find(|r| r.seq == seq).unwrap();
        assert_eq!(c.calls_after, r.calls_after, "compaction {seq}");
        assert_eq!(c.prompt_saved, r.saved_per_call * r.calls_after as i64);
    }
}

#[test]
fn p12_commands_run_outside_turns_and_a_re_summary_saves_nothing_twice() {
    let (l, _) = agrees_with_the_raw_json(P12);
    // The /compact commands' summaries ran with `turn: null`: a ledger row of their own.
    assert!(
        l.turns
            .iter()
            .any(|t| t.turn.is_none() && t.totals.summarizer.calls > 0)
    );
    // 603 was re-summarised by 609 before any call: no call saw it.
    let c = |s: u64| l.compactions.iter().find(|c| c.seq == s).unwrap();
    assert_eq!(c(603).calls_after, 0);
    assert_eq!(c(603).cache_lost, Some(0));
}

#[test]
fn a_log_without_cache_reads_shows_null_not_zero() {
    // p01 with its cache reads taken out of every usage.
    let text = std::fs::read_to_string(path(P01))
        .unwrap()
        .replace("\"cacheReadTokens\"", "\"notCacheReadTokens\"");
    let log = common::log_of(&text);
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let l = ledger_of(&log, &surface, &meter, Some(&example_prices()));
    assert!(!l.caching);
    assert_eq!(l.cache_noise_median, None);
    assert_eq!(l.totals.all.cache_read, None);
    assert_eq!(l.totals.all.cache_hit_rate, None);
    assert!(l.compactions.iter().all(|c| c.cache_lost.is_none()));
    let json = serde_json::to_value(&l).unwrap();
    assert_eq!(json["compactions"][0]["cache_lost"], Value::Null);
    assert_eq!(json["totals"]["all"]["cache_read"], Value::Null);
    // Saved tokens are priced as uncached: each prune pays for itself.
    let prune = &l.compactions[0];
    let expect = -(prune.prompt_saved as f64) * 0.28 / 1e6;
    assert!((prune.balance.unwrap() - expect).abs() < 1e-12);
}

#[test]
fn a_real_log_without_cache_reads_has_null_cache_figures() {
    // A HEAD harness run whose provider reports usage without any cache read.
    let fixture = common::upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let log = common::log_of(&std::fs::read_to_string(fixture).unwrap());
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let l = ledger_of(&log, &surface, &meter, Some(&example_prices()));
    assert!(!l.caching);
    assert_eq!((l.totals.agent.calls, l.totals.summarizer.calls), (2, 1));
    assert_eq!(l.totals.all.cache_read, None);
    assert_eq!(l.cache_noise_median, None);
    let c = &l.compactions[0];
    assert_eq!(c.cache_lost, None);
    // Its summary: 20 in, 4 out; 150 meter tokens saved for the one call after it, priced as
    // uncached since nothing is read from a cache.
    let s = c.summarizer.unwrap();
    assert_eq!(
        (
            s.tokens.uncached,
            s.tokens.output,
            c.saved_per_call,
            c.calls_after
        ),
        (20, 4, 150, 1)
    );
    let expect = (20.0 * 0.28 + 4.0 * 0.42 - 150.0 * 0.28) / 1e6;
    assert!(
        (c.balance.unwrap() - expect).abs() < 1e-15,
        "{:?}",
        c.balance
    );
}

#[test]
fn the_sample_balances_have_the_sign_of_the_formula() {
    let ev = events(SAMPLE);
    let prices = example_prices();
    let l = ledger(SAMPLE, Some(&prices));
    let raw = raw_compactions(&ev);
    let calls = agent_usage(&ev);
    // deepseek-chat's prices from the example file, per million tokens.
    let (uncached, read, output) = (0.28, 0.028, 0.42);
    let mut signs = Vec::new();
    for (c, r) in l.compactions.iter().zip(&raw) {
        assert_eq!(c.seq, r.seq);
        // Cache writes are billed at the uncached price in the example file.
        let summarizer = r.summarizer.map_or(0.0, |u| {
            ((u[0] + u[2]) as f64 * uncached + u[1] as f64 * read + u[3] as f64 * output) / 1e6
        });
        let lost = c.cache_lost.unwrap() as f64 * (uncached - read) / 1e6;
        let saved = (r.saved_per_call * r.calls_after as i64) as f64 * read / 1e6;
        let expect = summarizer + lost - saved;
        assert!(
            (c.balance.unwrap() - expect).abs() < 1e-12,
            "seq {}: {:?} vs {expect}",
            c.seq,
            c.balance
        );
        signs.push((c.seq, c.kind.as_str(), expect > 0.0));
    }
    assert!(calls.len() > 10);
    // With these prices the sample's prunes pay for themselves and its summaries do not: the
    // summarizer's own call outweighs what a handful of later calls read from the cache.
    assert_eq!(
        signs,
        vec![
            (37, "prune", false),
            (110, "summary", true),
            (227, "summary", true),
            (263, "prune", false),
            (266, "summary", true),
            (332, "summary", true),
            (374, "summary", true),
        ]
    );
}

// --- The command ------------------------------------------------------------------------

fn has_row(text: &str, words: &[&str]) -> bool {
    text.lines().any(|l| {
        let got: Vec<&str> = l.split_whitespace().collect();
        got.windows(words.len()).any(|w| w == words)
    })
}

#[test]
fn cost_prints_the_ledger_the_compactions_and_one_line() {
    let out = run(&["cost", P01]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "{P01}: 41 agent calls, 8 summarizer calls; cache hit rate 46.2%"
        )),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &["253", "prune", "–", "1710", "×", "2", "3420", "0*", "–"]
        ),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &[
                "258", "summary", "6522+204", "3040", "×", "2", "6080", "10980", "–"
            ]
        ),
        "{text}"
    );
    assert!(has_row(&text, &["total", "41", "8"]), "{text}");
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("compaction in this session: 8 summaries, 8 prunes:"),
        "{text}"
    );
    assert!(text.contains("no balance without --prices FILE"), "{text}");

    let out = run(&["cost", P01, "--prices", PRICES]);
    let text = stdout(&out);
    assert!(
        has_row(
            &text,
            &[
                "258",
                "summary",
                "6522+204",
                "3040",
                "×",
                "2",
                "6080",
                "10980",
                "+0.004509"
            ]
        ),
        "{text}"
    );
    assert!(
        text.contains("balance +0.036068 USD: compaction cost more than it saved"),
        "{text}"
    );
}

#[test]
fn cost_json_has_the_contract_fields() {
    let out = run(&["cost", P01, "--json", "--prices", PRICES]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "file",
        "caching",
        "cache_noise_median",
        "currency",
        "calls",
        "compactions",
        "turns",
        "totals",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["currency"], "USD");
    assert_eq!(v["caching"], true);
    let call = &v["calls"][0];
    for key in [
        "seq",
        "kind",
        "turn",
        "step",
        "uncached",
        "cache_read",
        "cache_write",
        "output",
        "cost",
    ] {
        assert!(call.get(key).is_some(), "calls[0].{key}");
    }
    assert_eq!(
        (call["seq"].as_u64(), call["kind"].as_str()),
        (Some(24), Some("agent"))
    );
    let c = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 258)
        .unwrap();
    for key in [
        "seq",
        "kind",
        "summarizer",
        "saved_per_call",
        "calls_after",
        "prompt_saved",
        "cache_lost",
        "balance",
    ] {
        assert!(c.get(key).is_some(), "compactions[].{key}");
    }
    assert_eq!(c["kind"], "summary");
    assert_eq!(c["saved_per_call"], 3040);
    assert_eq!(c["cache_lost"], 10980);
    assert_eq!(c["summarizer"]["uncached"], 6522);
    assert!(c["balance"].as_f64().unwrap() > 0.0);
    let prune = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 253)
        .unwrap();
    assert_eq!(prune["summarizer"], Value::Null);
}

#[test]
fn cost_csv_has_one_row_per_call() {
    let out = run(&["cost", P01, "--csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        surface_cli::cost::CSV_COLUMNS.join(",")
    );
    assert_eq!(
        lines.next().unwrap(),
        "24,agent,1,1,mock,mock-a,,true,798,0,42,46,840,"
    );
    assert_eq!(text.lines().count(), 1 + 41 + 8);
    assert!(
        text.contains("\n257,summarizer,1,,mock,mock-a,,true,6522,0,0,204,6522,\n"),
        "{text}"
    );
}

#[test]
fn a_bad_price_file_is_one_line_naming_the_file_and_the_key_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("prices.json");
    std::fs::write(
        &bad,
        r#"{"currency":"USD","models":{"deepseek-chat":{"uncached":0.28,"cache_read":"cheap","cache_write":0.28,"output":0.42}}}"#,
    )
    .unwrap();
    for command in ["cost", "audit"] {
        let out = run(&[command, P01, "--prices", bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(bad.to_str().unwrap()), "{err}");
        assert!(
            err.contains("models[\"deepseek-chat\"].cache_read"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    std::fs::write(&bad, "{\"currency\": \"USD\",").unwrap();
    let out = run(&["cost", P01, "--prices", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
    let missing = dir.path().join("none.json");
    let out = run(&["cost", P01, "--prices", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("none.json"), "{}", stderr(&out));
    let out = run(&["cost", "no/such.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no/such.jsonl"), "{}", stderr(&out));
}

#[test]
fn audit_gains_the_balance_columns() {
    let out = run(&["audit", P01]);
    let text = stdout(&out);
    assert!(
        has_row(&text, &["0", "0", "–", "1710", "×", "2", "0*"]),
        "{text}"
    );
    assert!(!text.lines().nth(1).unwrap().contains("balance"), "{text}");
    let out = run(&["audit", P01, "--prices", PRICES]);
    let text = stdout(&out);
    assert!(
        text.lines().nth(1).unwrap().trim_end().ends_with("balance"),
        "{text}"
    );
    assert!(
        has_row(&text, &["6726", "3040", "×", "2", "10980", "+0.004509"]),
        "{text}"
    );
    let out = run(&["audit", P01, "--markdown", "--prices", PRICES]);
    let md = stdout(&out);
    assert!(
        md.contains("| summ. tokens | saved × calls | cache lost | balance |"),
        "{md}"
    );
    assert!(
        md.contains("| 6726 | 3040 × 2 | 10980 | +0.004509 |"),
        "{md}"
    );
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("a.html");
    let out = run(&[
        "audit",
        P01,
        "--prices",
        PRICES,
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<th>balance</th>") && page.contains("+0.004509"),
        "{page:.300}"
    );
}
