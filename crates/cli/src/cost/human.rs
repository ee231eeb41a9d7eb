//! The `cost` report for a reader: what the calls cost per turn and in total, each compaction's
//! three costs and balance, and one line that says what compaction cost and saved.

use std::fmt::Write as _;

use super::CostReport;
use surface_analysis::audit::ReplaceKind;
use surface_analysis::cost::{
    CompactionCost, Ledger, Totals, money, money_or_unpriced, signed_money,
};

/// The human-readable report.
pub fn human(report: &CostReport<'_>) -> String {
    let l = report.ledger;
    let mut out = String::new();
    let (agents, summarizers) = (l.totals.agent.calls, l.totals.summarizer.calls);
    let _ = writeln!(
        out,
        "{}: {agents} agent call{}, {summarizers} summarizer call{}; {}",
        report.file,
        plural(agents),
        plural(summarizers),
        cache_phrase(l)
    );
    match (report.prices, &report.prices_file) {
        (Some(p), Some(file)) => {
            let date = p.date.as_ref().map_or(String::new(), |d| format!(", {d}"));
            let _ = writeln!(
                out,
                "prices: {} per {} tokens from {file}{date}",
                p.currency, p.per
            );
        }
        _ => out.push_str("prices: none (tokens only; --prices FILE for money)\n"),
    }
    if l.calls.is_empty() {
        out.push_str("no model calls\n");
    } else {
        out.push('\n');
        turns(&mut out, l);
    }
    if !l.compactions.is_empty() {
        out.push('\n');
        compactions(&mut out, l);
    }
    let failed = &l.compaction_totals.failed_summaries;
    if !failed.is_empty() {
        let seqs: Vec<String> = failed.iter().map(u64::to_string).collect();
        let _ = writeln!(
            out,
            "summaries that replaced nothing (paid for, saved nothing): seq {}",
            seqs.join(", ")
        );
    }
    out.push('\n');
    out.push_str(&session_line(l));
    out.push('\n');
    out
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn cache_phrase(l: &Ledger) -> String {
    if !l.caching {
        return "no cache reads reported (cache figures are null)".to_string();
    }
    let rate = percent(l.totals.all.cache_hit_rate);
    match l.cache_noise_median {
        Some(m) => format!(
            "cache hit rate {rate}; cache noise median {m} tokens over {} call pair{}",
            l.cache_noise_pairs,
            plural(l.cache_noise_pairs as u64)
        ),
        None => format!("cache hit rate {rate}; no call pair without a compaction for the noise"),
    }
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "–".to_string(), |r| format!("{:.1}%", r * 100.0))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "–".to_string(), |v| v.to_string())
}

fn turns(out: &mut String, l: &Ledger) {
    let _ = writeln!(
        out,
        "{:>6}  {:>5}  {:>4}  {:>10}  {:>10}  {:>11}  {:>8}  {:>10}  {:>8}  {:>10}",
        "turn",
        "agent",
        "summ",
        "uncached",
        "cache read",
        "cache write",
        "output",
        "prompt",
        "hit rate",
        "cost"
    );
    let priced = l.currency.is_some();
    for t in &l.turns {
        let turn = t.turn.map_or_else(|| "–".to_string(), |t| t.to_string());
        let totals = &t.totals;
        row(
            out,
            &turn,
            (&totals.agent, &totals.summarizer, &totals.all),
            priced,
        );
    }
    let s = &l.totals;
    row(out, "total", (&s.agent, &s.summarizer, &s.all), priced);
    if let Some(line) = unpriced_line(l) {
        let _ = writeln!(out, "  {line}");
    }
}

/// What an unknown cost leaves out: the priced part, over how many calls, and the models
/// with no price (`None` when every call is priced, or there are no prices).
fn unpriced_line(l: &Ledger) -> Option<String> {
    let all = &l.totals.all;
    let currency = l.currency.as_deref()?;
    if all.unpriced == 0 {
        return None;
    }
    let part = match all.priced_cost {
        Some(c) => format!(
            "{} {currency} over {} of {} calls",
            money(c),
            all.reported - all.unpriced,
            all.reported
        ),
        None => format!("no call of {} priced", all.reported),
    };
    Some(format!(
        "cost unpriced: {part}; {} unpriced: {}",
        all.unpriced,
        l.unpriced_models.join(", ")
    ))
}

