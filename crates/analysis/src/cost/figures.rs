//! What the ledger reports of each compaction (docs/cost.md) and of all of them together,
//! in the contract's JSON field names (`cost --json`).

use serde::Serialize;

use super::balance::Balance;
use super::tokens::Tokens;
use crate::audit::ReplaceKind;
use surface_engine::EventIdx;

/// The summarizer call of a summary, as a compaction row shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SummarizerFigures {
    /// The `compaction/summary`'s seq.
    pub seq: u64,
    /// Its tokens.
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Its prompt.
    pub prompt: u64,
    /// Its cost (`null` without a price).
    pub cost: Option<f64>,
}

/// One compaction weighed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CompactionCost {
    /// The replacing event's seq.
    pub seq: u64,
    /// Summary or prune.
    pub kind: ReplaceKind,
    /// Its summarizer call (`null` for a prune, or a summary the provider reported no usage of).
    pub summarizer: Option<SummarizerFigures>,
    /// The meter's price of the shadowed nodes − the replacement's.
    pub saved_per_call: i64,
    /// Agent calls that had the replacement in their prompt (every request sent, reported or
    /// not).
    pub calls_after: u64,
    /// `saved_per_call × calls_after` (meter tokens).
    pub prompt_saved: i64,
    /// The cache loss charged to it: `max(0, P_prev − cache_read_next)` for the compaction that
    /// changed the prompt first among those between the same two calls, 0 for the others;
    /// `null` when the log is not caching or either call is missing.
    pub cache_lost: Option<u64>,
    /// Its balance (`null` without prices, or when a figure it needs is unknown).
    pub balance: Option<f64>,
    /// The meter's price of the shadowed nodes.
    pub shadowed_tokens: u64,
    /// The meter's price of the replacement node.
    pub replacement_tokens: u64,
    /// `max(0, P_prev − cache_read_next)` of its gap, whether or not it is charged to it.
    pub cache_lost_gap: Option<u64>,
    /// The gap's loss is charged to this compaction.
    pub charged_cache: bool,
    /// Seq of the last agent call before it.
    pub call_before: Option<u64>,
    /// Seq of the first agent call after it.
    pub call_after: Option<u64>,
    /// The balance's three parts.
    pub balance_parts: Option<Balance>,
    /// The replacing event.
    #[serde(skip)]
    pub event: EventIdx,
}

/// What all compactions of the session cost and saved together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CompactionTotals {
    /// Compactions weighed.
    pub compactions: usize,
    /// Of them, summaries.
    pub summaries: usize,
    /// Of them, prunes.
    pub prunes: usize,
    /// Seqs of summarizer calls no valid replace followed (failed or rejected summaries: paid
    /// for, saved nothing).
    pub failed_summaries: Vec<u64>,
    /// Σ prompt + output of every summarizer call, failed ones included.
    pub summarizer_tokens: u64,
    /// Σ `prompt_saved`.
    pub prompt_saved: i64,
    /// Σ `cache_lost` (`null` when not caching).
    pub cache_lost: Option<u64>,
    /// Σ summarizer cost, failed summaries included.
    pub summarizer_cost: Option<f64>,
    /// Σ of the balances' cache parts.
    pub cache_lost_cost: Option<f64>,
    /// Σ of the balances' saved parts.
    pub prompt_saved_cost: Option<f64>,
    /// `summarizer_cost + cache_lost_cost − prompt_saved_cost`: what compaction cost this
    /// session, net (`null` unless every part is known).
    pub balance: Option<f64>,
}
