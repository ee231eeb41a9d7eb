//! The `sessions` table: one row per session — every session found, the unreadable ones too
//! (with their `error` and nothing else known) — with its header, `check`'s verdict, the
//! meter's peak, the ledger's totals (docs/cost.md), the compactions' totals (docs/audit.md,
//! docs/cost.md#each-compaction) and the policy's (docs/policy.md#the-document---json): the log's own decisions, the disagreements of the replay, and with `--what-if`
//! the hypothetical session's totals beside them.

use std::sync::Arc;

use surface_analysis::audit::{Audit, ReplaceKind};
use surface_analysis::cost::Ledger;
use surface_analysis::policy::{PolicyReport, Totals};
use surface_engine::{CheckReport, EventLog, EventType, Meter, Mode};
use surface_store::{Format, SessionInfo};

use super::table::{Column, Getter, Table, count, int, opt_int};
use super::writer::{SessionKey, TableWriter};

/// One session.
#[derive(Default)]
pub struct SessionRow {
    error: Option<String>,
    format: Option<&'static str>,
    packed: Option<bool>,
    created: Option<i64>,
    first_time: Option<i64>,
    last_time: Option<i64>,
    parent_session: Option<String>,
    seed_length: Option<i64>,
    origin: Option<String>,
    cwd: Option<String>,
    events: Option<i64>,
    turns: Option<i64>,
    mode: Option<&'static str>,
    era: Option<&'static str>,
    errors: Option<i64>,
    warnings: Option<i64>,
    window: Option<i64>,
    peak_total: Option<i64>,
    agent_calls: Option<i64>,
    summarizer_calls: Option<i64>,
    uncached: Option<i64>,
    cache_read: Option<i64>,
    cache_write: Option<i64>,
    output: Option<i64>,
    prompt: Option<i64>,
    caching: Option<bool>,
    cache_hit_rate: Option<f64>,
    cache_noise_median: Option<i64>,
    cost: Option<f64>,
    currency: Option<String>,
    replaces: Option<i64>,
    summaries: Option<i64>,
    prunes: Option<i64>,
    failed_compactions: Option<i64>,
    prompt_saved: Option<i64>,
    cache_lost: Option<i64>,
    compaction_balance: Option<f64>,
    threshold_ratio: Option<f64>,
    policy_error: Option<String>,
    checks: Option<i64>,
    disagreements: Option<i64>,
    first_disagreement_seq: Option<i64>,
    log: Option<Totals>,
    what_if: Option<Totals>,
    what_if_first_divergence_seq: Option<i64>,
}

/// A policy total of the log's own decisions or of the what-if, as INT64.
fn total(t: &Option<Totals>, f: fn(&Totals) -> usize) -> Option<i64> {
    t.as_ref().map(|t| count(f(t)))
}

