//! `audit`: every replace op of a log and what it cost, saved and lost (docs/audit.md) — a
//! table for a reviewer, one JSON document, Markdown tables for a pull request, and a
//! self-contained HTML report written to a new file. The human, Markdown and HTML tables carry
//! each compaction's balance columns from the cost ledger (docs/cost.md#each-compaction): summarizer tokens, saved per
//! call × calls after, cache lost, and with `--prices` the balance; the HTML table also the
//! policy replay's verdict on each compaction (docs/policy.md#in-the-viewer-each-compactions-verdict).

mod curve;
mod html;
mod human;
mod kept;
mod kept_svg;
mod markdown;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;
use surface_engine::EventType;

use super::cost::{PriceOptions, session_line};
use super::load::{load, write_context};
use super::{EXIT_OK, Input, MeterOptions, print_json};
use surface_analysis::audit::{Audit, LostTerms, ReplaceAudit, ReplaceKind};
use surface_analysis::cost::signed_money;
use surface_analysis::cost::{CompactionCost, Ledger, parts_with};
use surface_analysis::policy::{
    CompactionVerdict, PolicyInput, PolicySettings, ReplayMode, compaction_verdicts, four_digits,
    replay,
};
use surface_engine::{EventLog, Meter, Surface};
use surface_store::{WriteTarget, write_file_safely};

pub use html::{DETAILED, html};
pub use human::human;
pub use markdown::markdown;

/// What `audit` prints on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditFormat {
    /// A readable table and the details of each replace.
    Human,
    /// One JSON document (docs/audit.md).
    Json,
    /// Markdown tables.
    Markdown,
}

/// Everything a rendering of the audit reads.
pub struct Report<'a> {
    /// The file as the user named it.
    pub file: String,
    /// The log.
    pub log: &'a EventLog,
    /// Its meter.
    pub meter: &'a Meter,
    /// The audit.
    pub audit: &'a Audit,
    /// The cost ledger, for the balance columns.
    pub ledger: &'a Ledger,
    /// The policy replay's verdict on each compaction (the HTML report's policy column).
    pub policy: Option<&'a PolicyColumn>,
}

/// The policy replay's verdict on each compaction of the log (docs/policy.md, verify): the
/// default settings at the audit's threshold ratio, as the viewer's Compactions tab shows it.
pub struct PolicyColumn {
    /// The settings replayed, in words (`"T 0.8, retain ratio 0.16, …"`), or why none could be.
    pub settings: String,
    /// The verdicts, by the event carrying each compaction's replace op.
    pub verdicts: HashMap<u32, CompactionVerdict>,
}

impl PolicyColumn {
    /// Replays the policy (verify) with the default settings at `threshold_ratio`.
    pub fn of(log: &EventLog, surface: &Surface, meter: &Meter, threshold_ratio: f64) -> Self {
        let settings = PolicySettings {
            threshold_ratio,
            ..PolicySettings::default()
        };
        match settings.validate(meter.window_at(log.len())) {
            Ok(valid) => {
                let input = PolicyInput::build(log, surface, meter);
                let report = replay(log, meter, &input, &valid, ReplayMode::Verify);
                let retain = settings.retain_ratio().map_or_else(String::new, |r| {
                    format!(", retain ratio {}", four_digits(r))
                });
                PolicyColumn {
                    settings: format!(
                        "the policy replayed with T {}{retain} and the default pruner (verify; surface-viewer policy for other settings)",
                        four_digits(threshold_ratio)
                    ),
                    verdicts: compaction_verdicts(&input, &report),
                }
            }
            Err(e) => PolicyColumn {
                settings: format!("no policy verdicts: {e}"),
                verdicts: HashMap::new(),
            },
        }
    }
}

/// The balance columns of one replace, as text (`–` for a replace the ledger does not weigh:
/// an `other` or an invalid one).
pub struct CostCells {
    /// The summarizer call's prompt + output tokens.
    pub summarizer: String,
    /// `saved_per_call × calls_after`.
    pub saved: String,
    /// The cache loss charged to it (`0*`: its gap's loss is charged to another).
    pub cache_lost: String,
    /// The balance, signed, in the price file's currency.
    pub balance: String,
}

