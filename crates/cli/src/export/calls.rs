//! The `calls` table: one row per model call the session paid for (docs/cost.md) — every
//! agent call (a step's request) and every summarizer call (a `compaction/summary`), in log
//! order, with the provider and model it went to, its uncached / cache read / cache write /
//! output tokens and, with `--prices`, its cost; and why its cache missed: its request's first
//! change against the one before (docs/cost.md#why-the-cache-missed).

use std::sync::Arc;

use surface_analysis::cost::{CacheBreaks, Ledger, RequestChange};
use surface_engine::EventLog;

use super::table::{Column, Getter, Table, int, opt_int};
use super::writer::{SessionKey, TableWriter};

/// One model call.
pub struct CallRow {
    seq: i64,
    time: Option<i64>,
    kind: &'static str,
    turn: Option<i64>,
    step: Option<i64>,
    provider: Option<String>,
    model: Option<String>,
    reported: bool,
    uncached: Option<i64>,
    cache_read: Option<i64>,
    cache_write: Option<i64>,
    output: Option<i64>,
    prompt: Option<i64>,
    cost: Option<f64>,
    price_key: Option<String>,
    change: Option<RequestChange>,
}

static COLUMNS: [Column<CallRow>; 24] = [
    Column::required("seq", Getter::Int64(|r| Some(r.seq))),
    Column::nullable("time", Getter::Time(|r| r.time)),
    Column::required("kind", Getter::Text(|r| Some(r.kind))),
    Column::nullable("turn", Getter::Int64(|r| r.turn)),
    Column::nullable("step", Getter::Int64(|r| r.step)),
    Column::nullable("provider", Getter::Text(|r| r.provider.as_deref())),
    Column::nullable("model", Getter::Text(|r| r.model.as_deref())),
    Column::required("reported", Getter::Bool(|r| Some(r.reported))),
    Column::nullable("uncached", Getter::Int64(|r| r.uncached)),
    Column::nullable("cache_read", Getter::Int64(|r| r.cache_read)),
    Column::nullable("cache_write", Getter::Int64(|r| r.cache_write)),
    Column::nullable("output", Getter::Int64(|r| r.output)),
    Column::nullable("prompt", Getter::Int64(|r| r.prompt)),
    Column::nullable("cost", Getter::Double(|r| r.cost)),
    Column::nullable("price_key", Getter::Text(|r| r.price_key.as_deref())),
    Column::nullable(
        "first_change",
        Getter::Text(|r| Some(r.change?.first_change.cause.as_str())),
    ),
    Column::nullable(
        "change_block",
        Getter::Text(|r| Some(r.change?.first_change.at.block.as_str())),
    ),
    Column::nullable(
        "change_index",
        Getter::Int64(|r| Some(int(r.change?.first_change.at.index as u64))),
    ),
    Column::nullable(
        "change_seq",
        Getter::Int64(|r| opt_int(r.change?.first_change.at.seq)),
    ),
    Column::nullable(
        "change_replace_seq",
        Getter::Int64(|r| opt_int(r.change?.first_change.replace_seq)),
    ),
    Column::nullable(
        "prefix_tokens",
        Getter::Int64(|r| Some(int(r.change?.prefix_tokens))),
    ),
    Column::nullable(
        "resent_tokens",
        Getter::Int64(|r| Some(int(r.change?.resent_tokens))),
    ),
    Column::nullable(
        "expected_cache_read",
        Getter::Int64(|r| opt_int(r.change?.expected_cache_read)),
    ),
    Column::nullable(
        "provider_miss",
        Getter::Int64(|r| opt_int(r.change?.provider_miss)),
    ),
];

/// The table.
pub static TABLE: Table<CallRow> = Table {
    name: "calls",
    columns: &COLUMNS,
};

/// Writes one row per call of `ledger`, with its request's first change from `breaks`.
pub fn write(
    out: &mut TableWriter<CallRow>,
    key: &Arc<SessionKey>,
    log: &EventLog,
    (ledger, breaks): (&Ledger, &CacheBreaks),
) -> anyhow::Result<()> {
    for (k, priced) in ledger.calls.iter().enumerate() {
        let c = &priced.call;
        let route = ledger.routes.get(c.route as usize);
        // Tokens the provider did not report are unknown, not 0.
        let reported = |v: u64| c.reported.then_some(int(v));
        let row = CallRow {
            seq: int(c.seq),
            time: log.event(c.event).time(),
            kind: c.kind.as_str(),
            turn: opt_int(c.turn),
            step: opt_int(c.step),
            provider: route.and_then(|r| r.route.provider.clone()),
            model: route.and_then(|r| r.route.model.clone()),
            reported: c.reported,
            uncached: reported(c.tokens.uncached),
            cache_read: reported(c.tokens.cache_read),
            cache_write: reported(c.tokens.cache_write),
            output: reported(c.tokens.output),
            prompt: reported(priced.prompt),
            cost: priced.cost,
            price_key: route.and_then(|r| r.price_key.clone()),
            change: breaks.of_call(k).copied(),
        };
        out.push(key, row)?;
    }
    Ok(())
}
