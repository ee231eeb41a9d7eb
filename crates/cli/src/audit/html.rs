//! The audit as one self-contained HTML page (no network, no script): the context curve as an
//! inline SVG, the per-replace table (with the policy replay's verdict on each) linking to each
//! replace's section — every replace has one, so no link is dead: the first [`DETAILED`] with
//! the replacement's text beside the text it shadowed with every lost term marked, the others
//! their facts only — then the failed compactions, the requests over the threshold and the
//! warnings.

use std::fmt::Write as _;

use super::curve::{context_svg, trigger_colour};
use super::kept;
use super::kept_svg::kept_svg;
use super::{
    PolicyColumn, Report, compact_json, compaction_facts, fill, opt, plural, replace_facts, trigger,
};
use surface_analysis::audit::{ReplaceAudit, ShadowedText, Trigger, detail};
use surface_analysis::policy::{AS_DECIDED, CANT_JUDGE_NO_WINDOW};

/// Replace ops shown with their texts; the others' sections hold their facts only.
pub const DETAILED: usize = 200;
/// Characters of text shown per side of a replace.
pub const TEXT_CHARS: usize = 12_000;

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1d2126;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #e1e4e8;padding-bottom:4px}
h3{font-size:15px;margin:22px 0 6px}h4{font-size:13px;margin:0 0 4px;color:#444}
.meta{color:#555;margin:0 0 12px}table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid #e1e4e8;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f3f5f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.trigger{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.pair pre{white-space:pre-wrap;word-break:break-word;background:#f8f9fb;border:1px solid #e1e4e8;padding:8px;margin:0;max-height:480px;overflow:auto;font-size:12px}
.node{color:#6a737d;font-style:italic}mark{background:#ffd8a8;color:#000;padding:0 1px}
ul.facts{margin:4px 0 8px;padding-left:20px}.legend span{margin-right:14px}.clip{color:#6a737d}
.differs{color:#c0392b}.unjudged{color:#6a737d}
";

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters, and whether it was cut.
fn clip(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// The report page.
pub fn html(report: &Report<'_>) -> String {
    let a = report.audit;
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Compaction audit — {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&report.file)
    );
    let _ = writeln!(
        out,
        "<h1>Compaction audit</h1>\n<p class=\"meta\">{} · {} events · {} · {}. Every token figure is the harness's token meter.</p>",
        escape(&report.file),
        report.log.len(),
        escape(&report.counts()),
        escape(&report.window())
    );
    out.push_str("<h2>Context over the session</h2>\n");
    out.push_str(&context_svg(report));
    out.push_str("\n<p class=\"legend\"><span>blue: the meter's total</span><span>grey line: context window</span><span>dashed: threshold</span><span>replace ops by trigger:</span>");
    for (t, name) in [
        (Some(Trigger::Overflow), "overflow"),
        (Some(Trigger::Command), "command"),
        (Some(Trigger::Pressure), "pressure"),
        (Some(Trigger::BelowThreshold), "below-threshold"),
        (None, "no trigger"),
    ] {
        let _ = write!(
            out,
            "<span><i class=\"trigger\" style=\"background:{}\"></i>{name}</span>",
            trigger_colour(t)
        );
    }
    out.push_str("<span><i class=\"trigger\" style=\"background:#c0392b;border-radius:50%\"></i>model request over the threshold</span></p>\n");
    table(&mut out, report);
    kept_section(&mut out, report);
    if !a.replaces.is_empty() {
        out.push_str("<h2>Each replace</h2>\n");
        if a.replaces.len() > DETAILED {
            let _ = writeln!(
                out,
                "<p>The first {DETAILED} of {} replace ops are shown with their texts, the others with their facts; <code>surface-viewer audit --json</code> has every one.</p>",
                a.replaces.len()
            );
        }
        for (k, r) in a.replaces.iter().enumerate() {
            section(&mut out, report, r, k < DETAILED);
        }
    }
    rest(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out
}

/// What the summaries kept: the survival chart and the totals by kind.
fn kept_section(out: &mut String, report: &Report<'_>) {
    let Some(svg) = kept_svg(report.audit) else {
        return;
    };
    out.push_str("<h2>What the summaries kept</h2>\n");
    out.push_str(&svg);
    out.push_str("\n<p class=\"legend\"><span>blue: facts of the shadowed text the summary holds</span><span>red: facts it lost that a later tool call, tool result or user message needed</span></p>\n<table>\n<thead><tr>");
    for head in kept::TOTALS_HEADS {
        let _ = write!(out, "<th>{head}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in kept::totals_rows(report.audit) {
        let [kind, rest @ ..] = row;
        let _ = write!(out, "<tr><td>{kind}</td>");
        for cell in rest {
            let _ = write!(out, "<td class=\"n\">{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn table(out: &mut String, report: &Report<'_>) {
    let a = report.audit;
    out.push_str("<h2>Replace ops</h2>\n");
    if a.replaces.is_empty() {
        out.push_str("<p>The log has no replace op.</p>\n");
        return;
    }
    let priced = report.priced();
    if let Some(policy) = report.policy {
        let _ = writeln!(
            out,
            "<p class=\"meta\">policy: {}.</p>",
            escape(&policy.settings)
        );
    }
    let policy_head = if report.policy.is_some() {
        "<th>policy</th>"
    } else {
        ""
    };
    let _ = write!(
        out,
        "<table>\n<thead><tr><th>seq</th><th>kind</th><th>trigger</th>{policy_head}"
    );
    out.push_str("<th>fill before → after</th><th>tokens before → after</th><th>saved</th><th>summary</th><th>nodes</th><th>lost terms</th><th>refetches</th><th>summarizer tokens</th><th>saved × calls after</th><th>cache lost</th>");
    out.push_str(if priced { "<th>balance</th>" } else { "" });
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &a.replaces {
        let seq = format!("<a href=\"#r-{0}\">{0}</a>", r.seq);
        let policy = report
            .policy
            .map_or_else(String::new, |p| policy_cell(p, r));
        let kind = if r.valid {
            r.kind.as_str().to_string()
        } else {
            format!("{} (invalid)", r.kind.as_str())
        };
        let cost = report.cost_cells(r);
        let balance = if priced {
            format!("<td class=\"n\">{}</td>", escape(&cost.balance))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"n\">{seq}</td><td>{kind}</td><td><i class=\"trigger\" style=\"background:{}\"></i>{}</td>{policy}<td>{}</td><td class=\"n\">{} → {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} → {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>{balance}</tr>",
            trigger_colour(r.trigger),
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
            escape(&cost.summarizer),
            escape(&cost.saved),
            escape(&cost.cache_lost)
        );
    }
    out.push_str("</tbody>\n</table>\n");
    let _ = writeln!(
        out,
        "<p class=\"meta\">{}</p>\n<p>{}</p>",
        escape(&report.cost_legend()),
        escape(&report.cost_line())
    );
}

/// The policy's verdict on `r` as a table cell: its phrase, red when it differs, grey when
/// the policy cannot judge; the check it belongs to in the title.
fn policy_cell(policy: &PolicyColumn, r: &ReplaceAudit) -> String {
    match policy.verdicts.get(&r.event.0) {
        Some(v) => {
            let class = match v.agrees {
                _ if v.cell == CANT_JUDGE_NO_WINDOW => " class=\"unjudged\"",
                Some(false) if v.cell != AS_DECIDED => " class=\"differs\"",
                _ => "",
            };
            format!(
                "<td{class} title=\"{}\">{}</td>",
                escape(&v.detail),
                escape(&v.cell)
            )
        }
        None => "<td class=\"unjudged\">–</td>".to_string(),
    }
}

fn section(out: &mut String, report: &Report<'_>, r: &ReplaceAudit, with_text: bool) {
    let why = r
        .trigger
        .map_or(String::new(), |t| format!(", {}", t.as_str()));
    let status = if r.valid {
        ""
    } else {
        " (invalid, not applied)"
    };
    let _ = writeln!(
        out,
        "<section id=\"r-{}\">\n<h3>seq {} — {}{why}{status}: replace {}..{}</h3>\n<ul class=\"facts\">",
        r.seq,
        r.seq,
        r.kind.as_str(),
        r.start,
        r.end
    );
    let mut fact = |text: String| {
        let _ = writeln!(out, "<li>{text}</li>");
    };
    if let (Some(n), Some(t)) = (r.trigger_tokens, r.trigger) {
        let limit = r
            .threshold
            .map_or(String::new(), |l| format!(" (threshold {l})"));
        fact(format!("judged {} at {n} tokens{limit}", t.as_str()));
    }
    if let Some(facts) = compaction_facts(r, |t| format!("<code>{}</code>", escape(t))) {
        fact(facts);
    }
    fact(format!(
        "meter {} → {} tokens ({} saved), {}; nodes {} → {}",
        r.tokens_before,
        r.tokens_after,
        r.tokens_saved(),
        fill(r),
        r.nodes_before,
        r.nodes_after
    ));
    let code = |t: &str| format!("<code>{}</code>", escape(t));
    let mark = |t: &str| format!("<mark>{}</mark>", escape(t));
    for text in replace_facts(r, 8, r.lost_terms.len(), code, mark) {
        fact(text);
    }
    if let Some(v) = report.policy.and_then(|p| p.verdicts.get(&r.event.0)) {
        fact(format!("policy: {}", escape(&v.detail).replace('\n', "; ")));
    }
    out.push_str("</ul>\n");
    if r.valid && with_text {
        let d = detail(report.log, r);
        let (summary, cut) = clip(&d.replacement, TEXT_CHARS);
        let _ = write!(
            out,
            "<div class=\"pair\">\n<div><h4>Replacement (seq {}, {} tokens)</h4><pre>{}{}</pre></div>\n<div><h4>Shadowed text ({} node{}, {} tokens; lost terms marked)</h4><pre>",
            r.seq,
            r.replacement_tokens,
            escape(summary),
            if cut {
                "<span class=\"clip\">\n… (cut)</span>"
            } else {
                ""
            },
            r.shadowed.len(),
            plural(r.shadowed.len()),
            r.shadowed_tokens
        );
        shadowed_text(out, &d.shadowed);
        out.push_str("</pre></div>\n</div>\n");
    }
    out.push_str("</section>\n");
}

/// The shadowed nodes' texts, each headed by its seq and type, lost terms in `<mark>`.
fn shadowed_text(out: &mut String, nodes: &[ShadowedText]) {
    let mut left = TEXT_CHARS;
    for node in nodes {
        if left == 0 {
            out.push_str("<span class=\"clip\">… (cut)</span>");
            return;
        }
        let _ = writeln!(
            out,
            "<span class=\"node\">— seq {} {}</span>",
            node.seq,
            escape(&node.type_name)
        );
        let (text, cut) = clip(&node.text, left);
        left -= text.chars().count().min(left);
        let mut at = 0;
        for span in &node.lost_spans {
            if span.end > text.len() {
                break;
            }
            out.push_str(&escape(&text[at..span.start]));
            out.push_str("<mark>");
            out.push_str(&escape(&text[span.clone()]));
            out.push_str("</mark>");
            at = span.end;
        }
        out.push_str(&escape(&text[at..]));
        if cut {
            out.push_str("<span class=\"clip\">… (cut)</span>");
        }
        out.push('\n');
    }
}

fn rest(out: &mut String, report: &Report<'_>) {
    let a = report.audit;
    out.push_str("<h2>Failed compactions</h2>\n");
    if a.failed.is_empty() {
        out.push_str("<p>None.</p>\n");
    } else {
        out.push_str("<table>\n<thead><tr><th>start seq</th><th>end seq</th><th>trigger</th><th>error</th></tr></thead>\n<tbody>\n");
        for f in &a.failed {
            let _ = writeln!(
                out,
                "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td></tr>",
                opt(f.start_seq),
                f.end_seq,
                f.trigger.map_or("–", |t| t.as_str()),
                escape(&compact_json(&f.error))
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("<h2>Requests over the threshold</h2>\n");
    if a.over_threshold_requests.is_empty() {
        out.push_str("<p>None: every model request was made under the threshold.</p>\n");
    } else {
        out.push_str("<table>\n<thead><tr><th>step/start seq</th><th>tokens</th><th>threshold</th><th>window</th></tr></thead>\n<tbody>\n");
        for o in &a.over_threshold_requests {
            let _ = writeln!(
                out,
                "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                o.seq, o.tokens, o.threshold, o.window
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    if !a.warnings.is_empty() {
        out.push_str("<h2>Warnings</h2>\n<table>\n<thead><tr><th>rule</th><th>seq</th><th>message</th></tr></thead>\n<tbody>\n");
        for w in &a.warnings {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td></tr>",
                escape(w.rule),
                opt(w.seq),
                escape(&w.message)
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
}
