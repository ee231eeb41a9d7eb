//! `cost DIR` (docs/export.md): the ledger of every session under a folder, in parallel, one
//! row per session — calls, prompt, cache read and hit rate, output, compactions with the
//! cache they broke and the prompt they saved, and with `--prices` the cost and compaction's
//! balance — and the fleet's totals. `--json`: `{"sessions": [{"file", …, "totals"}],
//! "totals"}`, each session's fields those of its `cost FILE --json`; `--csv`: one row per
//! session. Exit as `check DIR`: 1 when any session cannot be read, 2 only when none can be.

use std::io::Write as _;

use serde::Serialize;
use serde_json::json;

use super::cost_row::CostRow;
use super::ledger_sums::LedgerSums;
use super::sessions::{Fleet, each_session};
use super::table::table;
use crate::cost::PriceOptions;
use crate::cost::requests::resent_line;
use crate::csv_out::Cell;
use crate::dir::plural;
use crate::load::write_context;
use crate::{EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, Input, print_json};
use surface_analysis::cost::{BreakTotals, Cause, money, money_or_unpriced, signed_money};

/// Unpriced sessions the summary line names before it only counts the rest.
const UNPRICED_NAMED: usize = 10;

/// The `--csv` columns, in order.
pub const CSV_COLUMNS: [&str; 29] = [
    "file",
    "session",
    "error",
    "agent_calls",
    "summarizer_calls",
    "uncached",
    "cache_read",
    "cache_write",
    "output",
    "prompt",
    "cache_hit_rate",
    "cost",
    "compactions",
    "summaries",
    "prunes",
    "summarizer_tokens",
    "prompt_saved",
    "cache_lost",
    "balance",
    "resent_tokens",
    "resent_model",
    "resent_system",
    "resent_tools",
    "resent_replace",
    "resent_edit",
    "resent_insert",
    "resent_none",
    "provider_miss",
    "resent_cost",
];

/// The fleet's totals: sessions, and their ledgers summed.
#[derive(Debug, Default, Serialize)]
struct CostFleetTotals {
    sessions: usize,
    unreadable: usize,
    skipped: usize,
    /// The sessions left out of the cost (each row's `file`, with its session id when named).
    unpriced_files: Vec<String>,
    #[serde(flatten)]
    ledger: LedgerSums,
    #[serde(flatten)]
    cache_misses: BreakTotals,
}

/// Runs `cost DIR` (`json` / `csv`: the output's form).
pub fn run(
    input: &Input,
    (json, csv): (bool, bool),
    options: &PriceOptions,
    jobs: Option<usize>,
) -> anyhow::Result<u8> {
    let prices = options.read()?;
    let fleet = each_session(input, jobs, "cost", |log| {
        Ok(CostRow::of(log, prices.as_ref()))
    })?;
    let mut totals = CostFleetTotals {
        unreadable: fleet.unreadable(),
        skipped: fleet.skipped(),
        ..CostFleetTotals::default()
    };
    for (r, row) in fleet.rows.iter().filter_map(|r| Some((r, r.done()?))) {
        totals.sessions += 1;
        totals.ledger.add(&row.ledger);
        (totals.cache_misses).add(&row.cache_misses, prices.is_some());
        if row.ledger.currency.is_some() && row.ledger.totals.all.cost.is_none() {
            totals.unpriced_files.push(r.label());
        }
    }
    if json {
        print_json(&json!({
            "root": input.file,
            "prices": options.prices,
            "sessions": fleet.sessions_json()?,
            "totals": totals,
            "notes": fleet.notes,
        }))?;
    } else {
        let text = if csv {
            fleet.csv(&CSV_COLUMNS, cost_cells)?
        } else {
            human(input, &fleet, &totals).into_bytes()
        };
        let mut out = std::io::stdout().lock();
        write_context(out.write_all(&text))?;
        write_context(out.flush())?;
    }
    Ok(if totals.sessions == 0 {
        EXIT_UNREADABLE
    } else if totals.unreadable > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map_or_else(|| "–".to_string(), |x| x.to_string())
}

fn percent(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_string(), |r| format!("{:.1}%", r * 100.0))
}

fn opt_signed(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_string(), signed_money)
}

/// A read session's cells of the table.
fn session_cells(label: String, row: &CostRow, priced: bool) -> Vec<String> {
    let l = &row.ledger;
    let (s, c) = (&l.totals, &l.compaction_totals);
    let mut cells = vec![
        label,
        s.agent.calls.to_string(),
        s.summarizer.calls.to_string(),
        s.all.prompt.to_string(),
        opt(s.all.cache_read),
        percent(s.all.cache_hit_rate),
        s.all.output.to_string(),
        c.summaries.to_string(),
        c.prunes.to_string(),
        opt(c.cache_lost),
        opt(row.cache_misses.resent_tokens),
        c.prompt_saved.to_string(),
    ];
    if priced {
        cells.extend([money_or_unpriced(s.all.cost, priced), opt_signed(c.balance)]);
    }
    cells
}

