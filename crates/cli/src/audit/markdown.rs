//! The audit as Markdown to paste into a pull request: the per-replace table, each
//! compaction's facts, lost terms and refetches, the failed compactions, the requests made
//! over the threshold and the warnings.

use std::fmt::Write as _;

use super::{Report, compact_json, compaction_facts, fill, kept, opt, replace_facts, trigger};
use surface_analysis::audit::ReplaceAudit;

/// Lost terms listed per replace.
const LOST_SHOWN: usize = 20;
/// Shadowed seqs listed per replace.
const SEQS_SHOWN: usize = 8;

/// A table cell: pipes escaped, on one line.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// Inline code that survives backticks in the text.
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// The Markdown audit.
pub fn markdown(report: &Report<'_>) -> String {
    let a = report.audit;
    let mut out = String::new();
    let _ = writeln!(out, "## Compaction audit: {}\n", code(&report.file));
    let _ = writeln!(
        out,
        "{} events · {} · {}\n",
        report.log.len(),
        report.counts(),
        report.window()
    );
    if !a.replaces.is_empty() {
        let priced = report.priced();
        out.push_str("| seq | kind | trigger | fill | tokens | saved | summary | nodes | lost terms | refetches | summ. tokens | saved × calls | cache lost |");
        out.push_str(if priced { " balance |\n" } else { "\n" });
        out.push_str("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        out.push_str(if priced { "---:|\n" } else { "\n" });
        for r in &a.replaces {
            let kind = if r.valid {
                r.kind.as_str().to_string()
            } else {
                format!("{} (invalid)", r.kind.as_str())
            };
            let cost = report.cost_cells(r);
            let _ = write!(
                out,
                "| {} | {kind} | {} | {} | {} → {} | {} | {} | {} → {} | {} | {} | {} | {} | {} |",
                r.seq,
                trigger(r),
                fill(r),
                r.tokens_before,
                r.tokens_after,
                r.tokens_saved(),
                r.replacement_tokens,
                r.nodes_before,
                r.nodes_after,
                r.lost_terms.len(),
                r.refetches.len(),
                cost.summarizer,
                cost.saved,
                cost.cache_lost
            );
            if priced {
                let _ = write!(out, " {} |", cost.balance);
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "\n{}\n\n{}\n",
            cell(&report.cost_legend()),
            cell(&report.cost_line())
        );
        kept_table(&mut out, report);
        for r in &a.replaces {
            details(&mut out, r);
        }
    }
    if !a.failed.is_empty() {
        out.push_str(
            "### Failed compactions\n\n| start | end | trigger | error |\n|---:|---:|---|---|\n",
        );
        for f in &a.failed {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                opt(f.start_seq),
                f.end_seq,
                f.trigger.map_or("–", |t| t.as_str()),
                cell(&compact_json(&f.error))
            );
        }
        out.push('\n');
    }
    if !a.over_threshold_requests.is_empty() {
        out.push_str(
            "### Requests over the threshold\n\n| step/start seq | tokens | threshold | window |\n|---:|---:|---:|---:|\n",
        );
        for o in &a.over_threshold_requests {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                o.seq, o.tokens, o.threshold, o.window
            );
        }
        out.push('\n');
    }
    if !a.warnings.is_empty() {
        out.push_str("### Warnings\n\n| rule | seq | message |\n|---|---:|---|\n");
        for w in &a.warnings {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                code(w.rule),
                opt(w.seq),
                cell(&w.message)
            );
        }
        out.push('\n');
    }
    out
}

fn details(out: &mut String, r: &ReplaceAudit) {
    let why = r
        .trigger
        .map_or(String::new(), |t| format!(", {}", t.as_str()));
    let status = if r.valid { "" } else { " (invalid)" };
    let _ = writeln!(
        out,
        "#### seq {} — {}{why}{status}\n",
        r.seq,
        r.kind.as_str()
    );
    if let Some(n) = r.trigger_tokens {
        let limit = r
            .threshold
            .map_or(String::new(), |t| format!(" (threshold {t})"));
        let _ = writeln!(out, "- judged at {n} tokens{limit}");
    }
    if let Some(facts) = compaction_facts(r, code) {
        let _ = writeln!(out, "- {facts}");
    }
    for fact in replace_facts(r, SEQS_SHOWN, LOST_SHOWN, code, code) {
        let _ = writeln!(out, "- {fact}");
    }
    out.push('\n');
}

/// The session's fidelity totals by kind, as a table.
fn kept_table(out: &mut String, report: &Report<'_>) {
    out.push_str("### What the summaries kept\n\n|");
    for head in kept::TOTALS_HEADS {
        let _ = write!(out, " {head} |");
    }
    out.push_str("\n|---|---:|---:|---:|---:|---:|\n");
    for row in kept::totals_rows(report.audit) {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}
