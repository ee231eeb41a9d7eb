//! The keyboard and mouse overlay (F1): every shortcut and gesture from the one table that
//! drives the keys, and the timeline's colours by type family.

use egui::RichText;

use crate::chrome::shortcuts::{GESTURES, SHORTCUTS};
use crate::command::{UiCommand, WindowCommand};
use crate::theme::{self, Family};

/// The keyboard shortcut overlay.
pub fn help_ui(ctx: &egui::Context, commands: &mut Vec<UiCommand>) {
    let modal = egui::Modal::new(egui::Id::unique("help")).show(ctx, |ui| {
        ui.set_width(theme::HELP_WIDTH);
        ui.heading("Keyboard and mouse");
        // Every shortcut and gesture: taller than a laptop screen, so it scrolls.
        let room = ctx.content_rect().height() * theme::HELP_HEIGHT_SHARE;
        egui::ScrollArea::vertical()
            .max_height(room)
            .show(ui, |ui| {
                egui::Grid::new("shortcut-grid")
                    .num_columns(2)
                    .striped(true)
                    .show(ui, |ui| {
                        let mut seen = std::collections::HashSet::new();
                        for s in SHORTCUTS {
                            if seen.insert(s.what) {
                                ui.label(RichText::new(s.keys).monospace());
                                ui.label(s.what);
                                ui.end_row();
                            }
                        }
                        for (gesture, what) in GESTURES {
                            ui.label(RichText::new(*gesture).italics());
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
            });
        ui.add_space(theme::SPACE);
        ui.label("Timeline colours by type family:");
        let pal = theme::palette(ui);
        ui.horizontal_wrapped(|ui| {
            for f in Family::ALL {
                ui.label(RichText::new(f.label()).color(pal.family(f)));
            }
        });
        ui.add_space(theme::SPACE);
        if ui.button("Close").clicked() {
            commands.push(WindowCommand::ToggleHelp.into());
        }
    });
    if modal.should_close() {
        commands.push(WindowCommand::ToggleHelp.into());
    }
}
