//! The typed path beside every file dialog (Open, Open folder, Prices, Compare with…, Save as,
//! Export this folder…): a label, a field and a button, the same in each place. On a machine without a
//! desktop file-dialog service the native dialog closes at once, and this is the way to name
//! a file.

use std::path::PathBuf;

use egui::Ui;

use crate::session::loader::DialogPurpose;

/// What one path field says.
pub struct PathField<'a> {
    /// The label before the field ("or its path:"); the field is labelled by it.
    pub label: &'a str,
    /// The field's hint while it is empty.
    pub hint: &'a str,
    /// The button that takes the path (Enter in the field does the same).
    pub button: &'a str,
    /// Whether the button may be used now.
    pub enabled: bool,
    /// The widest the field grows (`f32::INFINITY`: all the room the button leaves).
    pub max_width: f32,
}

/// The label, the field and its button on one line, the field taking the room the button
/// leaves (up to `max_width`), so both stay inside the panel or menu. The path typed (trimmed,
/// not empty) when the button was clicked or Enter pressed in the field.
pub fn path_field_ui(ui: &mut Ui, text: &mut String, field: &PathField<'_>) -> Option<PathBuf> {
    let mut taken = false;
    ui.horizontal(|ui| {
        let label = ui.label(field.label);
        let spacing = ui.spacing().clone();
        let button_width = egui::WidgetText::from(field.button)
            .into_galley(
                ui,
                Some(egui::TextWrapMode::Extend),
                f32::INFINITY,
                egui::TextStyle::Button,
            )
            .size()
            .x
            + 2.0 * spacing.button_padding.x
            + spacing.item_spacing.x;
        let width = (ui.available_width() - button_width)
            .min(field.max_width)
            .max(spacing.text_edit_width / 4.0);
        let edit = ui
            .add(
                egui::TextEdit::singleline(text)
                    .hint_text(field.hint)
                    .desired_width(width),
            )
            .labelled_by(label.id);
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let button = ui.add_enabled(field.enabled, egui::Button::new(field.button));
        taken = button.clicked() || (enter && field.enabled);
    });
    let typed = text.trim();
    (taken && !typed.is_empty()).then(|| PathBuf::from(typed))
}

/// [`path_field_ui`] whose text lives in the window's memory under `salt` (for menus, which
/// keep no state of their own), starting as `initial`.
pub fn remembered_path_field_ui(
    ui: &mut Ui,
    salt: &str,
    initial: impl FnOnce() -> String,
    field: &PathField<'_>,
) -> Option<PathBuf> {
    let id = ui.scope_id().with(salt);
    let mut text = ui
        .data_mut(|d| d.get_temp::<String>(id))
        .unwrap_or_else(initial);
    let taken = path_field_ui(ui, &mut text, field);
    ui.data_mut(|d| d.insert_temp(id, text));
    taken
}

/// The notice when a dialog answered nothing: without a desktop file-dialog service it closes
/// at once, so it says where to type the path instead.
pub fn no_choice(purpose: DialogPurpose) -> &'static str {
    match purpose {
        DialogPurpose::Open => {
            "No file chosen (without a desktop file-dialog service the dialog closes at once: type its path under File ▸ Open a path, drop a file on the window, or pick one under File ▸ Recent files)."
        }
        DialogPurpose::OpenFolder => {
            "No folder chosen (without a desktop file-dialog service the dialog closes at once: type its path under File ▸ Open a path, or pick one under File ▸ Recent folders)."
        }
        DialogPurpose::Compare | DialogPurpose::CompareBeside => {
            "No file chosen (without a desktop file-dialog service the dialog closes at once: type the second run's path in the Compare tab, or pick a recent file under File ▸ Compare with)."
        }
        DialogPurpose::Prices => {
            "No file chosen (without a desktop file-dialog service the dialog closes at once: type the price file's path under File ▸ Prices, \"or its path:\")."
        }
        DialogPurpose::Save => {
            "No file chosen (without a desktop file-dialog service the dialog closes at once: type the new log's path in the preview's \"or to path:\" field and press Write)."
        }
        DialogPurpose::ExportTo => {
            "No folder chosen (without a desktop file-dialog service the dialog closes at once: type the new folder's path under Export this folder…, \"or its path:\", and press Export)."
        }
    }
}
