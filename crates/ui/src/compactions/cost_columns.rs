//! The Compactions table's cost columns (docs/cost.md): the summarizer's tokens, saved per
//! call × calls after, the cache lost and the balance — coloured by its sign when priced —
//! each with the formula it comes from in its hover, and the session's line above the table;
//! the cache lost links to the request after the compaction (`request_after`), whose first
//! change the Request view shows.

use egui::{Color32, RichText, Ui};

use surface_analysis::audit::ReplaceAudit;
use surface_analysis::cost::{CompactionCost, Ledger, RequestChange, UNPRICED, signed_money};
use surface_engine::EventIdx;

use crate::compactions::request_changes::RequestChanges;
use crate::theme::Palette;

/// The request a compaction's cache-lost figure links to.
#[derive(Clone, Copy, Debug)]
pub struct RequestLink<'a> {
    /// Its first change (the compaction's replace, or another cause).
    pub change: &'a RequestChange,
    /// Its call's event: where the link puts the cursor.
    pub event: EventIdx,
}

/// The agent request whose first change is `r`'s replace, else the first agent request after
/// it (a replace no request's first change names: a later one changed the prompt first).
pub fn request_after<'a>(
    changes: Option<&'a RequestChanges>,
    r: &ReplaceAudit,
) -> Option<RequestLink<'a>> {
    let changes = changes?;
    let (k, change) = changes
        .after_replace(r.seq)
        .or_else(|| changes.first_agent_from(r.event.get() + 1))?;
    Some(RequestLink {
        change,
        event: changes.event(k)?,
    })
}

/// The hover of a cache-lost figure that links to `link`.
pub fn link_hover(link: &RequestLink<'_>) -> String {
    format!(
        "Click: open the Request view at the agent call seq {} after this compaction (its first \
         change: {}; {} tokens sent again uncached)",
        link.change.seq,
        link.change.first_change.describe(),
        link.change.resent_tokens
    )
}

/// The header hover of the summarizer column.
pub const SUMMARIZER_FORMULA: &str = "summarizer = the prompt + output tokens of the summarizer's \
     own model call (the usage on compaction/summary; prompt = uncached + cache read + cache \
     write); – for a prune, which has no such call";
/// The header hover of the saved column.
pub const SAVED_FORMULA: &str = "saved_per_call × calls_after = prompt_saved: the meter's price \
     of the shadowed nodes − the replacement's price, × the agent calls whose prompt held the \
     replacement (until a later compaction shadowed it)";
/// The header hover of the cache lost column.
pub const CACHE_LOST_FORMULA: &str = "cache_lost = max(0, P_prev − cache_read_next): the prompt of \
     the last agent call before it minus the cache read of the first call after it; 0* = the \
     gap's loss is charged once, to the compaction that changed the prompt first; – when the \
     provider reports no cache reads or a call is missing";
/// The header hover of the balance column.
pub const BALANCE_FORMULA: &str = "balance = summarizer cost + cache_lost × (uncached − cache_read \
     price) − prompt_saved × cache_read price; negative (green): it paid for itself, positive \
     (red): it cost more than it saved; – without a price file (File ▸ Prices) or when a \
     figure it needs is unknown";

/// The ledger's figures of the compaction replacing at `event`.
pub fn cost_of(ledger: Option<&Ledger>, event: EventIdx) -> Option<&CompactionCost> {
    let list = &ledger?.compactions;
    list.binary_search_by_key(&event, |c| c.event)
        .ok()
        .map(|k| &list[k])
}

/// A sort key of a cost column (`column`: 0 summarizer, 1 saved, 2 cache lost, 3 balance);
/// unknown figures sort below every known one.
pub fn sort_key(cost: Option<&CompactionCost>, column: usize) -> i64 {
    const UNKNOWN: i64 = i64::MIN / 4;
    let Some(c) = cost else {
        return UNKNOWN;
    };
    match column {
        0 => c
            .summarizer
            .map_or(UNKNOWN, |s| (s.prompt + s.tokens.output) as i64),
        1 => c.prompt_saved,
        2 => c.cache_lost.map_or(UNKNOWN, |t| t as i64),
        _ => c.balance.map_or(UNKNOWN, |b| (b * 1e9).round() as i64),
    }
}