static COLUMNS: [Column<SessionRow>; 57] = [
    Column::nullable("error", Getter::Text(|r| r.error.as_deref())),
    Column::nullable("format", Getter::Text(|r| r.format)),
    Column::nullable("packed", Getter::Bool(|r| r.packed)),
    Column::nullable("created", Getter::Time(|r| r.created)),
    Column::nullable("first_time", Getter::Time(|r| r.first_time)),
    Column::nullable("last_time", Getter::Time(|r| r.last_time)),
    Column::nullable(
        "parent_session",
        Getter::Text(|r| r.parent_session.as_deref()),
    ),
    Column::nullable("seed_length", Getter::Int64(|r| r.seed_length)),
    Column::nullable("origin", Getter::Text(|r| r.origin.as_deref())),
    Column::nullable("cwd", Getter::Text(|r| r.cwd.as_deref())),
    Column::nullable("events", Getter::Int64(|r| r.events)),
    Column::nullable("turns", Getter::Int64(|r| r.turns)),
    Column::nullable("mode", Getter::Text(|r| r.mode)),
    Column::nullable("era", Getter::Text(|r| r.era)),
    Column::nullable("errors", Getter::Int64(|r| r.errors)),
    Column::nullable("warnings", Getter::Int64(|r| r.warnings)),
    Column::nullable("window", Getter::Int64(|r| r.window)),
    Column::nullable("peak_total", Getter::Int64(|r| r.peak_total)),
    Column::nullable("agent_calls", Getter::Int64(|r| r.agent_calls)),
    Column::nullable("summarizer_calls", Getter::Int64(|r| r.summarizer_calls)),
    Column::nullable("uncached", Getter::Int64(|r| r.uncached)),
    Column::nullable("cache_read", Getter::Int64(|r| r.cache_read)),
    Column::nullable("cache_write", Getter::Int64(|r| r.cache_write)),
    Column::nullable("output", Getter::Int64(|r| r.output)),
    Column::nullable("prompt", Getter::Int64(|r| r.prompt)),
    Column::nullable("caching", Getter::Bool(|r| r.caching)),
    Column::nullable("cache_hit_rate", Getter::Double(|r| r.cache_hit_rate)),
    Column::nullable(
        "cache_noise_median",
        Getter::Int64(|r| r.cache_noise_median),
    ),
    Column::nullable("cost", Getter::Double(|r| r.cost)),
    Column::nullable("currency", Getter::Text(|r| r.currency.as_deref())),
    Column::nullable("replaces", Getter::Int64(|r| r.replaces)),
    Column::nullable("summaries", Getter::Int64(|r| r.summaries)),
    Column::nullable("prunes", Getter::Int64(|r| r.prunes)),
    Column::nullable(
        "failed_compactions",
        Getter::Int64(|r| r.failed_compactions),
    ),
    Column::nullable("prompt_saved", Getter::Int64(|r| r.prompt_saved)),
    Column::nullable("cache_lost", Getter::Int64(|r| r.cache_lost)),
    Column::nullable(
        "compaction_balance",
        Getter::Double(|r| r.compaction_balance),
    ),
    Column::nullable("threshold_ratio", Getter::Double(|r| r.threshold_ratio)),
    Column::nullable("policy_error", Getter::Text(|r| r.policy_error.as_deref())),
    Column::nullable("checks", Getter::Int64(|r| r.checks)),
    Column::nullable("disagreements", Getter::Int64(|r| r.disagreements)),
    Column::nullable(
        "first_disagreement_seq",
        Getter::Int64(|r| r.first_disagreement_seq),
    ),
    Column::nullable("log_fired", Getter::Int64(|r| total(&r.log, |t| t.fired))),
    Column::nullable("log_prunes", Getter::Int64(|r| total(&r.log, |t| t.prunes))),
    Column::nullable(
        "log_summaries",
        Getter::Int64(|r| total(&r.log, |t| t.summaries)),
    ),
    Column::nullable(
        "log_summarized_tokens",
        Getter::Int64(|r| r.log.as_ref().map(|t| int(t.summarized_tokens))),
    ),
    Column::nullable(
        "log_peak_total",
        Getter::Int64(|r| r.log.as_ref().map(|t| int(t.peak_total))),
    ),
    Column::nullable(
        "log_requests_over_threshold",
        Getter::Int64(|r| total(&r.log, |t| t.requests_over_threshold)),
    ),
    Column::nullable(
        "log_requests_over_window",
        Getter::Int64(|r| total(&r.log, |t| t.requests_over_window)),
    ),
    Column::nullable(
        "what_if_fired",
        Getter::Int64(|r| total(&r.what_if, |t| t.fired)),
    ),
    Column::nullable(
        "what_if_prunes",
        Getter::Int64(|r| total(&r.what_if, |t| t.prunes)),
    ),
    Column::nullable(
        "what_if_summaries",
        Getter::Int64(|r| total(&r.what_if, |t| t.summaries)),
    ),
    Column::nullable(
        "what_if_summarized_tokens",
        Getter::Int64(|r| r.what_if.as_ref().map(|t| int(t.summarized_tokens))),
    ),
    Column::nullable(
        "what_if_peak_total",
        Getter::Int64(|r| r.what_if.as_ref().map(|t| int(t.peak_total))),
    ),
    Column::nullable(
        "what_if_requests_over_threshold",
        Getter::Int64(|r| total(&r.what_if, |t| t.requests_over_threshold)),
    ),
    Column::nullable(
        "what_if_requests_over_window",
        Getter::Int64(|r| total(&r.what_if, |t| t.requests_over_window)),
    ),
    Column::nullable(
        "what_if_first_divergence_seq",
        Getter::Int64(|r| r.what_if_first_divergence_seq),
    ),
];

/// The table.
pub static TABLE: Table<SessionRow> = Table {
    name: "sessions",
    columns: &COLUMNS,
};

impl SessionRow {
    /// The row of a session that could not be read: its error, nothing else.
    pub fn unreadable(error: &str) -> Self {
        SessionRow {
            error: Some(error.to_string()),
            ..SessionRow::default()
        }
    }