impl Report<'_> {
    /// The ledger's figures of a replace.
    pub fn cost_of(&self, r: &ReplaceAudit) -> Option<&CompactionCost> {
        let c = &self.ledger.compactions;
        c.binary_search_by_key(&r.event, |c| c.event)
            .ok()
            .map(|k| &c[k])
    }

    /// Whether a price file was given (the balance column is shown).
    pub fn priced(&self) -> bool {
        self.ledger.currency.is_some()
    }

    /// The balance columns of a replace.
    pub fn cost_cells(&self, r: &ReplaceAudit) -> CostCells {
        let dash = || "–".to_string();
        let Some(c) = self.cost_of(r) else {
            return CostCells {
                summarizer: dash(),
                saved: dash(),
                cache_lost: dash(),
                balance: dash(),
            };
        };
        CostCells {
            summarizer: match (&c.summarizer, c.kind) {
                (Some(s), _) => (s.prompt + s.tokens.output).to_string(),
                (None, ReplaceKind::Summary) => "unknown".to_string(),
                _ => dash(),
            },
            saved: format!("{} × {}", c.saved_per_call, c.calls_after),
            cache_lost: match (c.cache_lost, c.cache_lost_gap) {
                (Some(0), Some(gap)) if gap > 0 && !c.charged_cache => "0*".to_string(),
                (lost, _) => opt(lost),
            },
            balance: c.balance.map_or_else(dash, signed_money),
        }
    }

    /// What the balance columns mean, for the line under a table.
    pub fn cost_legend(&self) -> String {
        let noise = match (self.ledger.caching, self.ledger.cache_noise_median) {
            (false, _) => "no cache reads reported".to_string(),
            (true, Some(m)) => format!("the provider's cache noise median is {m} tokens"),
            (true, None) => "no call pair to measure the cache noise".to_string(),
        };
        let balance = match &self.ledger.currency {
            Some(c) => format!("; balance in {c}, negative = paid for itself"),
            None => String::new(),
        };
        format!(
            "summ. tokens = the summarizer call's prompt + output; saved × calls = meter tokens per later call × calls; cache lost in tokens ({noise}; 0* = charged to the compaction that changed the prompt first){balance}"
        )
    }

    /// One line: what compaction cost and saved in the session.
    pub fn cost_line(&self) -> String {
        session_line(self.ledger)
    }

    /// `"4 replace ops (2 summary, 1 prune, 1 other; 1 invalid)"`.
    pub fn counts(&self) -> String {
        let r = &self.audit.replaces;
        let of = |k: ReplaceKind| r.iter().filter(|a| a.kind == k).count();
        let invalid = r.iter().filter(|a| !a.valid).count();
        let mut text = format!(
            "{} replace op{} ({} summary, {} prune, {} other",
            r.len(),
            plural(r.len()),
            of(ReplaceKind::Summary),
            of(ReplaceKind::Prune),
            of(ReplaceKind::Other)
        );
        if invalid > 0 {
            text.push_str(&format!("; {invalid} invalid"));
        }
        text.push(')');
        text
    }

    /// `"window 128000, threshold 102400 (ratio 0.8)"`, or that none is known.
    pub fn window(&self) -> String {
        match (self.audit.window, self.audit.threshold) {
            (Some(w), Some(t)) => format!(
                "window {w}, threshold {t} (ratio {})",
                self.audit.threshold_ratio
            ),
            _ => format!(
                "no context window known (threshold ratio {})",
                self.audit.threshold_ratio
            ),
        }
    }
}

/// Where `--html` writes, and whether `--force` lets it replace an existing file.
#[derive(Clone, Copy, Debug)]
pub struct HtmlOut<'a> {
    /// OUT.
    pub path: &'a Path,
    /// `--force`.
    pub force: bool,
}

