//! A ledger summed over a folder's sessions (the fleet totals of `policy DIR` and `cost DIR`):
//! token columns add up; cache figures only over the sessions whose provider reports a cache
//! (`null` when none does); money only when every session has it (`null` otherwise — a total
//! that leaves a session out would read as the whole), with beside it the priced sessions'
//! sum, how many sessions it covers and the models that left the others unpriced.

use serde::Serialize;

use surface_analysis::cost::{CostSum, LedgerSummary};

/// Sums of several sessions' ledgers.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LedgerSums {
    /// Sessions summed.
    pub sessions: usize,
    /// Agent calls.
    pub agent_calls: u64,
    /// Σ agent prompt.
    pub agent_prompt: u64,
    /// Σ agent cache read over the caching sessions.
    pub agent_cache_read: Option<u64>,
    /// Σ agent output.
    pub agent_output: u64,
    /// Summarizer calls.
    pub summarizer_calls: u64,
    /// Σ summarizer prompt + output.
    pub summarizer_tokens: u64,
    /// Σ prompt of every call.
    pub prompt: u64,
    /// Σ output of every call.
    pub output: u64,
    /// Σ cache read of every call, over the caching sessions.
    pub cache_read: Option<u64>,
    /// `Σ cache_read / Σ prompt` over the caching sessions.
    pub cache_hit_rate: Option<f64>,
    /// Compactions weighed.
    pub compactions: usize,
    /// Of them summaries.
    pub summaries: usize,
    /// Of them prunes.
    pub prunes: usize,
    /// Σ prompt saved (meter tokens).
    pub prompt_saved: i64,
    /// Σ cache lost over the caching sessions.
    pub cache_lost: Option<u64>,
    /// Σ cost, when every session has one (`null` without prices, or when some session is
    /// unpriced).
    pub cost: Option<f64>,
    /// Σ cost of the wholly priced sessions (`null` without prices, or when none is).
    pub priced_cost: Option<f64>,
    /// Sessions whose cost is known (with prices).
    pub priced_sessions: u64,
    /// Sessions with a call the price file has no price for: left out of `priced_cost`.
    pub unpriced_sessions: u64,
    /// The models those calls were sent to, in the order first met.
    pub unpriced_models: Vec<String>,
    /// Σ compaction balance, when every session has one.
    pub compaction_balance: Option<f64>,
    /// The price file's currency.
    pub currency: Option<String>,
    /// Caching sessions' Σ prompt (for the hit rate).
    #[serde(skip)]
    caching_prompt: u64,
    /// Caching sessions' Σ cache read.
    #[serde(skip)]
    caching_read: u64,
    /// The sessions' costs.
    #[serde(skip)]
    costs: CostSum,
    /// The sessions' compaction balances.
    #[serde(skip)]
    balances: CostSum,
}

impl LedgerSums {
    /// Adds one session's ledger.
    pub fn add(&mut self, l: &LedgerSummary) {
        let first = self.sessions == 0;
        self.sessions += 1;
        let t = &l.totals;
        self.agent_calls += t.agent.calls;
        self.agent_prompt += l.agent_prompt;
        self.agent_output += t.agent.output;
        self.summarizer_calls += t.summarizer.calls;
        self.summarizer_tokens += l.compaction_totals.summarizer_tokens;
        self.prompt += t.all.prompt;
        self.output += t.all.output;
        if l.caching {
            self.agent_cache_read =
                Some(self.agent_cache_read.unwrap_or(0) + t.agent.cache_read.unwrap_or(0));
            self.caching_prompt += t.all.prompt;
            self.caching_read += t.all.cache_read.unwrap_or(0);
            self.cache_read = Some(self.caching_read);
            self.cache_hit_rate = (self.caching_prompt > 0)
                .then(|| self.caching_read as f64 / self.caching_prompt as f64);
            self.cache_lost =
                Some(self.cache_lost.unwrap_or(0) + l.compaction_totals.cache_lost.unwrap_or(0));
        }
        let c = &l.compaction_totals;
        self.compactions += c.compactions;
        self.summaries += c.summaries;
        self.prunes += c.prunes;
        self.prompt_saved += c.prompt_saved;
        if l.currency.is_some() {
            self.costs.add(t.all.cost);
            self.balances.add(c.balance);
            self.cost = self.costs.whole();
            self.priced_cost = self.costs.priced_part();
            self.priced_sessions = self.costs.priced_items();
            self.unpriced_sessions = self.costs.unpriced_items();
            self.compaction_balance = self.balances.whole();
            for m in &l.unpriced_models {
                if !self.unpriced_models.contains(m) {
                    self.unpriced_models.push(m.clone());
                }
            }
        }
        if first {
            self.currency = l.currency.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_analysis::cost::{CompactionTotals, LedgerTotals, Totals};

    fn ledger(prompt: u64, cache_read: Option<u64>, cost: Option<f64>) -> LedgerSummary {
        let t = Totals {
            calls: 2,
            prompt,
            cache_read,
            cost,
            ..Totals::default()
        };
        LedgerSummary {
            agent_prompt: prompt,
            caching: cache_read.is_some(),
            cache_noise_median: None,
            currency: cost.map(|_| "USD".to_string()),
            totals: LedgerTotals {
                agent: t,
                summarizer: Totals::default(),
                all: t,
            },
            unpriced_models: Vec::new(),
            compaction_totals: CompactionTotals {
                balance: cost,
                ..CompactionTotals::default()
            },
        }
    }

    #[test]
    fn money_needs_every_session_and_the_cache_its_caching_ones() {
        let mut s = LedgerSums::default();
        s.add(&ledger(1000, Some(500), Some(1.0)));
        s.add(&ledger(3000, None, Some(2.0)));
        assert_eq!(s.sessions, 2);
        assert_eq!(s.agent_prompt, 4000);
        assert_eq!(s.agent_cache_read, Some(500));
        assert_eq!(s.cache_hit_rate, Some(0.5), "over the caching session only");
        assert_eq!(s.cost, Some(3.0));
        assert_eq!(s.currency.as_deref(), Some("USD"));
        s.add(&LedgerSummary {
            currency: Some("USD".to_string()),
            unpriced_models: vec!["mock-b".to_string()],
            ..ledger(10, None, None)
        });
        assert_eq!(s.cost, None, "a session without money");
        assert_eq!(s.compaction_balance, None);
        assert_eq!(
            s.priced_cost,
            Some(3.0),
            "the priced sessions' sum, stated beside"
        );
        assert_eq!((s.priced_sessions, s.unpriced_sessions), (2, 1));
        assert_eq!(s.unpriced_models, ["mock-b"]);
        let mut none = LedgerSums::default();
        none.add(&ledger(10, None, None));
        assert_eq!(
            (none.agent_cache_read, none.cache_hit_rate, none.cost),
            (None, None, None)
        );
    }
}
