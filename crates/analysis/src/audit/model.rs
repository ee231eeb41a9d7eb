//! What the compaction audit reports (docs/audit.md), in the contract's JSON field names:
//! one [`ReplaceAudit`] per replace op, the failed compactions and the requests made over the
//! threshold. Fields the log does not give are `None` (`null`).

use serde::Serialize;
use serde_json::Value;

use super::fidelity::{Fidelity, FidelityTotals};
use surface_engine::{EventIdx, Finding};

/// What made a replace: a summarizing compaction, a tool-result prune, or something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplaceKind {
    /// Directly follows a `compaction/summary` (June: `compact/summary`).
    Summary,
    /// Directly follows a `compaction/prune`.
    Prune,
    /// Anything else.
    Other,
}

impl ReplaceKind {
    /// `"summary"`, `"prune"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplaceKind::Summary => "summary",
            ReplaceKind::Prune => "prune",
            ReplaceKind::Other => "other",
        }
    }
}

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The model call failed with `CONTEXT_WINDOW_EXCEEDED` in the step it ran in.
    Overflow,
    /// A command asked for it (`sourceCommandId`).
    Command,
    /// The meter was at or over the threshold.
    Pressure,
    /// None of the above: the meter was under the threshold.
    BelowThreshold,
}

impl Trigger {
    /// `"overflow"`, `"command"`, `"pressure"` or `"below-threshold"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Overflow => "overflow",
            Trigger::Command => "command",
            Trigger::Pressure => "pressure",
            Trigger::BelowThreshold => "below-threshold",
        }
    }
}

/// The compaction's own record: its bracket and what the summarizer reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CompactionRecord {
    /// `compactionId`.
    pub id: Option<String>,
    /// Seq of `compaction/start` (of `compaction/prune` for a prune).
    pub start_seq: Option<u64>,
    /// Seq of `compaction/end`.
    pub end_seq: Option<u64>,
    /// `compaction/end` time − `compaction/start` time.
    pub duration_ms: Option<i64>,
    /// The summarizer's provider.
    pub provider: Option<String>,
    /// The summarizer's model.
    pub model: Option<String>,
    /// The summarizer call's usage, as recorded.
    pub usage: Option<Value>,
    /// The summarizer's `maxTokens`.
    pub max_tokens: Option<u64>,
    /// The `shadowedTokenCount` the harness recorded.
    pub shadowed_token_count: Option<u64>,
    /// The `shadowedSeqs` the harness recorded.
    pub shadowed_seqs: Option<Vec<u64>>,
    /// `sourceCommandId`, when a command asked for it.
    pub source_command_id: Option<String>,
    /// The `error` of `compaction/end`.
    pub error: Option<Value>,
}

/// A salient term of the shadowed text that survived nowhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LostTerm {
    /// The term.
    pub term: String,
    /// How often it occurs in the shadowed text.
    pub count: u64,
}

/// A tool call that fetched again what a replace dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refetch {
    /// The new call's `tool/call` (its `assistant/message` in eras without `tool/call`).
    pub seq: u64,
    /// The tool's name.
    pub tool: String,
    /// The shadowed `tool/result` of the earlier, equal call.
    pub original_seq: u64,
    /// The meter's price of the new result (`null` while it has none).
    pub tokens: Option<u64>,
    /// The new result's seq.
    pub result_seq: Option<u64>,
    /// The new call's event.
    #[serde(skip)]
    pub call: EventIdx,
    /// The new result's event.
    #[serde(skip)]
    pub result: Option<EventIdx>,
}