    /// What the file, the header and the log say, and `check`'s verdict.
    pub fn read(
        format: Format,
        session: &SessionInfo,
        log: &EventLog,
        mode: Mode,
        check: &CheckReport,
    ) -> Self {
        let header = log.header.as_ref();
        let errors = check.findings.iter().filter(|f| f.is_error()).count();
        SessionRow {
            format: Some(format_name(format)),
            packed: Some(!log.packed_rows.is_empty()),
            created: session
                .created
                .or_else(|| header.and_then(|h| h.created_at)),
            first_time: log.events.iter().find_map(|e| e.time()),
            last_time: log.last_time(),
            parent_session: session.parent.clone(),
            seed_length: opt_int(session.seed_length),
            origin: session.origin.clone(),
            cwd: header.and_then(|h| h.cwd.clone()),
            events: Some(count(log.len())),
            turns: Some(count(
                log.indices()
                    .filter(|&i| log.event_type(i) == EventType::TurnStart)
                    .count(),
            )),
            mode: Some(mode.as_str()),
            era: Some(check.era.era.id()),
            errors: Some(count(errors)),
            warnings: Some(count(check.findings.len() - errors)),
            ..SessionRow::default()
        }
    }

    /// The meter's window at the end and its peak.
    pub fn meter(&mut self, log: &EventLog, meter: &Meter) {
        self.window = opt_int(meter.window_at(log.len()));
        let peak = (0..meter.len()).map(|i| meter.total_after(i)).max();
        self.peak_total = Some(i64::from(peak.unwrap_or(0)));
    }

    /// The ledger's totals and the compactions' cost.
    pub fn ledger(&mut self, l: &Ledger) {
        let t = &l.totals;
        self.agent_calls = Some(int(t.agent.calls));
        self.summarizer_calls = Some(int(t.summarizer.calls));
        self.uncached = Some(int(t.all.uncached));
        self.cache_read = opt_int(t.all.cache_read);
        self.cache_write = Some(int(t.all.cache_write));
        self.output = Some(int(t.all.output));
        self.prompt = Some(int(t.all.prompt));
        self.caching = Some(l.caching);
        self.cache_hit_rate = t.all.cache_hit_rate;
        self.cache_noise_median = opt_int(l.cache_noise_median);
        self.cost = t.all.cost;
        self.currency = l.currency.clone();
        let c = &l.compaction_totals;
        self.prompt_saved = Some(c.prompt_saved);
        self.cache_lost = opt_int(c.cache_lost);
        self.compaction_balance = c.balance;
    }

    /// The audit's counts.
    pub fn audit(&mut self, audit: &Audit) {
        let valid = |kind| {
            audit
                .replaces
                .iter()
                .filter(|r| r.valid && r.kind == kind)
                .count()
        };
        self.replaces = Some(count(audit.replaces.len()));
        self.summaries = Some(count(valid(ReplaceKind::Summary)));
        self.prunes = Some(count(valid(ReplaceKind::Prune)));
        self.failed_compactions = Some(count(audit.failed.len()));
    }

    /// The policy's verify replay: the log's own decisions and the disagreements.
    pub fn verify(&mut self, v: &PolicyReport) {
        self.threshold_ratio = Some(v.settings.threshold_ratio);
        self.checks = Some(count(v.totals.checks));
        self.disagreements = Some(count(v.disagreements()));
        self.first_disagreement_seq = v.first_divergence.as_ref().map(|d| int(d.step_start_seq));
        self.log = Some(v.actual_totals.clone());
    }

    /// The what-if replay's totals.
    pub fn what_if(&mut self, w: &PolicyReport) {
        self.what_if = Some(w.totals.clone());
        self.what_if_first_divergence_seq =
            w.first_divergence.as_ref().map(|d| int(d.step_start_seq));
    }

    /// Why the policy was not replayed.
    pub fn policy_error(&mut self, error: String) {
        self.policy_error = Some(error);
    }

    /// The session turned out unreadable after all (its file shrank while it was read): the
    /// error, beside what was learnt before.
    pub fn failed(&mut self, error: String) {
        self.error = Some(error);
    }
}

/// Writes a session's row.
pub fn write(
    out: &mut TableWriter<SessionRow>,
    key: &Arc<SessionKey>,
    row: SessionRow,
) -> anyhow::Result<()> {
    out.push(key, row)
}

/// `"jsonl"`, `"zstd"` or `"sqlite"`, as `check --json` names them.
pub fn format_name(format: Format) -> &'static str {
    match format {
        Format::Jsonl => "jsonl",
        Format::Zstd => "zstd",
        Format::Sqlite => "sqlite",
    }
}
