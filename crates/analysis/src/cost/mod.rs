//! What context costs (docs/cost.md): the model calls a session paid for (agent and
//! summarizer, with their uncached / cache read / cache write / output tokens), the ledger per
//! turn and in total with the cache hit rate, and for every compaction its three costs — the
//! summarizer's call, the prompt cache it broke, and against those the smaller prompt of every
//! later call — with, given a price file, its **balance** in money.
//!
//! One pass over the log's compaction events (the audit's bracket scan) plus lookups into the
//! meter's steps and anchors: the ledger reuses what the meter already read.

mod balance;
mod break_costs;
mod break_totals;
mod cache;
mod cache_breaks;
mod calls;
mod compactions;
mod cost_sum;
mod figures;
mod first_change;
mod ledger;
mod money;
mod prices;
mod request_shape;
mod summary;
mod tokens;
mod totals;

#[cfg(test)]
mod cache_breaks_tests;
#[cfg(test)]
pub(crate) mod tests;

pub use balance::{Balance, BalanceInput, Pricing, balance};
pub use break_costs::{BreakCosts, break_costs};
pub use break_totals::BreakTotals;
pub use cache::{Gap, charged, gap_at, lost_between, median, noise};
pub use cache_breaks::{CacheBreaks, RequestChange, cache_breaks};
pub use calls::{Call, CallKind, Route, Routes, agent_calls, summarizer_calls};
pub use compactions::{CompactionFacts, calls_seeing, compaction_facts, fill_positions};
pub use cost_sum::CostSum;
pub use figures::{CompactionCost, CompactionTotals, SummarizerFigures};
pub use first_change::{Block, Cause, FirstChange, Position};
pub use ledger::{Ledger, LedgerParts, PricedCall, PricedRoute, charged_in_gaps};
pub use money::{MONEY_DIGITS, UNPRICED, money, money_or_unpriced, round_money, signed_money};
pub use prices::{ANY_MODEL, DEFAULT_PER, ModelPrice, PriceError, PriceTable};
pub use request_shape::{RequestShape, ShapeInputs};
pub use summary::LedgerSummary;
pub use tokens::Tokens;
pub use totals::{LedgerTotals, Totals, TurnLedger};

use surface_engine::compactions::{Scan, scan_compactions};
use surface_engine::{EventLog, Meter, Surface};

/// The ledger of `log`. `surface` must be processed to the end (its cursor does not matter)
/// and `meter` built from it; `prices` turns tokens into money.
pub fn ledger_of(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    prices: Option<&PriceTable>,
) -> Ledger {
    Ledger::build(&parts_of(log, surface, meter), prices)
}

/// The parts of `log`'s ledger: its calls, compactions and replaces.
pub fn parts_of(log: &EventLog, surface: &Surface, meter: &Meter) -> LedgerParts {
    parts_with(log, surface, meter, &scan_compactions(log, false))
}

/// [`parts_of`], with the log's compaction brackets already scanned
/// (`compactions::scan_compactions(log, false)`, which needs neither the surface nor the meter, so
/// a caller may scan while they are built).
pub fn parts_with(log: &EventLog, surface: &Surface, meter: &Meter, scan: &Scan) -> LedgerParts {
    let mut routes = Routes::default();
    let agents = agent_calls(log, meter, &mut routes);
    let summarizers = summarizer_calls(log, meter, scan, &mut routes);
    // Both lists are in log order: merge them, noting where each bracket's call went.
    let mut calls = Vec::with_capacity(agents.len() + summarizers.len());
    let mut bracket_call = vec![None; scan.brackets.len()];
    let mut rest = summarizers.iter().peekable();
    for agent in &agents {
        while let Some((k, s)) = rest.next_if(|(_, s)| s.event < agent.event) {
            bracket_call[*k] = Some(calls.len());
            calls.push(*s);
        }
        calls.push(*agent);
    }
    for (k, s) in rest {
        bracket_call[*k] = Some(calls.len());
        calls.push(*s);
    }
    let mut compactions = compaction_facts(log, surface, meter, scan, |k| {
        bracket_call.get(k).copied().flatten()
    });
    // Positions decide which of several compactions between the same two calls broke the
    // cache; a lone one needs none.
    let next: Vec<usize> = compactions
        .iter()
        .map(|f| agents.partition_point(|c| c.cursor <= f.event.get()))
        .collect();
    let shared: Vec<usize> = (0..next.len())
        .filter(|&k| {
            (k > 0 && next[k - 1] == next[k]) || next.get(k + 1).is_some_and(|&n| n == next[k])
        })
        .collect();
    fill_positions(surface, &mut compactions, &shared);
    let mut replaces: Vec<usize> = surface
        .applied_replaces()
        .iter()
        .map(|r| r.by.get())
        .collect();
    replaces.sort_unstable();
    LedgerParts {
        calls,
        routes,
        compactions,
        replaces,
    }
}
