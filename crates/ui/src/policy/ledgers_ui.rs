//! The Policy tab's what-if ledgers on screen: the log's and the what-if's side by side, each
//! row's formula on hover, the what-if column marked `~` as the estimate it is, what it rests
//! on, and the fired / summaries / prunes ranges.

use egui::{RichText, Ui};

use crate::policy::ledgers::{WhatIfLedgers, basis_lines, ledger_rows, ledger_table};
use crate::theme;

/// Draws both ledgers and the estimate's basis.
pub fn ledgers_ui(ui: &mut Ui, l: &WhatIfLedgers, palette: &theme::Palette) {
    ui.label(RichText::new("Ledgers").strong());
    let formulas: Vec<(&str, &str)> = ledger_rows().iter().map(|(n, f, _)| (*n, *f)).collect();
    egui::Grid::new("policy-ledgers")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            ui.label("");
            ui.label(RichText::new("actual").strong());
            ui.label(RichText::new("what-if ~").strong())
                .on_hover_text("An estimate: the figures it rests on are below");
            ui.end_row();
            for (name, actual, what_if) in ledger_table(l) {
                let formula = formulas
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or("", |(_, f)| *f);
                ui.label(name).on_hover_text(formula);
                ui.label(actual).on_hover_text(formula);
                ui.label(what_if).on_hover_text(formula);
                ui.end_row();
            }
        });
    if let Some(c) = &l.actual.currency {
        ui.label(RichText::new(format!("money in {c}")).color(palette.weak_text));
    }
    if let Some(r) = &l.ranges {
        egui::Grid::new("policy-ranges")
            .num_columns(2)
            .show(ui, |ui| {
                for (name, range) in [
                    ("fired", r.fired),
                    ("summaries", r.summaries),
                    ("prunes", r.prunes),
                ] {
                    ui.label(format!("{name} (what-if range)"));
                    ui.label(format!("{} ({}–{})", range.likely, range.min, range.max))
                        .on_hover_text(
                            "likely (min–max): the counts with every later threshold moved by the observed spread",
                        );
                    ui.end_row();
                }
                ui.label("near checks");
                ui.label(r.near.to_string());
                ui.end_row();
            });
    }
    for line in basis_lines(&l.basis) {
        ui.label(RichText::new(line).color(palette.weak_text));
    }
}
