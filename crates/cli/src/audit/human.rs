//! The audit as text for a reviewer: one table row per replace op, then what each one's
//! compaction recorded, lost and made the agent fetch again, the failed compactions, the
//! requests made over the threshold, and the warnings.

use std::fmt::Write as _;

use super::{Report, compact_json, compaction_facts, fill, opt, replace_facts, trigger};
use surface_analysis::audit::ReplaceAudit;

/// Lost terms listed per replace.
const LOST_SHOWN: usize = 12;
/// Shadowed seqs listed per replace.
const SEQS_SHOWN: usize = 6;

/// The human-readable audit.
pub fn human(report: &Report<'_>) -> String {
    let a = report.audit;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} events, {}; {}",
        report.file,
        report.log.len(),
        report.counts(),
        report.window()
    );
    replaces_table(&mut out, report);
    for r in &a.replaces {
        out.push('\n');
        details(&mut out, r);
    }
    out.push('\n');
    failed_and_over(&mut out, report);
    if !a.warnings.is_empty() {
        let _ = writeln!(out, "warnings: {}", a.warnings.len());
        for w in &a.warnings {
            let _ = writeln!(out, "  {:<30} seq {:<8} {}", w.rule, opt(w.seq), w.message);
        }
    }
    if let Some(line) = super::kept::totals_line(a) {
        let _ = writeln!(out, "{line}");
    }
    if !a.replaces.is_empty() {
        let _ = writeln!(out, "cost columns: {}", report.cost_legend());
    }
    let _ = writeln!(out, "{}", report.cost_line());
    out
}

/// One row per replace op under a header (nothing when there is none).
fn replaces_table(out: &mut String, report: &Report<'_>) {
    let a = report.audit;
    let priced = report.priced();
    if !a.replaces.is_empty() {
        let _ = write!(
            out,
            "{:>8}  {:<7}  {:<15}  {:>15}  {:>17}  {:>7}  {:>7}  {:>9}  {:>5}  {:>7}  {:>11}  {:>14}  {:>10}",
            "seq",
            "kind",
            "trigger",
            "fill",
            "tokens",
            "saved",
            "summary",
            "nodes",
            "lost",
            "refetch",
            "summ.tokens",
            "saved × calls",
            "cache lost"
        );
        if priced {
            let _ = write!(out, "  {:>10}", "balance");
        }
        out.push('\n');
    }
    for r in &a.replaces {
        replace_row(out, report, r, priced);
    }
    if a.replaces.iter().any(|r| !r.valid) {
        out.push_str("  (kind! = the op was invalid and not applied)\n");
    }
}

fn replace_row(out: &mut String, report: &Report<'_>, r: &ReplaceAudit, priced: bool) {
    let kind = if r.valid {
        r.kind.as_str().to_string()
    } else {
        format!("{}!", r.kind.as_str())
    };
    let cost = report.cost_cells(r);
    let _ = write!(
        out,
        "{:>8}  {:<7}  {:<15}  {:>15}  {:>17}  {:>7}  {:>7}  {:>9}  {:>5}  {:>7}  {:>11}  {:>14}  {:>10}",
        r.seq,
        kind,
        trigger(r),
        fill(r),
        format!("{} → {}", r.tokens_before, r.tokens_after),
        r.tokens_saved(),
        r.replacement_tokens,
        format!("{} → {}", r.nodes_before, r.nodes_after),
        r.lost_terms.len(),
        r.refetches.len(),
        cost.summarizer,
        cost.saved,
        cost.cache_lost
    );
    if priced {
        let _ = write!(out, "  {:>10}", cost.balance);
    }
    out.push('\n');
}

/// The failed compactions and the requests made over the threshold.
fn failed_and_over(out: &mut String, report: &Report<'_>) {
    let a = report.audit;
    if a.failed.is_empty() {
        out.push_str("failed compactions: none\n");
    } else {
        let _ = writeln!(out, "failed compactions: {}", a.failed.len());
        for f in &a.failed {
            let _ = writeln!(
                out,
                "  seq {}..{}  trigger {}  error: {}",
                opt(f.start_seq),
                f.end_seq,
                f.trigger.map_or("–", |t| t.as_str()),
                compact_json(&f.error)
            );
        }
    }
    let over = &a.over_threshold_requests;
    if over.is_empty() {
        out.push_str("requests over the threshold: none\n");
    } else {
        let _ = writeln!(
            out,
            "requests over the threshold: {} (model calls made while the meter was at or over it)",
            over.len()
        );
        for o in over {
            let _ = writeln!(
                out,
                "  step/start seq {}: {} tokens ≥ threshold {} (window {})",
                o.seq, o.tokens, o.threshold, o.window
            );
        }
    }
}

fn details(out: &mut String, r: &ReplaceAudit) {
    let status = if r.valid {
        ""
    } else {
        " (invalid: not applied)"
    };
    let why = match (r.trigger, r.trigger_tokens, r.threshold) {
        (Some(t), Some(n), Some(limit)) => {
            format!(
                ", triggered by {} at {n} tokens (threshold {limit})",
                t.as_str()
            )
        }
        (Some(t), Some(n), None) => format!(", triggered by {} at {n} tokens", t.as_str()),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "seq {} {}{status}{why}: replace {}..{}",
        r.seq,
        r.kind.as_str(),
        r.start,
        r.end
    );
    if let Some(facts) = compaction_facts(r, str::to_string) {
        let _ = writeln!(out, "  {facts}");
    }
    for fact in replace_facts(r, SEQS_SHOWN, LOST_SHOWN, str::to_string, str::to_string) {
        let _ = writeln!(out, "  {fact}");
    }
}
