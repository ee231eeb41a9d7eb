//! `policy DIR` (docs/export.md): verify or what-if on every session under a folder, in
//! parallel, one row per session — the log's counts (and in what-if mode the what-if's beside
//! them, with their range), disagreements, peak total, the ledgers — and the fleet's totals.
//! `--json`: `{"sessions": [{"file", …, "totals"}], "totals"}`, each session's fields those of
//! its `policy FILE --json`; `--csv`: one row per session. Exit as `check DIR`: 1 when any
//! session disagrees (a what-if: diverges) or cannot be read, 2 only when none can be read.

use std::io::Write as _;

use serde_json::json;

use super::ledger_sums::LedgerSums;
use super::policy_totals::{PolicyFleetTotals, PolicyRow};
use super::sessions::{Fleet, each_session};
use super::table::table;
use crate::csv_out::Cell;
use crate::dir::plural;
use crate::load::write_context;
use crate::policy::{PolicyOptions, policy_of, settings_of};
use crate::{EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, Input, print_json};
use surface_analysis::cost::money_or_unpriced;
use surface_analysis::policy::tune::TuneRow;
use surface_analysis::policy::{CountRange, ReplayMode, Totals};

/// The `--csv` columns, in order.
pub const CSV_COLUMNS: [&str; 27] = [
    "file",
    "session",
    "error",
    "mode",
    "checks",
    "log_fired",
    "fired",
    "fired_min",
    "fired_max",
    "log_prunes",
    "prunes",
    "prunes_min",
    "prunes_max",
    "log_summaries",
    "summaries",
    "summaries_min",
    "summaries_max",
    "near",
    "disagreements",
    "log_peak_total",
    "peak_total",
    "log_agent_prompt",
    "agent_prompt",
    "log_cache_read",
    "cache_read",
    "log_cost",
    "cost",
];

