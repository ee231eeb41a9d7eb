//! The session ledger (docs/cost.md), assembled from its parts — the calls, the compactions
//! and the replaces — so that the log's own ledger ([`super::ledger_of`]) and a hypothetical
//! one (a what-if replay's made-up calls and compactions) are weighed by the same code.

use serde::Serialize;

use super::balance::{Balance, BalanceInput, Pricing, balance};
use super::cache::{Gap, charged, gap_at, noise};
use super::calls::{Call, CallKind, Route, Routes};
use super::compactions::{CompactionFacts, calls_seeing};
use super::figures::{CompactionCost, CompactionTotals, SummarizerFigures};
use super::money::round_money;
use super::prices::PriceTable;
use super::totals::{LedgerTotals, TurnLedger, sums};
use crate::audit::ReplaceKind;

/// What a ledger is built from.
#[derive(Clone, Debug, Default)]
pub struct LedgerParts {
    /// Every call, agent and summarizer, in log order.
    pub calls: Vec<Call>,
    /// The routes the calls name.
    pub routes: Routes,
    /// The compactions, in log order (a summary names its call by index into `calls`).
    pub compactions: Vec<CompactionFacts>,
    /// The event index of every applied replace, ascending (any kind: each changes the prompt,
    /// so no cache-noise pair spans one).
    pub replaces: Vec<usize>,
}

/// A route and the price key that matched it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PricedRoute {
    /// Provider and model.
    #[serde(flatten)]
    pub route: Route,
    /// The price file's key that priced it (`null`: none matched, or no price file).
    pub price_key: Option<String>,
}

/// A call and its cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PricedCall {
    /// The call.
    #[serde(flatten)]
    pub call: Call,
    /// Its prompt.
    pub prompt: u64,
    /// Its cost (`null` without usage or without a price for its model).
    pub cost: Option<f64>,
}

/// The session ledger.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ledger {
    /// Some agent call read from the cache: cache figures are shown (else `null`).
    pub caching: bool,
    /// The median cache noise over consecutive calls with no replace between them.
    pub cache_noise_median: Option<u64>,
    /// How many call pairs the noise median is over.
    pub cache_noise_pairs: usize,
    /// The price file's currency (`null`: no price file).
    pub currency: Option<String>,
    /// The price file's `per`.
    pub per: Option<f64>,
    /// The routes calls name (`route` in a call is an index into this).
    pub routes: Vec<PricedRoute>,
    /// With a price file, the models of the calls with usage it has no price for
    /// ([`Route::label`], in route order): what leaves the session's cost `null`.
    pub unpriced_models: Vec<String>,
    /// Every call, in log order.
    pub calls: Vec<PricedCall>,
    /// Every compaction, in log order.
    pub compactions: Vec<CompactionCost>,
    /// Sums per turn.
    pub turns: Vec<TurnLedger>,
    /// Sums for the session.
    pub totals: LedgerTotals,
    /// What compaction cost and saved, all together.
    pub compaction_totals: CompactionTotals,
}

impl Ledger {
    /// Weighs `parts`, priced by `prices` when given.
    pub fn build(parts: &LedgerParts, prices: Option<&PriceTable>) -> Ledger {
        let (agents, caching) = agents_and_caching(parts);
        let pricing = prices.map(|t| Pricing::new(t, &parts.routes.list));
        let costs: Vec<Option<f64>> = parts
            .calls
            .iter()
            .map(|c| pricing.as_ref().and_then(|p| p.cost(c)))
            .collect();
        let (pairs, median) = if caching {
            let (samples, median) = noise(&agents, &parts.replaces);
            (samples.len(), median)
        } else {
            (0, None)
        };
        let compactions = weigh(parts, &agents, caching, pricing.as_ref(), &costs);
        let (turns, totals) = sums(&parts.calls, &costs, caching, pricing.is_some());
        let compaction_totals = compaction_totals(parts, &compactions, &costs, caching, prices);
        let unpriced_models = pricing
            .as_ref()
            .map_or_else(Vec::new, |p| unpriced_models(parts, p));
        Ledger {
            caching,
            cache_noise_median: median,
            cache_noise_pairs: pairs,
            currency: prices.map(|t| t.currency.clone()),
            per: prices.map(|t| t.per),
            routes: parts
                .routes
                .list
                .iter()
                .enumerate()
                .map(|(k, r)| PricedRoute {
                    route: r.clone(),
                    price_key: pricing
                        .as_ref()
                        .and_then(|p| p.routes.get(k)?.as_ref())
                        .map(|(key, _)| key.clone()),
                })
                .collect(),
            unpriced_models,
            calls: parts
                .calls
                .iter()
                .zip(&costs)
                .map(|(c, &cost)| PricedCall {
                    call: *c,
                    prompt: c.tokens.prompt(),
                    cost,
                })
                .collect(),
            compactions,
            turns,
            totals,
            compaction_totals,
        }
    }
}

/// The labels of the routes some call with usage took that `pricing` has no price for.
fn unpriced_models(parts: &LedgerParts, pricing: &Pricing<'_>) -> Vec<String> {
    let mut unpriced = vec![false; parts.routes.list.len()];
    for c in parts.calls.iter().filter(|c| c.reported) {
        if pricing.price(c).is_none()
            && let Some(u) = unpriced.get_mut(c.route as usize)
        {
            *u = true;
        }
    }
    parts
        .routes
        .list
        .iter()
        .zip(unpriced)
        .filter(|(_, u)| *u)
        .map(|(r, _)| r.label())
        .collect()
}

