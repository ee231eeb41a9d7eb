//! A ledger in a few figures — its sums and what compaction cost and saved — for a report that
//! sets ledgers side by side (a what-if's actual and hypothetical ledgers, one row per session
//! of a folder) without every call and compaction.

use serde::Serialize;

use super::figures::CompactionTotals;
use super::ledger::Ledger;
use super::totals::LedgerTotals;

/// A ledger's sums.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LedgerSummary {
    /// Σ prompt of the agent calls (`totals.agent.prompt`).
    pub agent_prompt: u64,
    /// Some agent call read from the cache.
    pub caching: bool,
    /// The median cache noise.
    pub cache_noise_median: Option<u64>,
    /// The price file's currency (`null`: no prices).
    pub currency: Option<String>,
    /// The models of calls the price file has no price for (see [`Ledger::unpriced_models`]).
    pub unpriced_models: Vec<String>,
    /// Sums for the session, agent, summarizer and all.
    pub totals: LedgerTotals,
    /// What compaction cost and saved, all together.
    pub compaction_totals: CompactionTotals,
}

impl LedgerSummary {
    /// The sums of `ledger`.
    pub fn of(ledger: &Ledger) -> LedgerSummary {
        LedgerSummary {
            agent_prompt: ledger.totals.agent.prompt,
            caching: ledger.caching,
            cache_noise_median: ledger.cache_noise_median,
            currency: ledger.currency.clone(),
            unpriced_models: ledger.unpriced_models.clone(),
            totals: ledger.totals,
            compaction_totals: ledger.compaction_totals.clone(),
        }
    }
}
