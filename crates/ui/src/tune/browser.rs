//! The folder's Tune view in the sessions browser: "Tune this folder…" in the browser's
//! header, then every session under the folder swept over the form's grid (progress in
//! sessions), the files that could not be read named with their error, and a click on a
//! setting selecting it; the selected setting (or a row's menu) opens the folder's first
//! readable session with the Policy tab's what-if at that setting.

use std::path::Path;

use egui::{RichText, Ui};

use surface_reports::tune::Sweep;
use surface_reports::tune::text::setting_text;

use crate::command::UiCommand;
use crate::theme;
use crate::tune::command::{TuneCommand, TuneTarget};
use crate::tune::view::{TuneView, tune_view_ui};

/// The header's button: to the folder's Tune view, or back to its sessions.
pub fn tune_button_ui(ui: &mut Ui, shown: bool, commands: &mut Vec<UiCommand>) {
    let (label, hover) = if shown {
        ("← Sessions", "Back to the folder's sessions")
    } else {
        (
            "Tune this folder…",
            "Which compaction setting to ship, over every session under this folder (surface-viewer tune DIR; docs/tune.md)",
        )
    };
    if ui.button(label).on_hover_text(hover).clicked() {
        commands.push(TuneCommand::ShowFolderTune(!shown).into());
    }
}

/// The view over `root`.
pub fn folder_tune_ui(
    ui: &mut Ui,
    view: &mut TuneView,
    root: &Path,
    (priced, synchronous): (bool, bool),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.label(
        RichText::new(format!(
            "Which setting to ship for every session under {}: each read once, every setting of the grid replayed (docs/tune.md)",
            root.display()
        ))
        .color(pal.weak_text),
    );
    tune_view_ui(
        ui,
        view,
        (TuneTarget::Folder, priced, synchronous),
        commands,
        notes_ui,
    );
}

/// The files that could not be read, and what the selected setting offers.
fn notes_ui(ui: &mut Ui, s: &Sweep, selected: Option<usize>, commands: &mut Vec<UiCommand>) {
    let pal = theme::palette(ui);
    for line in s.sessions_list.iter().filter(|l| l.error.is_some()) {
        ui.label(
            RichText::new(format!(
                "{}: unreadable: {}",
                line.file.display(),
                line.error.as_deref().unwrap_or("")
            ))
            .color(pal.error),
        );
    }
    let Some(i) = selected.filter(|&i| i < s.rows.len()) else {
        ui.label(
            RichText::new("Click a setting to select it; its menu opens a session with it.")
                .color(pal.weak_text),
        );
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new(format!(
                "#{i} {}",
                setting_text(s.rows[i].settings.as_ref())
            ))
            .strong(),
        );
        crate::tune::open_menu::open_first_ui(ui, s, i, commands);
    });
}
