//! Why the cache missed (docs/cost.md) on the real-loop runs of tests/fixtures/policy/:
//! every agent call right after a summary or prune is a `replace` naming a replace that ran
//! between it and the call before, every other agent call is append-only growth, and the
//! totals by cause add up to the session's resent tokens. Replaces are read from the raw JSON
//! lines, not from the engine.

use crate::common;

use std::path::Path;

use serde_json::Value;
use surface_analysis::cost::{CacheBreaks, CallKind, Cause, cache_breaks, parts_of};
use surface_engine::{Meter, Surface};

const FIXTURES: [&str; 5] = ["p01", "p01.packed", "p02", "p11", "p12"];

fn text(name: &str) -> String {
    let rel = format!("tests/fixtures/policy/{name}.jsonl");
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

fn breaks(name: &str) -> CacheBreaks {
    let log = common::log_of(&text(name));
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let parts = parts_of(&log, &surface, &meter);
    cache_breaks(&log, &surface, &meter, &parts)
}

/// The seq of every event with a `replace` surface op, from the raw lines.
/// Each replace's seq and the seq its shadowed range starts at.
fn replace_seqs(name: &str) -> Vec<(u64, u64)> {
    text(name)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["surfaceOp"].is_object())
        .filter_map(|v| Some((v["seq"].as_u64()?, v["surfaceOp"]["start"].as_u64()?)))
        .collect()
}

/// The seq of every `request/header` line whose tool list differs from the header's before it
/// (p01 registers a second tool at the start of its third turn), from the raw lines.
fn tool_changes(name: &str) -> Vec<u64> {
    let headers: Vec<(u64, Value)> = text(name)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "request/header")
        .filter_map(|v| Some((v["seq"].as_u64()?, v["data"]["header"]["tools"].clone())))
        .collect();
    headers
        .windows(2)
        .filter(|w| w[0].1 != w[1].1)
        .map(|w| w[1].0)
        .collect()
}

#[test]
fn every_call_after_a_compaction_is_a_replace_naming_it_and_the_rest_is_growth() {
    for name in FIXTURES {
        let b = breaks(name);
        let replaces = replace_seqs(name);
        let tools = tool_changes(name);
        let agents: Vec<_> = b
            .requests
            .iter()
            .filter(|r| r.kind == CallKind::Agent)
            .collect();
        assert!(!agents.is_empty(), "{name}");
        for r in &agents {
            let Some(prev) = r.against else {
                assert_eq!(r.first_change.cause, Cause::None, "{name} first call");
                continue;
            };
            // A replace between the two calls changes the request only when its range starts
            // inside what the previous request held (a prune of a tool result that came after
            // that request leaves it a prefix: growth, as p01's prune at seq 491 shows).
            let between: Vec<u64> = replaces
                .iter()
                .filter(|&&(s, start)| s > prev && s < r.seq && start < prev)
                .map(|&(s, _)| s)
                .collect();
            if tools.iter().any(|&t| t > prev && t < r.seq) {
                // The tool list precedes every message: a change there comes first.
                assert_eq!(r.first_change.cause, Cause::Tools, "{name} call {}", r.seq);
            } else if between.is_empty() {
                assert_eq!(r.first_change.cause, Cause::None, "{name} call {}", r.seq);
                assert_eq!(r.resent_tokens, 0, "{name} call {}", r.seq);
            } else {
                assert_eq!(
                    r.first_change.cause,
                    Cause::Replace,
                    "{name} call {}",
                    r.seq
                );
                // The replace named is the one whose node stands at the first change: it may
                // be a later replace of that replacement (p02: 324 re-summarises 320's node).
                let named = r.first_change.replace_seq.unwrap();
                let any_between = replaces.iter().any(|&(s, _)| s == named && s > prev);
                assert!(
                    any_between && named < r.seq,
                    "{name} call {}: {named}",
                    r.seq
                );
                assert!(r.resent_tokens > 0, "{name} call {}", r.seq);
            }
        }
        let by_cause = b.resent_by_cause.as_ref().unwrap();
        assert_eq!(
            by_cause.values().sum::<u64>(),
            b.resent_tokens.unwrap(),
            "{name}"
        );
    }
}

#[test]
fn every_summarizer_request_is_compared_with_the_agent_request_before_it() {
    for name in FIXTURES {
        let b = breaks(name);
        let mut last_agent = None;
        for r in &b.requests {
            if r.kind == CallKind::Summarizer {
                assert_eq!(r.against, last_agent, "{name} summarizer {}", r.seq);
                assert!(
                    r.expected_cache_read.is_some(),
                    "{name} summarizer {}",
                    r.seq
                );
            } else {
                last_agent = Some(r.seq);
            }
        }
        let causes: Vec<&str> = b
            .requests
            .iter()
            .filter(|r| r.kind == CallKind::Summarizer)
            .map(|r| r.first_change.cause.as_str())
            .collect();
        eprintln!("{name}: summarizer causes {causes:?}");
    }
}