fn human(input: &Input, fleet: &Fleet<CostRow>, t: &CostFleetTotals) -> String {
    let priced = t.ledger.currency.is_some();
    let mut header = vec![
        "session",
        "agent",
        "summ",
        "prompt",
        "cache read",
        "hit rate",
        "output",
        "summaries",
        "prunes",
        "cache lost",
        "resent",
        "prompt saved",
    ];
    if priced {
        header.extend(["cost", "balance"]);
    }
    let mut rows = Vec::new();
    let mut errors = String::new();
    for r in &fleet.rows {
        let Some(row) = r.done() else {
            errors.push_str(&r.error_line());
            continue;
        };
        rows.push(session_cells(r.label(), row, priced));
    }
    let l = &t.ledger;
    let mut total = vec![
        "total".to_string(),
        l.agent_calls.to_string(),
        l.summarizer_calls.to_string(),
        l.prompt.to_string(),
        opt(l.cache_read),
        percent(l.cache_hit_rate),
        l.output.to_string(),
        l.summaries.to_string(),
        l.prunes.to_string(),
        opt(l.cache_lost),
        opt(t.cache_misses.resent_tokens),
        l.prompt_saved.to_string(),
    ];
    if priced {
        total.extend([
            money_or_unpriced(l.cost, priced),
            opt_signed(l.compaction_balance),
        ]);
    }
    rows.push(total);
    let mut out = table(&header, &rows);
    out.push_str(&errors);
    let mut extra = Vec::new();
    if t.unreadable > 0 {
        extra.push(format!("{} unreadable", t.unreadable));
    }
    if t.skipped > 0 {
        extra.push(format!("{} skipped", t.skipped));
    }
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" ({})", extra.join(", "))
    };
    if let Some(line) = resent_line(&t.cache_misses, l.currency.as_deref()) {
        out.push_str(&format!(
            "why the cache missed, over the caching sessions: {line}\n"
        ));
    }
    let money_line = money_line(t);
    out.push_str(&format!(
        "{} under {}{extra}: {} agent and {} summarizer calls, {} prompt tokens; {} summaries and {} prunes saved {} prompt tokens{}{money_line}\n",
        plural(t.sessions, "session"),
        input.file.display(),
        l.agent_calls,
        l.summarizer_calls,
        l.prompt,
        l.summaries,
        l.prunes,
        l.prompt_saved,
        l.cache_lost
            .map_or(String::new(), |c| format!(" and broke {c} tokens of cache")),
    ));
    out
}

/// The summary line's money: the fleet's cost and balance, or when some sessions are
/// unpriced the priced ones' sum, over how many, and which sessions and models are left out.
fn money_line(t: &CostFleetTotals) -> String {
    let l = &t.ledger;
    let Some(cur) = &l.currency else {
        return String::new();
    };
    let Some(cost) = l.cost else {
        let part = match l.priced_cost {
            Some(c) => format!(
                "{} {cur} over {} of {}",
                money(c),
                l.priced_sessions,
                plural(t.sessions, "session")
            ),
            None => format!("unpriced: no session of {} priced", t.sessions),
        };
        let mut named: Vec<&str> = (t.unpriced_files.iter())
            .take(UNPRICED_NAMED)
            .map(String::as_str)
            .collect();
        let more = t.unpriced_files.len().saturating_sub(UNPRICED_NAMED);
        let more = format!("and {more} more");
        if t.unpriced_files.len() > UNPRICED_NAMED {
            named.push(&more);
        }
        return format!(
            "; cost {part}; {} unpriced (no price for {}): {}",
            l.unpriced_sessions,
            l.unpriced_models.join(", "),
            named.join(", ")
        );
    };
    match l.compaction_balance {
        Some(b) => format!(
            "; cost {} {cur}, compaction's balance {} {cur}",
            money(cost),
            money(b)
        ),
        None => format!("; cost {} {cur}", money(cost)),
    }
}

/// A read session's cells of `cost DIR --csv`, after its file, session and error.
fn cost_cells(row: &CostRow) -> Vec<Cell<'_>> {
    let (l, m) = (&row.ledger, &row.cache_misses);
    let (s, c) = (&l.totals.all, &l.compaction_totals);
    let by_cause = m.resent_by_cause.as_ref();
    let mut cells = vec![
        l.totals.agent.calls.into(),
        l.totals.summarizer.calls.into(),
        s.uncached.into(),
        s.cache_read.into(),
        s.cache_write.into(),
        s.output.into(),
        s.prompt.into(),
        s.cache_hit_rate.into(),
        s.cost.into(),
        c.compactions.into(),
        c.summaries.into(),
        c.prunes.into(),
        c.summarizer_tokens.into(),
        c.prompt_saved.into(),
        c.cache_lost.into(),
        c.balance.into(),
        m.resent_tokens.into(),
    ];
    cells.extend(
        (Cause::ALL.iter()).map(|k| Cell::from(by_cause.and_then(|b| b.get(k.as_str()).copied()))),
    );
    cells.push(m.provider_miss.into());
    cells.push(m.costs.resent_cost.into());
    cells
}
