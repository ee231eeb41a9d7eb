//! The readable `policy` report: the settings used and inferred, one line per check that fired
//! or disagreed, the first divergence, and the totals of the log and of the replay side by side.

use std::fmt::Write as _;

use surface_engine::policy::{
    CANT_JUDGE_NO_WINDOW, CheckVerdict, Inferred, PolicyReport, ReplayMode, SettingsShown, Totals,
    four_digits,
};

/// The report as text.
pub fn human(file: &str, report: &PolicyReport) -> String {
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
        let _ = writeln!(out, "  {label:<24} {a:>10} {b:>10}");
    }
    out
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
        surface_engine::policy::CheckKind::Pressure => "pressure",
        surface_engine::policy::CheckKind::Overflow => "overflow",
        surface_engine::policy::CheckKind::Command => "command",
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
        line.push_str(" (estimated)");
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