/// Runs `policy DIR`.
pub fn run(input: &Input, options: &PolicyOptions, jobs: Option<usize>) -> anyhow::Result<u8> {
    let settings = settings_of(&options.settings, None)?;
    let prices = options.prices.read()?;
    let fleet = each_session(input, jobs, "policy", |log| {
        Ok(PolicyRow::of(policy_of(log, options, prices.as_ref())?))
    })?;
    let mut totals = PolicyFleetTotals {
        unreadable: fleet.unreadable(),
        skipped: fleet.skipped(),
        what_if_row: options
            .settings
            .what_if
            .then(|| TuneRow::new(Some(settings.get()))),
        ..PolicyFleetTotals::default()
    };
    for row in fleet.rows.iter().filter_map(|r| r.done()) {
        totals.add(row);
    }
    let mode = if options.settings.what_if {
        ReplayMode::WhatIf
    } else {
        ReplayMode::Verify
    };
    if options.json {
        print_json(&json!({
            "root": input.file,
            "mode": mode,
            "prices": options.prices.prices,
            "sessions": fleet.sessions_json()?,
            "totals": totals,
            "notes": fleet.notes,
        }))?;
    } else {
        let text = if options.csv {
            fleet.csv(&CSV_COLUMNS, policy_cells)?
        } else {
            human(input, mode, &fleet, &totals).into_bytes()
        };
        let mut out = std::io::stdout().lock();
        write_context(out.write_all(&text))?;
        write_context(out.flush())?;
    }
    Ok(if totals.sessions == 0 {
        EXIT_UNREADABLE
    } else if totals.unreadable > 0 || totals.differing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// `a → b`, or `a` when they are equal.
fn pair(a: impl ToString, b: impl ToString) -> String {
    let (a, b) = (a.to_string(), b.to_string());
    if a == b { a } else { format!("{a} → {b}") }
}

/// `a → b (min–max)` for a count with a range.
fn ranged(log: usize, r: Option<&CountRange>, replay: usize) -> String {
    let mut text = pair(log, replay);
    if let Some(r) = r.filter(|r| r.min != r.max) {
        text.push_str(&format!(" ({}–{})", r.min, r.max));
    }
    text
}

/// The count cells a session's line and the total line share: checks, fired, summaries and
/// prunes (in a what-if `log → replay (min–max)`, with `ranges`: fired, summaries, prunes and
/// near), then near (what-if) or the disagreements (verify).
fn count_cells(
    (log, replay): (&Totals, &Totals),
    ranges: Option<([&CountRange; 3], usize)>,
    disagreements: usize,
    what_if: bool,
) -> [String; 5] {
    let [fired, summaries, prunes] = ranges.map_or([None; 3], |(r, _)| r.map(Some));
    let count = |log: usize, range: Option<&CountRange>, replay: usize| {
        if what_if {
            ranged(log, range, replay)
        } else {
            log.to_string()
        }
    };
    [
        log.checks.to_string(),
        count(log.fired, fired, replay.fired),
        count(log.summaries, summaries, replay.summaries),
        count(log.prunes, prunes, replay.prunes),
        if what_if {
            ranges.map_or(0, |(_, near)| near).to_string()
        } else {
            disagreements.to_string()
        },
    ]
}

/// A cost cell under a price file: the amount, or `unpriced` (never 0).
fn opt_money(x: Option<f64>) -> String {
    money_or_unpriced(x, true)
}

fn human(
    input: &Input,
    mode: ReplayMode,
    fleet: &Fleet<PolicyRow>,
    t: &PolicyFleetTotals,
) -> String {
    let what_if = mode == ReplayMode::WhatIf;
    let priced = t.ledger.actual.currency.is_some();
    let mut header = vec!["session", "checks", "fired", "summaries", "prunes"];
    header.push(if what_if { "near" } else { "disagree" });
    header.extend(["peak total", "agent prompt", "cache read"]);
    if priced {
        header.push("cost");
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut errors = String::new();
    for r in &fleet.rows {
        let Some(row) = r.done() else {
            errors.push_str(&r.error_line());
            continue;
        };
        let (a, b) = (&row.actual_totals, &row.totals);
        let ranges = row.ranges.as_ref();
        let (la, lw) = (&row.ledger.actual, row.ledger.what_if.as_ref());
        let side = |x: String, y: Option<String>| match y {
            Some(y) if what_if => pair(x, y),
            _ => x,
        };
        let counts = count_cells(
            (a, b),
            ranges.map(|r| ([&r.fired, &r.summaries, &r.prunes], r.near)),
            row.disagreements,
            what_if,
        );
        let mut cells = vec![r.label()];
        cells.extend(counts);
        cells.extend([
            side(a.peak_total.to_string(), Some(b.peak_total.to_string())),
            side(
                la.agent_prompt.to_string(),
                lw.map(|w| w.agent_prompt.to_string()),
            ),
            side(
                la.totals
                    .agent
                    .cache_read
                    .map_or("–".to_string(), |x| x.to_string()),
                lw.map(|w| {
                    w.totals
                        .agent
                        .cache_read
                        .map_or("–".to_string(), |x| x.to_string())
                }),
            ),
        ]);
        if priced {
            cells.push(side(
                opt_money(la.totals.all.cost),
                lw.map(|w| opt_money(w.totals.all.cost)),
            ));
        }
        rows.push(cells);
    }
    rows.push(total_row(t, what_if, priced));
    let mut out = table(&header, &rows);
    out.push_str(&errors);
    out.push_str(&summary_line(input, t, what_if));
    out
}

fn total_row(t: &PolicyFleetTotals, what_if: bool, priced: bool) -> Vec<String> {
    let (a, b) = (&t.log, &t.replay);
    let r = t.ranges.as_ref();
    let (la, lw) = (&t.ledger.actual, t.ledger.what_if.as_ref());
    let cache = |l: &LedgerSums| {
        l.agent_cache_read
            .map_or("–".to_string(), |x| x.to_string())
    };
    let counts = count_cells(
        (a, b),
        r.map(|r| ([&r.fired, &r.summaries, &r.prunes], r.near)),
        t.disagreements,
        what_if,
    );
    let mut cells = vec!["total".to_string()];
    cells.extend(counts);
    cells.extend([
        if what_if {
            pair(a.peak_total, b.peak_total)
        } else {
            a.peak_total.to_string()
        },
        match lw {
            Some(w) if what_if => pair(la.agent_prompt, w.agent_prompt),
            _ => la.agent_prompt.to_string(),
        },
        match lw {
            Some(w) if what_if => pair(cache(la), cache(w)),
            _ => cache(la),
        },
    ]);
    if priced {
        cells.push(match lw {
            Some(w) if what_if => pair(opt_money(la.cost), opt_money(w.cost)),
            _ => opt_money(la.cost),
        });
    }
    cells
}

/// `+12.5 %` from `a` to `b` (`–` from 0).
fn change(a: f64, b: f64) -> String {
    if a == 0.0 {
        return "–".to_string();
    }
    let p = (b - a) / a * 100.0;
    if p.abs() < 0.05 {
        "±0 %".to_string()
    } else {
        format!("{p:+.1} %").replacen('-', "−", 1)
    }
}

fn summary_line(input: &Input, t: &PolicyFleetTotals, what_if: bool) -> String {
    let mut line = format!(
        "{} under {}",
        plural(t.sessions, "session"),
        input.file.display()
    );
    let mut extra = Vec::new();
    if t.unreadable > 0 {
        extra.push(format!("{} unreadable", t.unreadable));
    }
    if t.skipped > 0 {
        extra.push(format!("{} skipped", t.skipped));
    }
    if !extra.is_empty() {
        line.push_str(&format!(" ({})", extra.join(", ")));
    }
    if what_if {
        let (a, b) = (&t.log, &t.replay);
        let mut parts = vec![
            format!("fired {}", change(a.fired as f64, b.fired as f64)),
            format!(
                "summaries {}",
                change(a.summaries as f64, b.summaries as f64)
            ),
            format!("prunes {}", change(a.prunes as f64, b.prunes as f64)),
        ];
        if let Some(w) = &t.ledger.what_if {
            let l = &t.ledger.actual;
            parts.push(format!(
                "agent prompt {}",
                change(l.agent_prompt as f64, w.agent_prompt as f64)
            ));
            if let (Some(x), Some(y)) = (l.cost, w.cost) {
                parts.push(format!("cost {}", change(x, y)));
            }
        }
        line.push_str(&format!(
            ": the what-if against the logs: {}; {} diverge{} (what-if figures after a session's first divergence are estimates: see policy FILE --what-if for what they rest on)\n",
            parts.join(", "),
            t.differing,
            if t.differing == 1 { "s" } else { "" }
        ));
    } else {
        line.push_str(&format!(
            ": {} disagree{} with the policy ({})\n",
            plural(t.differing, "session"),
            if t.differing == 1 { "s" } else { "" },
            plural(t.disagreements, "check"),
        ));
    }
    line
}

/// A read session's cells of `policy DIR --csv`, after its file, session and error.
fn policy_cells(row: &PolicyRow) -> Vec<Cell<'_>> {
    let (a, b) = (&row.actual_totals, &row.totals);
    let ranges = row.ranges.as_ref();
    let end = |get: fn(&CountRange) -> usize,
               which: fn(&surface_analysis::policy::Ranges) -> &CountRange| {
        ranges.map(|r| get(which(r)))
    };
    let mode = match row.mode {
        ReplayMode::Verify => "verify",
        ReplayMode::WhatIf => "what-if",
    };
    let (la, lw) = (&row.ledger.actual, row.ledger.what_if.as_ref());
    vec![
        mode.into(),
        a.checks.into(),
        a.fired.into(),
        b.fired.into(),
        end(|c| c.min, |r| &r.fired).into(),
        end(|c| c.max, |r| &r.fired).into(),
        a.prunes.into(),
        b.prunes.into(),
        end(|c| c.min, |r| &r.prunes).into(),
        end(|c| c.max, |r| &r.prunes).into(),
        a.summaries.into(),
        b.summaries.into(),
        end(|c| c.min, |r| &r.summaries).into(),
        end(|c| c.max, |r| &r.summaries).into(),
        ranges.map(|r| r.near).into(),
        row.disagreements.into(),
        a.peak_total.into(),
        b.peak_total.into(),
        la.agent_prompt.into(),
        lw.map(|w| w.agent_prompt).into(),
        la.totals.agent.cache_read.into(),
        lw.and_then(|w| w.totals.agent.cache_read).into(),
        la.totals.all.cost.into(),
        lw.and_then(|w| w.totals.all.cost).into(),
    ]
}
