//! A session's cache breaks summed (docs/cost.md#why-the-cache-missed): the resent tokens by
//! cause, the provider misses and, with a price file, their money — what `cost --requests`,
//! `cost DIR` and `compare` print beside (or instead of) the per-request list. A fleet's totals
//! are the sessions' totals added: tokens over the sessions that report cache reads (`null`
//! when none does), money only when every such session is priced (`null` otherwise, never 0).

use std::collections::BTreeMap;

use serde::Serialize;

use super::break_costs::{BreakCosts, break_costs};
use super::cache_breaks::CacheBreaks;
use super::calls::Routes;
use super::money::round_money;
use super::prices::PriceTable;

/// The breaks of one session, or of many, summed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakTotals {
    /// Σ resent tokens (`null`: no session reports cache reads).
    pub resent_tokens: Option<u64>,
    /// Σ resent tokens by cause, every cause named (`null` as `resent_tokens`).
    pub resent_by_cause: Option<BTreeMap<&'static str, u64>>,
    /// Σ provider misses beyond the cache noise (`null` as `resent_tokens`).
    pub provider_miss: Option<u64>,
    /// Their money, with a price file.
    #[serde(flatten)]
    pub costs: BreakCosts,
}

impl BreakTotals {
    /// The totals of one session's `breaks`, priced by `prices` at the ledger's `routes`.
    pub fn of(breaks: &CacheBreaks, routes: &Routes, prices: Option<&PriceTable>) -> Self {
        BreakTotals {
            resent_tokens: breaks.resent_tokens,
            resent_by_cause: breaks.resent_by_cause.clone(),
            provider_miss: breaks.provider_miss,
            costs: prices.map_or_else(BreakCosts::default, |p| break_costs(breaks, routes, p)),
        }
    }

    /// Adds another session's totals; `priced` says whether the fleet has a price file.
    pub fn add(&mut self, other: &BreakTotals, priced: bool) {
        let Some(tokens) = other.resent_tokens else {
            // Not caching: it breaks nothing this measure can see, and leaves the money whole.
            return;
        };
        let first = self.resent_tokens.is_none();
        self.resent_tokens = Some(self.resent_tokens.unwrap_or_default() + tokens);
        self.provider_miss =
            Some(self.provider_miss.unwrap_or_default() + other.provider_miss.unwrap_or_default());
        let by_cause = self.resent_by_cause.get_or_insert_with(BTreeMap::new);
        for (&cause, &t) in other.resent_by_cause.iter().flatten() {
            *by_cause.entry(cause).or_default() += t;
        }
        if priced {
            self.add_costs(&other.costs, first);
        }
    }

    fn add_costs(&mut self, other: &BreakCosts, first: bool) {
        let sum = |a: Option<f64>, b: Option<f64>| {
            if first {
                b
            } else {
                a.zip(b).map(|(a, b)| round_money(a + b))
            }
        };
        let costs = &mut self.costs;
        costs.resent_cost = sum(costs.resent_cost, other.resent_cost);
        costs.provider_miss_cost = sum(costs.provider_miss_cost, other.provider_miss_cost);
        let theirs = other.resent_cost_by_cause.as_ref();
        let mine = costs.resent_cost_by_cause.get_or_insert_with(BTreeMap::new);
        for (&cause, &c) in theirs.into_iter().flatten() {
            let slot = mine
                .entry(cause)
                .or_insert(if first { Some(0.0) } else { None });
            *slot = slot.zip(c).map(|(a, b)| round_money(a + b));
        }
        if !first {
            // A cause this session does not price (it has no entry) leaves the sum unknown.
            for (cause, slot) in mine.iter_mut() {
                if theirs.is_none_or(|t| !t.contains_key(cause)) {
                    *slot = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(resent: Option<u64>, cost: Option<f64>) -> BreakTotals {
        BreakTotals {
            resent_tokens: resent,
            resent_by_cause: resent.map(|r| BTreeMap::from([("replace", r), ("system", 0)])),
            provider_miss: resent.map(|_| 5),
            costs: BreakCosts {
                resent_cost_by_cause: cost.map(|c| BTreeMap::from([("replace", Some(c))])),
                resent_cost: cost,
                provider_miss_cost: cost.map(|_| 0.5),
            },
        }
    }

    #[test]
    fn a_fleet_sums_the_caching_sessions_and_keeps_money_only_when_all_are_priced() {
        let mut fleet = BreakTotals::default();
        fleet.add(&session(Some(100), Some(1.0)), true);
        fleet.add(&session(None, None), true);
        fleet.add(&session(Some(50), Some(2.0)), true);
        assert_eq!(fleet.resent_tokens, Some(150));
        assert_eq!(fleet.provider_miss, Some(10));
        assert_eq!(fleet.resent_by_cause.as_ref().unwrap()["replace"], 150);
        assert_eq!(fleet.costs.resent_cost, Some(3.0));
        assert_eq!(
            fleet.costs.resent_cost_by_cause.as_ref().unwrap()["replace"],
            Some(3.0)
        );
        fleet.add(&session(Some(10), None), true);
        assert_eq!(fleet.resent_tokens, Some(160));
        assert_eq!(
            fleet.costs.resent_cost, None,
            "one unpriced session: unpriced, not 0"
        );
        assert_eq!(fleet.costs.resent_cost_by_cause.unwrap()["replace"], None);
    }

    #[test]
    fn a_fleet_of_sessions_without_cache_figures_is_null_not_zero() {
        let mut fleet = BreakTotals::default();
        fleet.add(&session(None, None), true);
        assert_eq!(fleet, BreakTotals::default());
        assert_eq!(fleet.resent_tokens, None);
    }

    #[test]
    fn without_a_price_file_no_money_is_summed() {
        let mut fleet = BreakTotals::default();
        fleet.add(&session(Some(7), None), false);
        assert_eq!(fleet.resent_tokens, Some(7));
        assert_eq!(fleet.costs, BreakCosts::default());
    }
}