impl<'a> HtmlOut<'a> {
    fn target(&self, log: &'a Path) -> WriteTarget<'a> {
        WriteTarget::new(self.path, Some(log)).replacing(self.force)
    }
}

/// Runs `audit`.
pub fn run(
    input: &Input,
    format: AuditFormat,
    html_out: Option<HtmlOut<'_>>,
    options: &MeterOptions,
    prices: &PriceOptions,
) -> anyhow::Result<u8> {
    // Refused before the log is read: the rule does not depend on the report.
    if let Some(out) = html_out {
        out.target(&input.file).check()?;
    }
    let prices = prices.read()?;
    let loaded = load(input, false)?;
    let log = &loaded.log;
    // One bracket scan (beside the meter) serves the audit and the ledger, built side by side.
    let (surface, meter, scan) = surface_passes::surface_meter_and_scan_of(log, true);
    let ratio = options.threshold_ratio;
    let (audit, ledger) = rayon::join(
        || surface_passes::audit_read_ahead(log, &surface, &meter, ratio, &scan, LostTerms::Read),
        || Ledger::build(&parts_with(log, &surface, &meter, &scan), prices.as_ref()),
    );
    // The policy column is the HTML report's alone: the other forms do without the replay.
    let policy = html_out.map(|_| PolicyColumn::of(log, &surface, &meter, options.threshold_ratio));
    let report = Report {
        file: input.file.display().to_string(),
        log,
        meter: &meter,
        audit: &audit,
        ledger: &ledger,
        policy: policy.as_ref(),
    };
    if let Some(out) = html_out {
        write_file_safely(&out.target(&input.file), html(&report).as_bytes())?;
    }
    match format {
        AuditFormat::Json => print_json(&surface_reports::audit::document(
            &loaded.source(&report.file),
            &audit,
        )?)?,
        AuditFormat::Markdown => print_text(&markdown(&report))?,
        // With `--html` the page is the report: one line names it instead of the table.
        AuditFormat::Human => match html_out {
            Some(out) => print_text(&format!("HTML report written to {}\n", out.path.display()))?,
            None => print_text(&human(&report))?,
        },
    }
    Ok(EXIT_OK)
}

fn print_text(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    write_context(out.write_all(text.as_bytes()))?;
    write_context(out.flush())
}

/// `"s"` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `"81.2% → 12.0%"`, or `"–"` without a window.
fn fill(a: &ReplaceAudit) -> String {
    a.fill()
        .map_or_else(|| "–".to_string(), |(b, f)| format!("{b:.1}% → {f:.1}%"))
}

/// The trigger's name, or `"–"`.
fn trigger(a: &ReplaceAudit) -> &'static str {
    a.trigger.map_or("–", |t| t.as_str())
}

/// A number or `"–"`.
fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| v.to_string())
}

/// Seqs as `"4, 13, 15"`, shortened to `"2, 15, 17, … 177 (16 nodes)"` past `max`.
fn seq_list(seqs: &[u64], max: usize) -> String {
    let shown: Vec<String> = seqs.iter().take(max).map(u64::to_string).collect();
    if seqs.len() > max {
        format!(
            "{}, … {} ({} nodes)",
            shown.join(", "),
            seqs.last().copied().unwrap_or(0),
            seqs.len()
        )
    } else {
        shown.join(", ")
    }
}

