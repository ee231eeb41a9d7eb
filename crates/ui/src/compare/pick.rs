//! Choosing the second run (B) without a file dialog: File ▸ Compare with offers the native
//! dialog, the recent files and a path field, since on a machine without a desktop
//! file-dialog service the dialog closes at once (the Compare tab's empty state offers the
//! same). Every choice is a [`CompareCommand::With`], applied as the dialog's answer is.

use std::path::{Path, PathBuf};

use egui::{RichText, Ui};

use crate::chrome::path_field::{PathField, remembered_path_field_ui};
use crate::command::UiCommand;
use crate::compare::command::CompareCommand;
use crate::theme;

/// The choices of B: the dialog, the recent files other than the one shown (A), a path
/// field. `menu` closes the menu once a choice is made.
pub fn pick_b_ui(
    ui: &mut Ui,
    recent: &[PathBuf],
    shown: Option<&Path>,
    menu: bool,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let mut chose = false;
    if ui
        .button("Pick a file…")
        .on_hover_text("Pick a second run (B) to hold against the open log (A): the Compare tab")
        .clicked()
    {
        commands.push(CompareCommand::OpenDialog.into());
        chose = true;
    }
    let others: Vec<&PathBuf> = recent
        .iter()
        .filter(|p| Some(p.as_path()) != shown)
        .collect();
    if !others.is_empty() {
        ui.label(RichText::new("a recent file:").color(pal.weak_text));
        for path in others {
            if ui.button(path.display().to_string()).clicked() {
                commands.push(CompareCommand::With(path.clone()).into());
                chose = true;
            }
        }
    }
    let field = PathField {
        label: "or its path:",
        hint: "the second run's file",
        button: "Compare with it",
        enabled: true,
        max_width: theme::PRICE_PATH_WIDTH,
    };
    if let Some(typed) = remembered_path_field_ui(ui, "compare-b-path", String::new, &field) {
        commands.push(CompareCommand::With(typed).into());
        chose = true;
    }
    if chose && menu {
        ui.close();
    }
}
