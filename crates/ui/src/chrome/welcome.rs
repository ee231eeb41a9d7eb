//! What the window shows before any log is loaded: open a log, the sample or a folder, and
//! the recent files.

use egui::{RichText, Ui};

use crate::command::{BrowserCommand, SessionCommand, UiCommand};
use crate::theme;
use crate::view::Prefs;

/// What the window shows before any log is loaded.
pub fn welcome_ui(ui: &mut Ui, prefs: &Prefs, commands: &mut Vec<UiCommand>) {
    ui.vertical_centered(|ui| {
        ui.add_space(60.0);
        ui.heading("surface-viewer");
        ui.label("See what an LLM agent actually saw: the event log beside the surface, replay, provenance and replace previews.");
        ui.add_space(theme::SPACE_LARGE);
        if ui.button("Open a session log…").clicked() {
            commands.push(SessionCommand::OpenDialog.into());
        }
        if ui.button("Open the bundled sample").clicked() {
            commands.push(SessionCommand::OpenSample.into());
        }
        if ui.button("Open a folder of sessions…").clicked() {
            commands.push(BrowserCommand::OpenFolderDialog.into());
        }
        ui.label("…or drop a .jsonl, .jsonl.zstd or SQLite file, or a folder, on this window.");
        if !prefs.recent.is_empty() {
            ui.add_space(theme::SPACE_LARGE);
            ui.label(RichText::new("Recent files").strong());
            for path in &prefs.recent {
                if ui.link(path.display().to_string()).clicked() {
                    commands.push(SessionCommand::Open(path.clone()).into());
                }
            }
        }
    });
}
