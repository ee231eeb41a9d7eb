//! The readable `policy` report: the settings used and inferred, one line per check that fired
//! or disagreed, the first divergence, the totals of the log and of the replay side by side
//! (a what-if's counts with their range), and the ledgers — a what-if's labelled as the
//! estimate it is, with the figures it rests on.

use std::fmt::Write as _;

use super::{Ledgers, PolicyRun};
use surface_analysis::cost::LedgerSummary;
use surface_analysis::cost::{money, money_or_unpriced};
use surface_analysis::policy::{
    CANT_JUDGE_NO_WINDOW, CheckVerdict, CountRange, EstimateBasis, Inferred, Ranges, ReplayMode,
    SettingsShown, Totals, four_digits,
};

/// The report as text.
pub fn human(file: &str, run: &PolicyRun) -> String {
    let report = &run.report;
    let mut out = String::new();
    let mode = match report.mode {
        ReplayMode::Verify => "verify",
        ReplayMode::WhatIf => "what-if",
    };
    let fired = report
        .checks
        .iter()
        .filter(|c| !c.pruned.is_empty() || !c.summaries.is_empty())
        .count();
    let window = report.window.map_or_else(
        || "no context window".to_string(),
        |w| format!("window {w}"),
    );
    let unjudged = report.checks.iter().filter(|c| c.cant_judge()).count();
    let unjudged = if unjudged > 0 {
        format!(", {unjudged} {CANT_JUDGE_NO_WINDOW}")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{file}: {mode}, {} checks ({fired} fire), {window}, {} disagree{unjudged}",
        report.checks.len(),
        report.disagreements()
    );
    let _ = writeln!(
        out,
        "  settings: {}",
        settings(&report.settings, report.window)
    );
    let _ = writeln!(out, "  inferred: {}", inferred(&report.inferred));
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    let shown: Vec<&CheckVerdict> = report
        .checks
        .iter()
        .filter(|c| {
            !c.pruned.is_empty()
                || !c.summaries.is_empty()
                || c.agrees == Some(false)
                || c.note.is_some()
        })
        .collect();
    if shown.is_empty() {
        let _ = writeln!(out, "  no check fires or disagrees");
    } else {
        let _ = writeln!(
            out,
            "  {:>7}  {:>9}  {:<8}  {:>15}  {:<11}  {:<6}  decision",
            "seq", "turn.step", "trigger", "total / thresh", "outcome", "agrees"
        );
        for c in shown {
            let _ = writeln!(out, "  {}", check_line(c));
        }
    }
    match &report.first_divergence {
        Some(d) => {
            let _ = writeln!(
                out,
                "  first divergence: seq {} — {}",
                d.step_start_seq, d.why
            );
        }
        None => {
            let _ = writeln!(out, "  first divergence: none");
        }
    }
    let ours = match report.mode {
        ReplayMode::Verify => "policy",
        ReplayMode::WhatIf => "what-if",
    };
    let _ = writeln!(out, "  {:<24} {:>10} {:>10}", "totals", "log", ours);
    for (label, a, b) in totals_rows(&report.actual_totals, &report.totals) {
        let range = run
            .ranges
            .as_ref()
            .and_then(|r| range_of(r, label))
            .filter(|r| r.min != r.max)
            .map_or(String::new(), |r| format!("  ({}–{})", r.min, r.max));
        let _ = writeln!(out, "  {label:<24} {a:>10} {b:>10}{range}");
    }
    ledgers(&mut out, &run.ledger, report.mode);
    if let Some(basis) = &run.estimate {
        estimate(&mut out, basis, run.ranges.as_ref());
    }
    out
}

/// The range of a totals row that has one.
fn range_of(r: &Ranges, label: &str) -> Option<CountRange> {
    match label {
        "fired" => Some(r.fired),
        "prunes" => Some(r.prunes),
        "summaries" => Some(r.summaries),
        _ => None,
    }
}

/// The ledgers side by side (verify: the log's alone).
fn ledgers(out: &mut String, l: &Ledgers, mode: ReplayMode) {
    let what_if = l.what_if.as_ref().filter(|_| mode == ReplayMode::WhatIf);
    let currency = l.actual.currency.as_deref().unwrap_or("");
    match what_if {
        Some(_) => {
            let _ = writeln!(out, "  {:<24} {:>10} {:>10}", "ledger", "log", "what-if ~");
        }
        None => {
            let _ = writeln!(out, "  {:<24} {:>10}", "ledger", "log");
        }
    }
    for (label, get) in ledger_rows() {
        let a = get(&l.actual);
        let Some(a) = a else { continue };
        match what_if {
            Some(w) => {
                let b = get(w).unwrap_or_else(|| "–".to_string());
                let _ = writeln!(out, "  {label:<24} {a:>10} {b:>10}");
            }
            None => {
                let _ = writeln!(out, "  {label:<24} {a:>10}");
            }
        }
    }
    if !currency.is_empty() {
        let _ = writeln!(out, "  (money in {currency})");
    }
}

