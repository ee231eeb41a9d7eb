//! The `compactions` table: one row per replace op the audit judged (docs/audit.md: kind,
//! trigger, fill before and after, the compaction's own record, lost terms, refetches) with
//! what it cost and saved (docs/cost.md#each-compaction: the summarizer's call, tokens saved per call × the calls that
//! saw it, the cache it broke, the balance with `--prices`), and one row per compaction that
//! failed (`failed` true: its `compaction/end` carries an error and no replace followed).

use std::collections::HashMap;
use std::sync::Arc;

use surface_analysis::audit::{Audit, FailedCompaction, ReplaceAudit, Trigger};
use surface_analysis::cost::{CompactionCost, Ledger};
use surface_engine::EventLog;

use super::table::{Column, Getter, Table, count, int, opt_int};
use super::writer::{SessionKey, TableWriter};

/// One compaction.
#[derive(Default)]
pub struct CompactionRow {
    seq: i64,
    time: Option<i64>,
    kind: &'static str,
    valid: bool,
    failed: bool,
    error: Option<String>,
    start: Option<i64>,
    end: Option<i64>,
    shadowed: Option<i64>,
    nodes_before: Option<i64>,
    nodes_after: Option<i64>,
    tokens_before: Option<i64>,
    tokens_after: Option<i64>,
    shadowed_tokens: Option<i64>,
    replacement_tokens: Option<i64>,
    window: Option<i64>,
    threshold: Option<i64>,
    trigger: Option<&'static str>,
    trigger_tokens: Option<i64>,
    reported_before: Option<i64>,
    reported_after: Option<i64>,
    compaction_id: Option<String>,
    start_seq: Option<i64>,
    end_seq: Option<i64>,
    duration_ms: Option<i64>,
    summarizer_provider: Option<String>,
    summarizer_model: Option<String>,
    max_tokens: Option<i64>,
    recorded_shadowed_tokens: Option<i64>,
    source_command_id: Option<String>,
    lost_terms: Option<i64>,
    refetches: Option<i64>,
    refetch_tokens: Option<i64>,
    fidelity: Option<f64>,
    needed_fidelity: Option<f64>,
    /// Survived / facts of each kind of fact, in `FactKind::ALL`'s order.
    fidelity_by_kind: [Option<f64>; 6],
    summarizer_uncached: Option<i64>,
    summarizer_cache_read: Option<i64>,
    summarizer_cache_write: Option<i64>,
    summarizer_output: Option<i64>,
    summarizer_cost: Option<f64>,
    saved_per_call: Option<i64>,
    calls_after: Option<i64>,
    prompt_saved: Option<i64>,
    cache_lost: Option<i64>,
    balance: Option<f64>,
}

