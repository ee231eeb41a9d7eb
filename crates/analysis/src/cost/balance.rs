//! Money (docs/cost.md): each call costs `Σ tokens × price / per`, and each compaction's
//! **balance** is `summarizer cost + cache_lost × (uncached − cache_read price) − prompt_saved ×
//! cache_read price` — later calls would have read the shadowed tokens from the cache. With a
//! log that is not caching the saved tokens are priced as `uncached` and nothing is lost from a
//! cache. Negative: the compaction paid for itself.
//!
//! The cache loss is priced at the model of the call that re-sent the prompt, the saved tokens
//! at the model of each call that did not send them (calls with reported usage only: a refused
//! or cancelled call shows no bill), the summarizer at its own model.

use serde::Serialize;

use super::cache::Gap;
use super::calls::{Call, Route};
use super::money::round_money;
use super::prices::{ModelPrice, PriceTable};

/// A price table resolved for a session's routes.
#[derive(Clone, Debug)]
pub struct Pricing<'a> {
    /// The table.
    pub table: &'a PriceTable,
    /// Each route's price and the key that gave it (`None`: no key matched).
    pub routes: Vec<Option<(String, ModelPrice)>>,
}

impl<'a> Pricing<'a> {
    /// Resolves `routes` in `table`.
    pub fn new(table: &'a PriceTable, routes: &[Route]) -> Self {
        Pricing {
            table,
            routes: routes
                .iter()
                .map(|r| {
                    table
                        .lookup(r.provider.as_deref(), r.model.as_deref())
                        .map(|(k, p)| (k.to_string(), *p))
                })
                .collect(),
        }
    }

    /// The price of a call's route.
    pub fn price(&self, call: &Call) -> Option<&ModelPrice> {
        self.routes
            .get(call.route as usize)
            .and_then(Option::as_ref)
            .map(|(_, p)| p)
    }

    /// A call's cost: `None` without reported usage or without a price for its model.
    pub fn cost(&self, call: &Call) -> Option<f64> {
        if !call.reported {
            return None;
        }
        Some(round_money(
            self.table.cost(self.price(call)?, &call.tokens),
        ))
    }
}

/// A compaction's balance and its three parts: `total = summarizer + cache_lost − prompt_saved`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Balance {
    /// The balance.
    pub total: f64,
    /// The summarizer call's cost (0 for a prune).
    pub summarizer: f64,
    /// What re-sending the lost cache at the uncached price cost over reading it.
    pub cache_lost: f64,
    /// What the later calls did not pay for the tokens the compaction removed.
    pub prompt_saved: f64,
}

/// What a compaction's balance is computed from.
#[derive(Clone, Copy, Debug)]
pub struct BalanceInput<'c> {
    /// The log is caching.
    pub caching: bool,
    /// The summarizer call: `Some(None)` for a summary whose call is unknown, `None` for a
    /// prune.
    pub summarizer: Option<Option<&'c Call>>,
    /// The gap it lies in and the loss charged to it.
    pub gap: Gap,
    /// The cache loss charged to it (`None`: nothing to charge).
    pub cache_lost: Option<u64>,
    /// Meter tokens saved per later call.
    pub saved_per_call: i64,
}

/// The balance, or `None` when some figure it needs is unknown or unpriced. `agents` are the
/// agent calls; `seen` those that had the replacement in their prompt.
pub fn balance<'c>(
    pricing: &Pricing<'_>,
    input: &BalanceInput<'c>,
    agents: &[Call],
    seen: impl Iterator<Item = &'c Call>,
) -> Option<Balance> {
    let per = pricing.table.per;
    let summarizer = match input.summarizer {
        None => 0.0,
        Some(call) => pricing.cost(call?)?,
    };
    let cache_lost = match (input.caching, input.cache_lost) {
        (false, _) => 0.0,
        _ if input.gap.unknown => return None,
        (true, None) => 0.0,
        (true, Some(lost)) => {
            let next = agents.get(input.gap.next?)?;
            let p = pricing.price(next)?;
            lost as f64 * (p.uncached - p.cache_read) / per
        }
    };
    let mut prompt_saved = 0.0;
    // A call the provider reported no usage for (refused, cancelled) shows no bill to save on.
    for call in seen.filter(|c| c.reported) {
        let p = pricing.price(call)?;
        let unit = if input.caching {
            p.cache_read
        } else {
            p.uncached
        };
        prompt_saved += input.saved_per_call as f64 * unit / per;
    }
    Some(Balance {
        total: round_money(summarizer + cache_lost - prompt_saved),
        summarizer,
        cache_lost: round_money(cache_lost),
        prompt_saved: round_money(prompt_saved),
    })
}