type Row = (&'static str, fn(&LedgerSummary) -> Option<String>);

fn ledger_rows() -> [Row; 11] {
    fn n(x: u64) -> Option<String> {
        Some(x.to_string())
    }
    [
        ("agent calls", |l| n(l.totals.agent.calls)),
        ("agent prompt", |l| n(l.agent_prompt)),
        ("agent cache read", |l| {
            l.totals.agent.cache_read.map(|x| x.to_string())
        }),
        ("agent output", |l| n(l.totals.agent.output)),
        ("summarizer calls", |l| n(l.totals.summarizer.calls)),
        ("summarizer tokens", |l| {
            n(l.compaction_totals.summarizer_tokens)
        }),
        ("cache lost", |l| {
            l.compaction_totals.cache_lost.map(|x| x.to_string())
        }),
        ("prompt saved", |l| {
            Some(l.compaction_totals.prompt_saved.to_string())
        }),
        ("cache hit rate", |l| {
            l.totals
                .all
                .cache_hit_rate
                .map(|r| format!("{:.1}%", r * 100.0))
        }),
        ("cost", |l| {
            l.currency.as_ref()?;
            Some(money_or_unpriced(l.totals.all.cost, true))
        }),
        ("compaction balance", |l| {
            l.currency.as_ref()?;
            Some(l.compaction_totals.balance.map_or("–".to_string(), money))
        }),
    ]
}

/// `-16.4 %` with a true minus sign.
fn percent(x: f64) -> String {
    let text = format!("{:+.1} %", x * 100.0);
    text.replacen('-', "−", 1)
}

/// What the what-if's figures rest on, in words.
fn estimate(out: &mut String, b: &EstimateBasis, ranges: Option<&Ranges>) {
    let Some(from) = b.from_seq else {
        out.push_str("  what-if: the replay never diverges: every figure is the log's\n");
        return;
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let _ = writeln!(
        out,
        "  ~ from seq {from} on every what-if figure is an estimate ({} estimated, {} made up):",
        plural(b.calls_estimated, "agent call", "agent calls"),
        plural(b.summarizer_calls, "summarizer call", "summarizer calls"),
    );
    match b.spread {
        Some(s) => {
            let near = ranges.map_or(0, |r| r.near);
            let _ = writeln!(
                out,
                "    totals and agent prompts are re-anchored at each call's ratio of reported prompt to the meter's estimate"
            );
            let _ = writeln!(
                out,
                "    (median {:.3}; its observed spread, {} to {} over {} calls, puts the threshold within reach of {}: near;",
                s.ratio_median,
                percent(s.low),
                percent(s.high),
                s.calls,
                plural(near, "check", "checks"),
            );
            let _ = writeln!(
                out,
                "    (min–max) are the counts with every later threshold moved by that spread)"
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    no call reports usage: totals are the meter's, with no spread to judge them by"
            );
        }
    }
    let line = &b.summarizer_line;
    let summarizer = if line.summaries >= 2 && (line.slope, line.intercept) != (1.1, 0.0) {
        format!(
            "{:.3} × shadowed {} {:.0} (least squares over the log's {} summaries)",
            line.slope,
            if line.intercept < 0.0 { "−" } else { "+" },
            line.intercept.abs(),
            line.summaries
        )
    } else {
        format!(
            "shadowed + 10 % (the log has {} with usage)",
            plural(line.summaries, "summary", "summaries")
        )
    };
    let _ = writeln!(
        out,
        "    summarizer prompt = {summarizer}; output {} (the summary price)",
        b.summary_output
    );
    let noise = b
        .cache_noise_median
        .map_or_else(|| "0 (none measured)".to_string(), |n| n.to_string());
    let _ = writeln!(
        out,
        "    cache lost = the surface from the change to the end × that call's ratio; where only the log compacted: the noise median {noise}"
    );
}

fn settings(s: &SettingsShown, window: Option<u64>) -> String {
    let threshold = window.map_or(String::new(), |w| {
        format!(
            " (threshold {})",
            surface_engine::meter::threshold(w, s.threshold_ratio)
        )
    });
    let retain = match (s.retain_ratio, s.retain_tokens) {
        (Some(r), _) => {
            let tokens = window.map_or(String::new(), |w| {
                format!(" = {} tokens", (w as f64 * r).floor() as u64)
            });
            format!("retain ratio {}{tokens}", four_digits(r))
        }
        (None, Some(n)) => format!("retain {n} tokens"),
        (None, None) => "retain –".to_string(),
    };
    let pruner = s.pruner.map_or_else(
        || "no pruner".to_string(),
        |p| {
            format!(
                "pruner {}/{}/{}",
                p.threshold_chars, p.head_chars, p.tail_chars
            )
        },
    );
    format!(
        "T {}{threshold}, {retain}, retries {}, {pruner}, summary price {}",
        four_digits(s.threshold_ratio),
        s.compaction_retries,
        s.summary_tokens
    )
}

fn inferred(i: &Inferred) -> String {
    let t = i.threshold_ratio.map_or("T –".to_string(), |[lo, hi]| {
        format!("T in [{}, {})", four_digits(lo), four_digits(hi))
    });
    let n = i.retain_tokens.map_or("retain –".to_string(), |[lo, hi]| {
        format!("retain {lo}..={hi} tokens")
    });
    let p = match (i.pruner, i.threshold_chars) {
        (Some(true), Some([lo, hi])) => format!("pruner present, threshold {lo}..={hi} chars"),
        (Some(true), None) => "pruner present".to_string(),
        (Some(false), _) => "no pruner".to_string(),
        (None, _) => "pruner –".to_string(),
    };
    let mut text = format!("{t}, {n}, {p}");
    for c in &i.conflicts {
        text.push_str(&format!("; conflict: {c}"));
    }
    text
}

fn check_line(c: &CheckVerdict) -> String {
    let turn_step = match (c.turn, c.step) {
        (Some(t), Some(s)) => format!("{t}.{s}"),
        _ => "–".to_string(),
    };
    let threshold = c.threshold.map_or("–".to_string(), |h| h.to_string());
    let agrees = match c.agrees {
        Some(true) => "yes",
        Some(false) => "NO",
        None if c.cant_judge() => "n/a",
        None => "–",
    };
    let trigger = match c.trigger {
        surface_analysis::policy::CheckKind::Pressure => "pressure",
        surface_analysis::policy::CheckKind::Overflow => "overflow",
        surface_analysis::policy::CheckKind::Command => "command",
    };
    let mut decision = Vec::new();
    if !c.pruned.is_empty() {
        decision.push(format!("prune {}", seqs(&c.pruned)));
    }
    for s in &c.summaries {
        decision.push(if s.ok {
            format!(
                "summarise {}..{} ({} node{}, {} tokens)",
                s.start,
                s.end,
                s.shadowed.len(),
                if s.shadowed.len() == 1 { "" } else { "s" },
                s.shadowed_tokens
            )
        } else {
            format!("summary of {}..{} fails", s.start, s.end)
        });
    }
    let mut line = format!(
        "{:>7}  {:>9}  {:<8}  {:>15}  {:<11}  {:<6}  {}",
        c.step_start_seq,
        turn_step,
        trigger,
        format!("{} / {threshold}", c.total),
        c.outcome.as_str(),
        agrees,
        if decision.is_empty() {
            "nothing".to_string()
        } else {
            format!("{} → {}", decision.join("; "), c.total_after)
        }
    );
    if !c.exact {
        line.push_str(if c.near {
            " (estimated, near)"
        } else {
            " (estimated)"
        });
    }
    if let Some(why) = &c.why {
        line.push_str(&format!("\n           ↳ {why}"));
    }
    if let Some(note) = &c.note {
        line.push_str(&format!("\n           · {note}"));
    }
    line
}

fn seqs(seqs: &[u64]) -> String {
    format!(
        "[{}]",
        seqs.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn totals_rows(a: &Totals, b: &Totals) -> Vec<(&'static str, u64, u64)> {
    vec![
        ("pressure checks", a.checks as u64, b.checks as u64),
        ("fired", a.fired as u64, b.fired as u64),
        ("prunes", a.prunes as u64, b.prunes as u64),
        ("summaries", a.summaries as u64, b.summaries as u64),
        (
            "tokens summarised",
            a.summarized_tokens,
            b.summarized_tokens,
        ),
        ("peak total", a.peak_total, b.peak_total),
        (
            "requests ≥ threshold",
            a.requests_over_threshold as u64,
            b.requests_over_threshold as u64,
        ),
        (
            "requests ≥ window",
            a.requests_over_window as u64,
            b.requests_over_window as u64,
        ),
    ]
}