static COLUMNS: [Column<CompactionRow>; 51] = [
    Column::required("seq", Getter::Int64(|r| Some(r.seq))),
    Column::nullable("time", Getter::Time(|r| r.time)),
    Column::required("kind", Getter::Text(|r| Some(r.kind))),
    Column::required("valid", Getter::Bool(|r| Some(r.valid))),
    Column::required("failed", Getter::Bool(|r| Some(r.failed))),
    Column::nullable("error", Getter::Text(|r| r.error.as_deref())),
    Column::nullable("start", Getter::Int64(|r| r.start)),
    Column::nullable("end", Getter::Int64(|r| r.end)),
    Column::nullable("shadowed", Getter::Int64(|r| r.shadowed)),
    Column::nullable("nodes_before", Getter::Int64(|r| r.nodes_before)),
    Column::nullable("nodes_after", Getter::Int64(|r| r.nodes_after)),
    Column::nullable("tokens_before", Getter::Int64(|r| r.tokens_before)),
    Column::nullable("tokens_after", Getter::Int64(|r| r.tokens_after)),
    Column::nullable("shadowed_tokens", Getter::Int64(|r| r.shadowed_tokens)),
    Column::nullable(
        "replacement_tokens",
        Getter::Int64(|r| r.replacement_tokens),
    ),
    Column::nullable("window", Getter::Int64(|r| r.window)),
    Column::nullable("threshold", Getter::Int64(|r| r.threshold)),
    Column::nullable("trigger", Getter::Text(|r| r.trigger)),
    Column::nullable("trigger_tokens", Getter::Int64(|r| r.trigger_tokens)),
    Column::nullable("reported_before", Getter::Int64(|r| r.reported_before)),
    Column::nullable("reported_after", Getter::Int64(|r| r.reported_after)),
    Column::nullable(
        "compaction_id",
        Getter::Text(|r| r.compaction_id.as_deref()),
    ),
    Column::nullable("start_seq", Getter::Int64(|r| r.start_seq)),
    Column::nullable("end_seq", Getter::Int64(|r| r.end_seq)),
    Column::nullable("duration_ms", Getter::Int64(|r| r.duration_ms)),
    Column::nullable(
        "summarizer_provider",
        Getter::Text(|r| r.summarizer_provider.as_deref()),
    ),
    Column::nullable(
        "summarizer_model",
        Getter::Text(|r| r.summarizer_model.as_deref()),
    ),
    Column::nullable("max_tokens", Getter::Int64(|r| r.max_tokens)),
    Column::nullable(
        "recorded_shadowed_tokens",
        Getter::Int64(|r| r.recorded_shadowed_tokens),
    ),
    Column::nullable(
        "source_command_id",
        Getter::Text(|r| r.source_command_id.as_deref()),
    ),
    Column::nullable("lost_terms", Getter::Int64(|r| r.lost_terms)),
    Column::nullable("refetches", Getter::Int64(|r| r.refetches)),
    Column::nullable("refetch_tokens", Getter::Int64(|r| r.refetch_tokens)),
    Column::nullable("fidelity", Getter::Double(|r| r.fidelity)),
    Column::nullable("needed_fidelity", Getter::Double(|r| r.needed_fidelity)),
    Column::nullable("fidelity_path", Getter::Double(|r| r.fidelity_by_kind[0])),
    Column::nullable(
        "fidelity_command",
        Getter::Double(|r| r.fidelity_by_kind[1]),
    ),
    Column::nullable(
        "fidelity_identifier",
        Getter::Double(|r| r.fidelity_by_kind[2]),
    ),
    Column::nullable("fidelity_number", Getter::Double(|r| r.fidelity_by_kind[3])),
    Column::nullable("fidelity_error", Getter::Double(|r| r.fidelity_by_kind[4])),
    Column::nullable("fidelity_url", Getter::Double(|r| r.fidelity_by_kind[5])),
    Column::nullable(
        "summarizer_uncached",
        Getter::Int64(|r| r.summarizer_uncached),
    ),
    Column::nullable(
        "summarizer_cache_read",
        Getter::Int64(|r| r.summarizer_cache_read),
    ),
    Column::nullable(
        "summarizer_cache_write",
        Getter::Int64(|r| r.summarizer_cache_write),
    ),
    Column::nullable("summarizer_output", Getter::Int64(|r| r.summarizer_output)),
    Column::nullable("summarizer_cost", Getter::Double(|r| r.summarizer_cost)),
    Column::nullable("saved_per_call", Getter::Int64(|r| r.saved_per_call)),
    Column::nullable("calls_after", Getter::Int64(|r| r.calls_after)),
    Column::nullable("prompt_saved", Getter::Int64(|r| r.prompt_saved)),
    Column::nullable("cache_lost", Getter::Int64(|r| r.cache_lost)),
    Column::nullable("balance", Getter::Double(|r| r.balance)),
];

/// The table.
pub static TABLE: Table<CompactionRow> = Table {
    name: "compactions",
    columns: &COLUMNS,
};

/// `"overflow"`, `"command"`, `"pressure"` or `"below-threshold"`.
fn trigger_name(t: Option<Trigger>) -> Option<&'static str> {
    t.map(Trigger::as_str)
}

