//! The fleet columns' cells in the sessions browser: the policy's verdict coloured by what it
//! says, disagreements, peak fill as a percentage (red at or over the window), and the cost in
//! the price file's currency (`unpriced` when a call's model has no price: never 0); each
//! cell's tooltip names its figures.

use egui::{RichText, Ui};
use surface_analysis::cost::UNPRICED;

use crate::browser::fleet::{FleetFigures, Verdict};
use crate::browser::rows::{BrowserRow, Column};
use crate::theme;

/// The cell of a fleet column (`…` until the session is read, `–` when it has no value).
pub fn fleet_cell(ui: &mut Ui, column: Column, r: &BrowserRow, pal: &theme::Palette) {
    let Some(f) = &r.fleet else {
        let text = if matches!(r.figures, Some(Err(_))) {
            "–"
        } else {
            "…"
        };
        ui.label(RichText::new(text).color(pal.weak_text));
        return;
    };
    match column {
        Column::Policy => {
            let verdict = f.verdict();
            let colour = match verdict {
                Verdict::Agrees => pal.on_surface,
                Verdict::CantJudge => pal.weak_text,
                Verdict::Disagrees(_) => pal.error,
            };
            ui.label(RichText::new(verdict.label()).color(colour))
                .on_hover_text(policy_hover(f));
        }
        Column::Disagreements => {
            ui.label(f.disagreements.to_string())
                .on_hover_text(format!("of {} pressure checks", f.checks));
        }
        Column::PeakFill => match f.peak_fill() {
            Some(fill) => {
                let text = RichText::new(percent(fill));
                let text = if fill >= 1.0 {
                    text.color(pal.error)
                } else {
                    text
                };
                ui.label(text).on_hover_text(format!(
                    "peak total {} ÷ window {}",
                    f.peak_total,
                    f.window.unwrap_or(0)
                ));
            }
            None => {
                ui.label(RichText::new("–").color(pal.weak_text))
                    .on_hover_text("The log states no context window");
            }
        },
        Column::Cost => match f.cost {
            Some(c) => {
                ui.label(money(c, f.currency.as_deref()));
            }
            None if f.currency.is_some() => {
                ui.label(RichText::new(UNPRICED).color(pal.weak_text))
                    .on_hover_text(format!(
                        "The price file has no price for {}: this session's cost is not known",
                        f.unpriced_models.join(", ")
                    ));
            }
            None => {
                ui.label(RichText::new("–").color(pal.weak_text))
                    .on_hover_text("No price file (File ▸ Prices)");
            }
        },
        _ => {}
    }
}

/// The verdict's tooltip: checks, disagreements, checks not judged, the log's compactions.
fn policy_hover(f: &FleetFigures) -> String {
    let mut lines = vec![format!(
        "{} pressure checks, {} disagree, {} with no context window in force ({} where the log compacted: can't judge)",
        f.checks, f.disagreements, f.no_window, f.cant_judge
    )];
    lines.push(format!(
        "the log: {} summaries, {} prunes, peak total {}",
        f.summaries, f.prunes, f.peak_total
    ));
    if let Some(e) = &f.error {
        lines.push(format!("not replayed: {e}"));
    }
    lines.push("verify with the default settings, as `surface-viewer policy DIR`".to_string());
    lines.join("\n")
}

/// 0.734 → "73.4 %".
pub fn percent(fill: f64) -> String {
    format!("{:.1} %", fill * 100.0)
}

/// A cost with 4 decimals and its currency.
pub fn money(x: f64, currency: Option<&str>) -> String {
    match currency {
        Some(c) => format!("{x:.4} {c}"),
        None => format!("{x:.4}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(percent(0.7344), "73.4 %");
        assert_eq!(money(1.5, Some("USD")), "1.5000 USD");
    }
}
