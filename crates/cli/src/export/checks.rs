//! The `checks` table: one row per check point of the compaction policy's replay (docs/policy.md)
//! — `mode` `verify` for the log as it is, and `what-if` as well with `--what-if` — with
//! what the policy decided, what the log did there, whether they agree, and the settings the
//! replay used.

use std::sync::Arc;

use surface_analysis::policy::{CheckKind, CheckVerdict, PolicyReport, ReplayMode};
use surface_engine::EventLog;

use super::table::{Column, Getter, Table, count, int, opt_int};
use super::writer::{SessionKey, TableWriter};

/// One check.
pub struct CheckRow {
    mode: &'static str,
    step_start_seq: i64,
    time: Option<i64>,
    turn: Option<i64>,
    step: Option<i64>,
    trigger: &'static str,
    total: i64,
    threshold: Option<i64>,
    window: Option<i64>,
    outcome: &'static str,
    pruned: i64,
    summaries: i64,
    summaries_ok: i64,
    summarized_tokens: i64,
    summary_start: Option<i64>,
    summary_end: Option<i64>,
    total_after: i64,
    exact: bool,
    agrees: Option<bool>,
    why: Option<String>,
    actual_pruned: Option<i64>,
    actual_summaries: Option<i64>,
    actual_failed: Option<i64>,
    threshold_ratio: f64,
    retain_ratio: Option<f64>,
    retain_tokens: Option<i64>,
    compaction_retries: i32,
    prune_threshold_chars: Option<i64>,
    prune_head_chars: Option<i64>,
    prune_tail_chars: Option<i64>,
    summary_tokens: i64,
}

static COLUMNS: [Column<CheckRow>; 31] = [
    Column::required("mode", Getter::Text(|r| Some(r.mode))),
    Column::required("step_start_seq", Getter::Int64(|r| Some(r.step_start_seq))),
    Column::nullable("time", Getter::Time(|r| r.time)),
    Column::nullable("turn", Getter::Int64(|r| r.turn)),
    Column::nullable("step", Getter::Int64(|r| r.step)),
    Column::required("trigger", Getter::Text(|r| Some(r.trigger))),
    Column::required("total", Getter::Int64(|r| Some(r.total))),
    Column::nullable("threshold", Getter::Int64(|r| r.threshold)),
    Column::nullable("window", Getter::Int64(|r| r.window)),
    Column::required("outcome", Getter::Text(|r| Some(r.outcome))),
    Column::required("pruned", Getter::Int64(|r| Some(r.pruned))),
    Column::required("summaries", Getter::Int64(|r| Some(r.summaries))),
    Column::required("summaries_ok", Getter::Int64(|r| Some(r.summaries_ok))),
    Column::required(
        "summarized_tokens",
        Getter::Int64(|r| Some(r.summarized_tokens)),
    ),
    Column::nullable("summary_start", Getter::Int64(|r| r.summary_start)),
    Column::nullable("summary_end", Getter::Int64(|r| r.summary_end)),
    Column::required("total_after", Getter::Int64(|r| Some(r.total_after))),
    Column::required("exact", Getter::Bool(|r| Some(r.exact))),
    Column::nullable("agrees", Getter::Bool(|r| r.agrees)),
    Column::nullable("why", Getter::Text(|r| r.why.as_deref())),
    Column::nullable("actual_pruned", Getter::Int64(|r| r.actual_pruned)),
    Column::nullable("actual_summaries", Getter::Int64(|r| r.actual_summaries)),
    Column::nullable("actual_failed", Getter::Int64(|r| r.actual_failed)),
    Column::required(
        "threshold_ratio",
        Getter::Double(|r| Some(r.threshold_ratio)),
    ),
    Column::nullable("retain_ratio", Getter::Double(|r| r.retain_ratio)),
    Column::nullable("retain_tokens", Getter::Int64(|r| r.retain_tokens)),
    Column::required(
        "compaction_retries",
        Getter::Int32(|r| Some(r.compaction_retries)),
    ),
    Column::nullable(
        "prune_threshold_chars",
        Getter::Int64(|r| r.prune_threshold_chars),
    ),
    Column::nullable("prune_head_chars", Getter::Int64(|r| r.prune_head_chars)),
    Column::nullable("prune_tail_chars", Getter::Int64(|r| r.prune_tail_chars)),
    Column::required("summary_tokens", Getter::Int64(|r| Some(r.summary_tokens))),
];

/// The table.
pub static TABLE: Table<CheckRow> = Table {
    name: "checks",
    columns: &COLUMNS,
};

/// `"pressure"`, `"overflow"` or `"command"`.
pub fn trigger_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Pressure => "pressure",
        CheckKind::Overflow => "overflow",
        CheckKind::Command => "command",
    }
}

/// `"verify"` or `"what-if"`.
pub fn mode_name(mode: ReplayMode) -> &'static str {
    match mode {
        ReplayMode::Verify => "verify",
        ReplayMode::WhatIf => "what-if",
    }
}

/// Writes one row per check of `report`.
pub fn write(
    out: &mut TableWriter<CheckRow>,
    key: &Arc<SessionKey>,
    log: &EventLog,
    report: &PolicyReport,
) -> anyhow::Result<()> {
    for check in &report.checks {
        out.push(key, row(log, report, check))?;
    }
    Ok(())
}

fn row(log: &EventLog, report: &PolicyReport, c: &CheckVerdict) -> CheckRow {
    let s = &report.settings;
    let ok: Vec<_> = c.summaries.iter().filter(|p| p.ok).collect();
    let first = ok.first();
    let last = ok.last();
    CheckRow {
        mode: mode_name(report.mode),
        step_start_seq: int(c.step_start_seq),
        time: log
            .find_seq(c.step_start_seq)
            .and_then(|i| log.event(i).time()),
        turn: opt_int(c.turn),
        step: opt_int(c.step),
        trigger: trigger_name(c.trigger),
        total: int(c.total),
        threshold: opt_int(c.threshold),
        window: opt_int(c.window),
        outcome: c.outcome.as_str(),
        pruned: count(c.pruned.len()),
        summaries: count(c.summaries.len()),
        summaries_ok: count(ok.len()),
        summarized_tokens: int(ok.iter().map(|p| p.shadowed_tokens).sum()),
        summary_start: first.map(|p| int(p.start)),
        summary_end: last.map(|p| int(p.end)),
        total_after: int(c.total_after),
        exact: c.exact,
        agrees: c.agrees,
        why: c.why.clone(),
        actual_pruned: c.actual.as_ref().map(|a| count(a.pruned.len())),
        actual_summaries: c.actual.as_ref().map(|a| count(a.summaries.len())),
        actual_failed: c.actual.as_ref().map(|a| count(a.failed)),
        threshold_ratio: s.threshold_ratio,
        retain_ratio: s.retain_ratio,
        retain_tokens: opt_int(s.retain_tokens),
        compaction_retries: i32::try_from(s.compaction_retries).unwrap_or(i32::MAX),
        prune_threshold_chars: s.pruner.map(|p| int(p.threshold_chars)),
        prune_head_chars: s.pruner.map(|p| int(p.head_chars)),
        prune_tail_chars: s.pruner.map(|p| int(p.tail_chars)),
        summary_tokens: int(s.summary_tokens),
    }
}