/// One replace op, audited.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplaceAudit {
    /// The replacing event's seq.
    pub seq: u64,
    /// Summary, prune or other.
    pub kind: ReplaceKind,
    /// Whether the op was applied.
    pub valid: bool,
    /// The op's `start`.
    pub start: u64,
    /// The op's `end`.
    pub end: u64,
    /// Seqs of the shadowed nodes, in surface order (empty when invalid).
    pub shadowed: Vec<u64>,
    /// Surface nodes just before the event.
    pub nodes_before: u64,
    /// Surface nodes just after it.
    pub nodes_after: u64,
    /// The meter's total just before the event.
    pub tokens_before: u64,
    /// The meter's total just after it.
    pub tokens_after: u64,
    /// The meter's price of the shadowed nodes.
    pub shadowed_tokens: u64,
    /// The meter's price of the replacement node.
    pub replacement_tokens: u64,
    /// The context window in force at the event.
    pub window: Option<u64>,
    /// The threshold in force at the event.
    pub threshold: Option<u64>,
    /// Why the compaction ran (`null` for `other`, or when nothing decides it).
    pub trigger: Option<Trigger>,
    /// The meter's total when the trigger was judged (at `compaction/start` or the prune).
    pub trigger_tokens: Option<u64>,
    /// Provider input tokens of the last model call before the event.
    pub reported_before: Option<u64>,
    /// Provider input tokens of the first model call after it.
    pub reported_after: Option<u64>,
    /// The compaction's own record (`null` for `other`).
    pub compaction: Option<CompactionRecord>,
    /// Salient terms of the shadowed text kept neither by the replacement nor by the surface
    /// right after it, most frequent first.
    pub lost_terms: Vec<LostTerm>,
    /// Later tool calls that fetched again what this replace dropped.
    pub refetches: Vec<Refetch>,
    /// What the summary (or prune) kept of the shadowed text's facts, by kind.
    pub fidelity: Fidelity,
    /// The replacing event.
    #[serde(skip)]
    pub event: EventIdx,
    /// The shadowed nodes, in surface order.
    #[serde(skip)]
    pub shadowed_nodes: Vec<EventIdx>,
}

impl ReplaceAudit {
    /// Tokens the replace freed: the meter's total before minus after (negative when it grew).
    pub fn tokens_saved(&self) -> i64 {
        self.tokens_before as i64 - self.tokens_after as i64
    }

    /// Fill of the window before and after, in percent.
    pub fn fill(&self) -> Option<(f64, f64)> {
        let w = self.window.filter(|&w| w > 0)? as f64;
        Some((
            self.tokens_before as f64 * 100.0 / w,
            self.tokens_after as f64 * 100.0 / w,
        ))
    }
}

/// A compaction whose `compaction/end` carries an error (no replace followed).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailedCompaction {
    /// `compactionId`.
    pub id: Option<String>,
    /// Seq of `compaction/start`.
    pub start_seq: Option<u64>,
    /// Seq of `compaction/end`.
    pub end_seq: u64,
    /// The recorded error.
    pub error: Value,
    /// Why it ran, judged as for a replace.
    pub trigger: Option<Trigger>,
    /// The `compaction/end` event.
    #[serde(skip)]
    pub event: EventIdx,
}

/// A model request made while the meter was at or over the threshold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OverThresholdRequest {
    /// The request's `step/start`.
    pub seq: u64,
    /// The meter's total when the request's messages were fixed.
    pub tokens: u64,
    /// The threshold then in force.
    pub threshold: u64,
    /// The window then in force.
    pub window: u64,
    /// The `step/start` event.
    #[serde(skip)]
    pub event: EventIdx,
    /// The replay cursor at which the request's messages were fixed.
    #[serde(skip)]
    pub cursor: usize,
}

/// The whole audit of one log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Audit {
    /// The context window in force at the end of the log.
    pub window: Option<u64>,
    /// The threshold ratio used.
    pub threshold_ratio: f64,
    /// The threshold in force at the end of the log.
    pub threshold: Option<u64>,
    /// Every replace op, in log order.
    pub replaces: Vec<ReplaceAudit>,
    /// Compactions that ended with an error.
    pub failed: Vec<FailedCompaction>,
    /// Requests made at or over the threshold.
    pub over_threshold_requests: Vec<OverThresholdRequest>,
    /// What was wrong with the compaction events (the `compaction.*` findings).
    pub warnings: Vec<Finding>,
    /// The compactions' fidelity figures summed by kind.
    pub fidelity_totals: FidelityTotals,
}

impl Audit {
    /// The audited replace of the event `idx`, if it is a replace op.
    pub fn replace_of(&self, idx: EventIdx) -> Option<&ReplaceAudit> {
        let k = self.replaces.binary_search_by_key(&idx, |r| r.event).ok()?;
        self.replaces.get(k)
    }
}
