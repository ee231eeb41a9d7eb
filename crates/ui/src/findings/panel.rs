//! The findings panel: every finding of `check`, errors first, click to jump ("computing…"
//! while the loader still computes them); the selected row is scrolled into view.

use egui::{RichText, ScrollArea, Ui};

use surface_engine::Severity;

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::nav::reveal::ListScroll;
use crate::session::loaded::Session;
use crate::theme::{self, Palette};
use crate::view::ViewState;

/// Shows the findings, errors before warnings (virtualised: a log can have many).
pub fn findings_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    (row, scroll): (Option<usize>, &mut ListScroll),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let Some(index) = session.findings.as_ref() else {
        ui.horizontal(|ui| {
            ui.label(format!("Findings: {}", crate::session::loaded::PENDING));
        });
        ui.label(
            RichText::new("The checks run in the background after a long log is read; they appear here in a moment.")
                .color(pal.weak_text),
        );
        return;
    };
    let (errors, warnings) = index.counts();
    if errors + warnings == 0 {
        ui.label(RichText::new("No findings: the log passes every check.").color(pal.on_surface));
        return;
    }
    counts_ui(ui, (errors, warnings), &pal, commands);
    ui.separator();
    let order = &index.order;
    let row_height = theme::FINDING_ROW_HEIGHT;
    // The row selected by a key or a jump is scrolled into view.
    if let Some(row) = row.filter(|_| view.reveal.is_some()) {
        scroll.reveal_row(row, row_height);
    }
    let area = ScrollArea::vertical()
        .id_salt("findings")
        .auto_shrink([false, false]);
    let output = scroll
        .area(area)
        .show_rows(ui, row_height, order.len(), |ui, rows| {
            for row in rows {
                let Some(&n) = order.get(row) else { continue };
                let Some(f) = index.list.get(n) else {
                    continue;
                };
                let target = index.events.get(n).copied().flatten();
                let first_of_group = row == 0
                    || order
                        .get(row - 1)
                        .and_then(|&p| index.list.get(p))
                        .is_some_and(|p| p.severity != f.severity);
                let color = pal.severity(f.severity);
                let icon = if f.severity == Severity::Error {
                    "■"
                } else {
                    "▲"
                };
                let place = crate::findings::row::place_of(f);
                let selected = target.is_some() && target == view.selected;
                ui.set_min_height(row_height);
                let width = ui.available_width() - 2.0 * ui.spacing().button_padding.x;
                let font = egui::TextStyle::Button.resolve(ui.style());
                let text = crate::findings::row::finding_row_galley(
                    &format!("{icon} {} · {place}", f.rule),
                    &f.message,
                    (&font, color, width),
                    |job| ui.fonts_mut(|fonts| fonts.layout_job(job)),
                );
                let mut button = egui::Button::new(text)
                    .selected(selected)
                    .min_size(egui::vec2(ui.available_width(), row_height - 2.0));
                if first_of_group {
                    button = button.stroke(egui::Stroke::new(theme::STROKE_THIN, color));
                }
                let r = ui
                    .add_enabled(target.is_some(), button)
                    .on_hover_text(f.message.as_str());
                if r.clicked() {
                    commands.push(
                        NavCommand::FocusList(crate::nav::navigate::ListKind::Findings).into(),
                    );
                    commands.push(NavCommand::JumpToFinding(n).into());
                }
            }
        });
    scroll.update(&output, ui.ctx());
}

/// The counts of errors and warnings, and the buttons to the previous and next finding.
fn counts_ui(
    ui: &mut Ui,
    (errors, warnings): (usize, usize),
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!("{errors} error(s)"))
                .color(pal.error)
                .strong(),
        );
        ui.label(
            RichText::new(format!("{warnings} warning(s)"))
                .color(pal.warning)
                .strong(),
        );
        if ui
            .button("◁")
            .on_hover_text("Previous finding (Shift+F8)")
            .clicked()
        {
            commands.push(NavCommand::PrevFinding.into());
        }
        if ui.button("▷").on_hover_text("Next finding (F8)").clicked() {
            commands.push(NavCommand::NextFinding.into());
        }
    });
}