fn row(
    out: &mut String,
    label: &str,
    (agent, summ, all): (&Totals, &Totals, &Totals),
    priced: bool,
) {
    let _ = writeln!(
        out,
        "{:>6}  {:>5}  {:>4}  {:>10}  {:>10}  {:>11}  {:>8}  {:>10}  {:>8}  {:>10}",
        label,
        agent.calls,
        summ.calls,
        all.uncached,
        opt(all.cache_read),
        all.cache_write,
        all.output,
        all.prompt,
        percent(all.cache_hit_rate),
        money_or_unpriced(all.cost, priced)
    );
}

fn compactions(out: &mut String, l: &Ledger) {
    let _ = writeln!(
        out,
        "{:>8}  {:<7}  {:>12}  {:>16}  {:>12}  {:>10}  {:>11}",
        "seq", "kind", "summarizer", "saved/call×calls", "prompt saved", "cache lost", "balance"
    );
    let mut shared = false;
    for c in &l.compactions {
        let summarizer = match (c.kind, &c.summarizer) {
            (_, Some(s)) => format!("{}+{}", s.prompt, s.tokens.output),
            (ReplaceKind::Summary, None) => "unknown".to_string(),
            _ => "–".to_string(),
        };
        let lost = cache_lost(c);
        shared |= lost.ends_with('*');
        let _ = writeln!(
            out,
            "{:>8}  {:<7}  {:>12}  {:>16}  {:>12}  {:>10}  {:>11}",
            c.seq,
            c.kind.as_str(),
            summarizer,
            format!("{} × {}", c.saved_per_call, c.calls_after),
            c.prompt_saved,
            lost,
            c.balance.map_or_else(|| "–".to_string(), signed_money)
        );
    }
    out.push_str("  summarizer = its prompt + output tokens; saved and cache lost in tokens\n");
    if shared {
        out.push_str(
            "  0* = the cache between these two calls was lost once, charged to the compaction that changed the prompt first\n",
        );
    }
}

/// The cache loss charged: `0*` when the gap lost some but another compaction is charged.
fn cache_lost(c: &CompactionCost) -> String {
    match (c.cache_lost, c.cache_lost_gap) {
        (Some(0), Some(gap)) if gap > 0 && !c.charged_cache => "0*".to_string(),
        (lost, _) => opt(lost),
    }
}

/// One line: what compaction cost and saved in this session.
pub fn session_line(l: &Ledger) -> String {
    let t = &l.compaction_totals;
    if t.compactions == 0 && t.failed_summaries.is_empty() {
        return "compaction in this session: none".to_string();
    }
    let failed = match t.failed_summaries.len() {
        0 => String::new(),
        1 => " and 1 summary that replaced nothing".to_string(),
        n => format!(" and {n} summaries that replaced nothing"),
    };
    let lost = t.cache_lost.map_or_else(
        || "no cache to lose".to_string(),
        |n| format!("{n} tokens of cache lost"),
    );
    let verdict = match (t.balance, &l.currency) {
        (Some(b), Some(currency)) => format!(
            "balance {} {currency}: {}",
            signed_money(b),
            if b > 0.0 {
                "compaction cost more than it saved"
            } else {
                "compaction paid for itself"
            }
        ),
        (None, Some(_)) => "balance unknown (a figure it needs is missing or unpriced)".to_string(),
        _ => "no balance without --prices FILE".to_string(),
    };
    format!(
        "compaction in this session: {} summar{}, {} prune{}{failed}: {} summarizer tokens, {lost}, {} prompt tokens saved; {verdict}",
        t.summaries,
        if t.summaries == 1 { "y" } else { "ies" },
        t.prunes,
        plural(t.prunes as u64),
        t.summarizer_tokens,
        t.prompt_saved
    )
}