/// Writes a row per audited replace (with its cost from `ledger`), then one per failed
/// compaction, each group in log order.
pub fn write(
    out: &mut TableWriter<CompactionRow>,
    key: &Arc<SessionKey>,
    log: &EventLog,
    audit: &Audit,
    ledger: &Ledger,
) -> anyhow::Result<()> {
    let costs: HashMap<u64, &CompactionCost> =
        ledger.compactions.iter().map(|c| (c.seq, c)).collect();
    for r in &audit.replaces {
        out.push(key, replace_row(log, r, costs.get(&r.seq).copied()))?;
    }
    for f in &audit.failed {
        out.push(key, failed_row(log, f))?;
    }
    Ok(())
}

fn replace_row(log: &EventLog, r: &ReplaceAudit, cost: Option<&CompactionCost>) -> CompactionRow {
    let record = r.compaction.as_ref();
    let summarizer = cost.and_then(|c| c.summarizer);
    CompactionRow {
        seq: int(r.seq),
        time: log.event(r.event).time(),
        kind: r.kind.as_str(),
        valid: r.valid,
        failed: false,
        error: record
            .and_then(|c| c.error.as_ref())
            .map(ToString::to_string),
        start: Some(int(r.start)),
        end: Some(int(r.end)),
        shadowed: Some(count(r.shadowed.len())),
        nodes_before: Some(int(r.nodes_before)),
        nodes_after: Some(int(r.nodes_after)),
        tokens_before: Some(int(r.tokens_before)),
        tokens_after: Some(int(r.tokens_after)),
        shadowed_tokens: Some(int(r.shadowed_tokens)),
        replacement_tokens: Some(int(r.replacement_tokens)),
        window: opt_int(r.window),
        threshold: opt_int(r.threshold),
        trigger: trigger_name(r.trigger),
        trigger_tokens: opt_int(r.trigger_tokens),
        reported_before: opt_int(r.reported_before),
        reported_after: opt_int(r.reported_after),
        compaction_id: record.and_then(|c| c.id.clone()),
        start_seq: record.and_then(|c| opt_int(c.start_seq)),
        end_seq: record.and_then(|c| opt_int(c.end_seq)),
        duration_ms: record.and_then(|c| c.duration_ms),
        summarizer_provider: record.and_then(|c| c.provider.clone()),
        summarizer_model: record.and_then(|c| c.model.clone()),
        max_tokens: record.and_then(|c| opt_int(c.max_tokens)),
        recorded_shadowed_tokens: record.and_then(|c| opt_int(c.shadowed_token_count)),
        source_command_id: record.and_then(|c| c.source_command_id.clone()),
        lost_terms: Some(count(r.lost_terms.len())),
        refetches: Some(count(r.refetches.len())),
        refetch_tokens: Some(int(r.refetches.iter().filter_map(|f| f.tokens).sum())),
        fidelity: r.fidelity.fidelity,
        needed_fidelity: r.fidelity.needed_fidelity,
        fidelity_by_kind: r
            .fidelity
            .kinds
            .0
            .each_ref()
            .map(|k| (k.facts > 0).then(|| k.survived as f64 / k.facts as f64)),
        summarizer_uncached: summarizer.map(|s| int(s.tokens.uncached)),
        summarizer_cache_read: summarizer.map(|s| int(s.tokens.cache_read)),
        summarizer_cache_write: summarizer.map(|s| int(s.tokens.cache_write)),
        summarizer_output: summarizer.map(|s| int(s.tokens.output)),
        summarizer_cost: summarizer.and_then(|s| s.cost),
        saved_per_call: cost.map(|c| c.saved_per_call),
        calls_after: cost.map(|c| int(c.calls_after)),
        prompt_saved: cost.map(|c| c.prompt_saved),
        cache_lost: cost.and_then(|c| opt_int(c.cache_lost)),
        balance: cost.and_then(|c| c.balance),
    }
}

fn failed_row(log: &EventLog, f: &FailedCompaction) -> CompactionRow {
    CompactionRow {
        seq: int(f.end_seq),
        time: log.event(f.event).time(),
        kind: "summary",
        valid: false,
        failed: true,
        error: Some(f.error.to_string()),
        trigger: trigger_name(f.trigger),
        compaction_id: f.id.clone(),
        start_seq: opt_int(f.start_seq),
        end_seq: Some(int(f.end_seq)),
        ..CompactionRow::default()
    }
}