/// Which compactions lie between the same two agent calls, and which of them is charged the
/// gap's cache loss (see [`super::cache`]).
pub fn charged_in_gaps(facts: &[CompactionFacts], gaps: &[Gap]) -> Vec<bool> {
    let mut out = vec![false; facts.len()];
    let mut start = 0;
    while start < facts.len() {
        let end = (start..facts.len())
            .find(|&k| gaps[k].next != gaps[start].next)
            .unwrap_or(facts.len());
        let positions: Vec<Option<usize>> = facts[start..end].iter().map(|f| f.position).collect();
        out[start + charged(&positions)] = true;
        start = end;
    }
    out
}

fn weigh(
    parts: &LedgerParts,
    agents: &[Call],
    caching: bool,
    pricing: Option<&Pricing<'_>>,
    costs: &[Option<f64>],
) -> Vec<CompactionCost> {
    let gaps: Vec<Gap> = parts
        .compactions
        .iter()
        .map(|f| gap_at(agents, f.event.get(), caching))
        .collect();
    let charged = charged_in_gaps(&parts.compactions, &gaps);
    let seq_of = |i: Option<usize>| i.and_then(|i| agents.get(i)).map(|c| c.seq);
    parts
        .compactions
        .iter()
        .zip(gaps.iter().zip(charged))
        .map(|(f, (&gap, charged))| {
            let calls_after = calls_seeing(f, agents).count() as u64;
            let saved = f.saved_per_call();
            let cache_lost = gap.lost.map(|l| if charged { l } else { 0 });
            let summarizer_call = f.summarizer.and_then(|i| Some((i, parts.calls.get(i)?)));
            let summarizer =
                summarizer_call
                    .filter(|(_, c)| c.reported)
                    .map(|(i, c)| SummarizerFigures {
                        seq: c.seq,
                        tokens: c.tokens,
                        prompt: c.tokens.prompt(),
                        cost: costs.get(i).copied().flatten(),
                    });
            let balance_parts: Option<Balance> = pricing.and_then(|p| {
                let input = BalanceInput {
                    caching,
                    summarizer: (f.kind == ReplaceKind::Summary)
                        .then(|| summarizer_call.map(|(_, c)| c)),
                    gap,
                    cache_lost,
                    saved_per_call: saved,
                };
                balance(p, &input, agents, calls_seeing(f, agents))
            });
            CompactionCost {
                seq: f.seq,
                kind: f.kind,
                summarizer,
                saved_per_call: saved,
                calls_after,
                prompt_saved: saved * calls_after as i64,
                cache_lost,
                balance: balance_parts.map(|b| b.total),
                shadowed_tokens: f.shadowed_tokens,
                replacement_tokens: f.replacement_tokens,
                cache_lost_gap: gap.lost,
                charged_cache: charged,
                call_before: seq_of(gap.prev),
                call_after: seq_of(gap.next),
                balance_parts,
                event: f.event,
            }
        })
        .collect()
}

fn compaction_totals(
    parts: &LedgerParts,
    compactions: &[CompactionCost],
    costs: &[Option<f64>],
    caching: bool,
    prices: Option<&PriceTable>,
) -> CompactionTotals {
    let mut attached = vec![false; parts.calls.len()];
    for k in parts.compactions.iter().filter_map(|f| f.summarizer) {
        if let Some(a) = attached.get_mut(k) {
            *a = true;
        }
    }
    let summarizers: Vec<usize> = parts
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == CallKind::Summarizer)
        .map(|(i, _)| i)
        .collect();
    let failed_summaries = summarizers
        .iter()
        .filter(|&&i| !attached[i])
        .map(|&i| parts.calls[i].seq)
        .collect();
    let summarizer_tokens = summarizers
        .iter()
        .map(|&i| parts.calls[i].tokens.prompt() + parts.calls[i].tokens.output)
        .sum();
    let priced = prices.is_some();
    let summarizer_cost = priced
        .then(|| {
            summarizers
                .iter()
                .map(|&i| parts.calls[i].reported.then(|| costs[i]).flatten())
                .sum::<Option<f64>>()
        })
        .flatten()
        .map(round_money);
    let parts_sum = |get: fn(&Balance) -> f64| -> Option<f64> {
        if !priced {
            return None;
        }
        compactions
            .iter()
            .map(|c| c.balance_parts.as_ref().map(get))
            .sum::<Option<f64>>()
            .map(round_money)
    };
    let cache_lost_cost = parts_sum(|b| b.cache_lost);
    let prompt_saved_cost = parts_sum(|b| b.prompt_saved);
    let balance = match (summarizer_cost, cache_lost_cost, prompt_saved_cost) {
        (Some(s), Some(c), Some(p)) => Some(round_money(s + c - p)),
        _ => None,
    };
    CompactionTotals {
        compactions: compactions.len(),
        summaries: count(compactions, ReplaceKind::Summary),
        prunes: count(compactions, ReplaceKind::Prune),
        failed_summaries,
        summarizer_tokens,
        prompt_saved: compactions.iter().map(|c| c.prompt_saved).sum(),
        cache_lost: caching.then(|| compactions.iter().filter_map(|c| c.cache_lost).sum()),
        summarizer_cost,
        cache_lost_cost,
        prompt_saved_cost,
        balance,
    }
}

fn count(compactions: &[CompactionCost], kind: ReplaceKind) -> usize {
    compactions.iter().filter(|c| c.kind == kind).count()
}

/// The agent calls of `parts` in log order, and whether the log is caching (some agent call
/// reported a cache read): what the ledger and the cache-break walk both start from.
pub(crate) fn agents_and_caching(parts: &LedgerParts) -> (Vec<Call>, bool) {
    let agents: Vec<Call> = parts
        .calls
        .iter()
        .filter(|c| c.kind == CallKind::Agent)
        .copied()
        .collect();
    let caching = agents.iter().any(|c| c.reported && c.tokens.cache_read > 0);
    (agents, caching)
}
