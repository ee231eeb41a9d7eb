//! What the cache breaks cost in money (docs/cost.md): every resent token and every
//! provider miss is a token sent at the uncached price that the cache would have sold at its
//! read price, so each is priced `tokens × (uncached − cache_read price)` at its call's route.
//! `null` when the log is not caching, and for a cause or total any of whose tokens fall on a
//! route the price file does not name.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cache_breaks::CacheBreaks;
use super::calls::Routes;
use super::money::round_money;
use super::prices::PriceTable;

/// The breaks' money.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakCosts {
    /// The cost of the resent tokens, by cause (`null`: not caching).
    pub resent_cost_by_cause: Option<BTreeMap<&'static str, Option<f64>>>,
    /// The cost of every resent token.
    pub resent_cost: Option<f64>,
    /// The cost of the provider misses.
    pub provider_miss_cost: Option<f64>,
}

/// Prices `breaks` with `prices`; `routes` are the ledger's.
pub fn break_costs(breaks: &CacheBreaks, routes: &Routes, prices: &PriceTable) -> BreakCosts {
    let Some(by_cause) = &breaks.resent_by_cause else {
        return BreakCosts::default();
    };
    // Per token, what being sent uncached costs over being read from the cache.
    let premium = |route: u32| {
        let r = routes.list.get(route as usize)?;
        let (_, p) = prices.lookup(r.provider.as_deref(), r.model.as_deref())?;
        Some(prices.of(1.0, p.uncached - p.cache_read))
    };
    let mut resent: BTreeMap<&'static str, Option<f64>> =
        by_cause.keys().map(|&k| (k, Some(0.0))).collect();
    let mut missed = Some(0.0);
    for r in &breaks.requests {
        let rate = premium(r.route);
        let add = |sum: &mut Option<f64>, tokens: u64| {
            if tokens > 0 {
                *sum = sum.zip(rate).map(|(s, rate)| s + tokens as f64 * rate);
            }
        };
        if let Some(sum) = resent.get_mut(r.first_change.cause.as_str()) {
            add(sum, r.resent_tokens);
        }
        add(&mut missed, r.provider_miss.unwrap_or_default());
    }
    let total = resent.values().try_fold(0.0, |sum, c| c.map(|c| sum + c));
    BreakCosts {
        resent_cost_by_cause: Some(
            resent
                .into_iter()
                .map(|(k, c)| (k, c.map(round_money)))
                .collect(),
        ),
        resent_cost: total.map(round_money),
        provider_miss_cost: missed.map(round_money),
    }
}