/// What every report says of a replace after its heading and the compaction's record: the
/// shadowed nodes, the provider's figures around it, the lost terms and the refetches, one
/// phrase per line. `seqs` and `terms` bound the lists; `code` wraps tool names, `term` wraps a
/// lost term (each renderer escapes and marks up in its own syntax).
fn replace_facts(
    r: &ReplaceAudit,
    seqs: usize,
    terms: usize,
    code: impl Fn(&str) -> String,
    term: impl Fn(&str) -> String,
) -> Vec<String> {
    let mut facts = Vec::new();
    if r.valid {
        let recorded = r
            .compaction
            .as_ref()
            .and_then(|c| c.shadowed_token_count)
            .map_or(String::new(), |n| format!(" ({n} recorded)"));
        facts.push(format!(
            "shadowed {} node{} [{}]: {} tokens by the meter{recorded}; replacement {} tokens",
            r.shadowed.len(),
            plural(r.shadowed.len()),
            seq_list(&r.shadowed, seqs),
            r.shadowed_tokens,
            r.replacement_tokens
        ));
    }
    facts.push(format!(
        "provider input tokens of the model calls around it: {} before, {} after",
        opt(r.reported_before),
        opt(r.reported_after)
    ));
    if !r.lost_terms.is_empty() {
        facts.push(format!(
            "lost terms ({}): {}",
            r.lost_terms.len(),
            lost_list(r, terms, &term)
        ));
    } else if r.valid {
        facts.push("lost terms: none".to_string());
    }
    facts.extend(kept::fidelity_facts(r, terms, &term));
    for f in &r.refetches {
        let tokens = f
            .tokens
            .map_or("no result yet".to_string(), |t| format!("{t} tokens"));
        facts.push(format!(
            "refetch: seq {} {} again (its earlier result, seq {}, was shadowed here), {tokens}",
            f.seq,
            code(&f.tool),
            f.original_seq
        ));
    }
    facts
}

/// The first `max` lost terms as `term ×N`, joined.
fn lost_list(a: &ReplaceAudit, max: usize, wrap: &impl Fn(&str) -> String) -> String {
    let mut parts: Vec<String> = a
        .lost_terms
        .iter()
        .take(max)
        .map(|t| {
            if t.count > 1 {
                format!("{} ×{}", wrap(&t.term), t.count)
            } else {
                wrap(&t.term)
            }
        })
        .collect();
    if a.lost_terms.len() > max {
        parts.push(format!("… {} more", a.lost_terms.len() - max));
    }
    parts.join(", ")
}

/// The summarizer as `"provider/model"`.
fn summarizer(a: &ReplaceAudit) -> Option<String> {
    let c = a.compaction.as_ref()?;
    match (&c.provider, &c.model) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

/// The compaction's own record as phrases (`code` wraps ids and JSON), after its label:
/// `"compaction ID, seq 19–22, 10 ms, summarizer …"` or `"compaction/prune at seq 183"`.
fn compaction_facts(a: &ReplaceAudit, code: impl Fn(&str) -> String) -> Option<String> {
    let c = a.compaction.as_ref()?;
    let mut parts = Vec::new();
    if let Some(id) = &c.id {
        parts.push(code(id));
    }
    match (c.start_seq, c.end_seq) {
        (Some(s), Some(e)) => parts.push(format!("seq {s}–{e}")),
        (Some(s), None) if a.kind == ReplaceKind::Prune => parts.push(format!("at seq {s}")),
        (Some(s), None) => parts.push(format!("from seq {s}, no end")),
        (None, Some(e)) => parts.push(format!("no start, ends at seq {e}")),
        (None, None) => {}
    }
    if let Some(ms) = c.duration_ms {
        parts.push(format!("{ms} ms"));
    }
    if let Some(s) = summarizer(a) {
        parts.push(format!("summarizer {}", code(&s)));
    }
    if let Some(m) = c.max_tokens {
        parts.push(format!("maxTokens {m}"));
    }
    if let Some(u) = &c.usage {
        parts.push(format!("usage {}", code(&compact_json(u))));
    }
    if let Some(cmd) = &c.source_command_id {
        parts.push(format!("command {}", code(cmd)));
    }
    if let Some(e) = &c.error {
        parts.push(format!("error {}", code(&compact_json(e))));
    }
    let label = match a.kind {
        ReplaceKind::Prune => EventType::CompactionPrune.spelled(),
        _ => "compaction",
    };
    Some(format!("{label} {}", parts.join(", ")))
}

/// A one-line JSON rendering of a value.
fn compact_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