/// The four cost cells of a row and their colours (`–` before the ledger is known).
pub fn cells(
    cost: Option<&CompactionCost>,
    text: Color32,
    pal: &Palette,
) -> [(String, Color32); 4] {
    let dash = || ("–".to_string(), pal.weak_text);
    let Some(c) = cost else {
        return [dash(), dash(), dash(), dash()];
    };
    let summarizer = c.summarizer.map_or_else(dash, |s| {
        (format!("{}+{}", s.prompt, s.tokens.output), text)
    });
    let saved = (format!("{} × {}", c.saved_per_call, c.calls_after), text);
    let lost = match c.cache_lost {
        Some(0) if c.cache_lost_gap.is_some_and(|g| g > 0) && !c.charged_cache => {
            ("0*".to_string(), pal.weak_text)
        }
        Some(t) => (t.to_string(), text),
        None => dash(),
    };
    let balance = c.balance.map_or_else(dash, |b| {
        let color = if b > 0.0 {
            pal.balance_cost
        } else if b < 0.0 {
            pal.balance_saving
        } else {
            text
        };
        (signed_money(b), color)
    });
    [summarizer, saved, lost, balance]
}

/// The row's cost figures worked out, for its hover.
pub fn worked(cost: &CompactionCost, ledger: &Ledger) -> String {
    let currency = ledger.currency.as_deref().unwrap_or("");
    let mut lines = vec![format!(
        "prompt_saved = {} × {} = {} meter tokens",
        cost.saved_per_call, cost.calls_after, cost.prompt_saved
    )];
    if let Some(s) = &cost.summarizer {
        lines.push(format!(
            "summarizer: {} uncached + {} cache read + {} cache write, {} output",
            s.tokens.uncached, s.tokens.cache_read, s.tokens.cache_write, s.tokens.output
        ));
    }
    let calls = |c: Option<u64>| c.map_or("none".to_string(), |s| format!("seq {s}"));
    lines.push(match cost.cache_lost_gap {
        Some(gap) => format!(
            "cache lost between the calls {} and {}: {gap} tokens{}",
            calls(cost.call_before),
            calls(cost.call_after),
            if cost.charged_cache {
                ", charged here"
            } else {
                ", charged to the compaction that changed the prompt first"
            }
        ),
        None => {
            "cache lost: unknown (no cache reads reported, or no call before or after)".to_string()
        }
    });
    if let Some(p) = &cost.balance_parts {
        lines.push(format!(
            "balance = {} + {} − {} = {} {currency}",
            signed_money(p.summarizer),
            signed_money(p.cache_lost),
            signed_money(p.prompt_saved),
            signed_money(p.total)
        ));
    }
    lines.join("\n")
}

/// The session's line: the noise median and what compaction cost and saved in all.
pub fn session_line_ui(ui: &mut Ui, ledger: &Ledger, pal: &Palette) {
    let t = &ledger.compaction_totals;
    ui.horizontal_wrapped(|ui| {
        let noise = ledger.cache_noise_median.map_or_else(
            || "cache noise: – (no cache reads reported)".to_string(),
            |m| {
                format!(
                    "cache noise median {m} tokens over {} call pairs",
                    ledger.cache_noise_pairs
                )
            },
        );
        ui.label(RichText::new(noise).color(pal.weak_text))
            .on_hover_text(
                "The cache-lost formula over consecutive agent calls with no compaction between \
             them (median): a cache lost well above it is the compaction's doing",
            );
        // Two sentences on one wrapped line: a separator, so they do not read as one.
        ui.label(RichText::new("·").color(pal.weak_text));
        let lost = t.cache_lost.map_or("–".to_string(), |l| l.to_string());
        let mut line = format!(
            "compaction in all: {} summarizer tokens, {lost} cache lost, {} prompt tokens saved",
            t.summarizer_tokens, t.prompt_saved
        );
        let color = match t.balance {
            Some(b) => {
                line.push_str(&format!(
                    "; balance {} {}",
                    signed_money(b),
                    ledger.currency.as_deref().unwrap_or("")
                ));
                if b > 0.0 {
                    pal.balance_cost
                } else {
                    pal.balance_saving
                }
            }
            None => {
                if ledger.currency.is_some() && !ledger.unpriced_models.is_empty() {
                    line.push_str(&format!(
                        "; balance unknown ({UNPRICED}: no price for {})",
                        ledger.unpriced_models.join(", ")
                    ));
                }
                pal.text
            }
        };
        ui.label(RichText::new(line).color(color))
            .on_hover_text(format!(
                "Every summarizer call (failed ones included) + the charged cache losses − the \
             savings.\n{BALANCE_FORMULA}"
            ));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_figures_sort_below_known_ones() {
        assert!(sort_key(None, 3) < -1_000_000_000);
    }
}
