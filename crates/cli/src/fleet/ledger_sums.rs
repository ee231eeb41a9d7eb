//! A ledger summed over a folder's sessions (the fleet totals of `policy DIR` and `cost DIR`):
//! token columns add up; cache figures only over the sessions whose provider reports a cache
//! (`null` when none does); money only when every session has it (`null` otherwise — a total
//! that leaves a session out would read as the whole).

use serde::Serialize;

use surface_engine::cost::LedgerSummary;

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
    /// Σ cost, when every session has one.
    pub cost: Option<f64>,
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
        let all_or_none = |sum: Option<f64>, x: Option<f64>| match (first, sum, x) {
            (true, _, x) => x,
            (false, Some(s), Some(x)) => Some(s + x),
            _ => None,
        };
        self.cost = all_or_none(self.cost, t.all.cost);
        self.compaction_balance = all_or_none(self.compaction_balance, c.balance);
        if first {
            self.currency = l.currency.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::cost::{CompactionTotals, LedgerTotals, Totals};

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
        s.add(&ledger(10, None, None));
        assert_eq!(s.cost, None, "a session without money");
        assert_eq!(s.compaction_balance, None);
        let mut none = LedgerSums::default();
        none.add(&ledger(10, None, None));
        assert_eq!(
            (none.agent_cache_read, none.cache_hit_rate, none.cost),
            (None, None, None)
        );
    }
}
