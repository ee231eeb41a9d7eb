//! The session ledger's sums (docs/cost.md): every column for agent and summarizer calls,
//! per turn and for the session, the cache hit rate `Σ cache_read / Σ prompt`, and the cost
//! when priced. Cache figures are `null` when the log is not caching; the cost is `null`
//! unless every call with usage is priced (an unpriced call is never counted as 0).

use serde::Serialize;

use super::calls::{Call, CallKind};
use super::cost_sum::CostSum;
use super::tokens::Tokens;
use surface_engine::KeyMap;

/// Sums over some calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Calls counted.
    pub calls: u64,
    /// Of them, calls the provider reported usage for.
    pub reported: u64,
    /// Σ uncached.
    pub uncached: u64,
    /// Σ cache read (`null` when the log is not caching).
    pub cache_read: Option<u64>,
    /// Σ cache write.
    pub cache_write: u64,
    /// Σ output.
    pub output: u64,
    /// Σ prompt (uncached + cache read + cache write).
    pub prompt: u64,
    /// `Σ cache_read / Σ prompt` (`null` when not caching or nothing was sent).
    pub cache_hit_rate: Option<f64>,
    /// Σ cost of every call with usage, when each is priced (`null` without prices, or when
    /// some call's model has no price: unpriced is never 0).
    pub cost: Option<f64>,
    /// Σ cost of the priced calls alone (`null` without prices, or when none is priced): what
    /// a report states beside `unpriced` when `cost` is `null`.
    pub priced_cost: Option<f64>,
    /// Calls with usage whose model has no price.
    pub unpriced: u64,
}

/// Agent, summarizer and all calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LedgerTotals {
    /// The agent's calls.
    pub agent: Totals,
    /// The summarizer's calls.
    pub summarizer: Totals,
    /// Both.
    pub all: Totals,
}

/// One turn's sums (`turn` null: calls outside any turn, e.g. a `/compact` between turns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TurnLedger {
    /// `data.turn`.
    pub turn: Option<u64>,
    /// Its sums.
    #[serde(flatten)]
    pub totals: LedgerTotals,
}

/// A running sum.
#[derive(Clone, Copy, Debug, Default)]
struct Sum {
    calls: u64,
    reported: u64,
    tokens: Tokens,
    cost: CostSum,
}

impl Sum {
    fn add(&mut self, call: &Call, cost: Option<f64>) {
        self.calls += 1;
        if call.reported {
            self.reported += 1;
            self.tokens.add(&call.tokens);
            self.cost.add(cost);
        }
    }

    fn totals(&self, caching: bool, priced: bool) -> Totals {
        let t = &self.tokens;
        let prompt = t.prompt();
        Totals {
            calls: self.calls,
            reported: self.reported,
            uncached: t.uncached,
            cache_read: caching.then_some(t.cache_read),
            cache_write: t.cache_write,
            output: t.output,
            prompt,
            cache_hit_rate: (caching && prompt > 0).then(|| t.cache_read as f64 / prompt as f64),
            cost: priced.then(|| self.cost.whole()).flatten(),
            priced_cost: priced.then(|| self.cost.priced_part()).flatten(),
            unpriced: if priced {
                self.cost.unpriced_items()
            } else {
                0
            },
        }
    }
}

/// Sums by kind.
#[derive(Clone, Copy, Debug, Default)]
struct KindSums {
    agent: Sum,
    summarizer: Sum,
    all: Sum,
}

impl KindSums {
    fn add(&mut self, call: &Call, cost: Option<f64>) {
        match call.kind {
            CallKind::Agent => self.agent.add(call, cost),
            CallKind::Summarizer => self.summarizer.add(call, cost),
        }
        self.all.add(call, cost);
    }

    fn totals(&self, caching: bool, priced: bool) -> LedgerTotals {
        LedgerTotals {
            agent: self.agent.totals(caching, priced),
            summarizer: self.summarizer.totals(caching, priced),
            all: self.all.totals(caching, priced),
        }
    }
}

/// The ledger per turn (in order of each turn's first call) and for the session. `costs` are
/// parallel to `calls`; `priced` says whether a price table was given.
pub fn sums(
    calls: &[Call],
    costs: &[Option<f64>],
    caching: bool,
    priced: bool,
) -> (Vec<TurnLedger>, LedgerTotals) {
    let mut session = KindSums::default();
    let mut turns: Vec<(Option<u64>, KindSums)> = Vec::new();
    let mut index: KeyMap<Option<u64>, usize> = KeyMap::default();
    for (call, &cost) in calls.iter().zip(costs) {
        session.add(call, cost);
        let k = *index.entry(call.turn).or_insert_with(|| {
            turns.push((call.turn, KindSums::default()));
            turns.len() - 1
        });
        turns[k].1.add(call, cost);
    }
    let turns = turns
        .iter()
        .map(|(turn, s)| TurnLedger {
            turn: *turn,
            totals: s.totals(caching, priced),
        })
        .collect();
    (turns, session.totals(caching, priced))
}
