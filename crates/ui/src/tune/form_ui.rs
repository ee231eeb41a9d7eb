//! The Tune view's form on screen: one text field per axis of the grid (its command-line
//! name beside it, the parser's line under it when it does not read), the objective (cost
//! only with a price file, and why not without one), and the two constraints.

use egui::{RichText, Role, TextEdit, Ui, WidgetInfo};

use surface_analysis::policy::tune::Objective;

use crate::theme;
use crate::tune::form::{AXES, Checked, TuneForm};

/// Draws the form (editable unless `locked`, while a sweep runs); `priced`: a price file is
/// in use.
pub fn form_ui(
    ui: &mut Ui,
    form: &mut TuneForm,
    checked: &Checked,
    (priced, locked): (bool, bool),
) {
    let pal = theme::palette(ui);
    ui.add_enabled_ui(!locked, |ui| {
        egui::Grid::new(ui.scope_id().with("tune-form"))
            .num_columns(2)
            .spacing([theme::SPACE, theme::SPACE_SMALL])
            .show(ui, |ui| {
                for (i, (name, _)) in AXES.iter().enumerate() {
                    ui.label(*name);
                    text_field(ui, name, &mut form.axes[i], hint(name));
                    ui.end_row();
                    if let Some(e) = &checked.axis_errors[i] {
                        ui.label("");
                        ui.label(RichText::new(e).color(pal.error));
                        ui.end_row();
                    }
                }
                ui.label("max over window");
                text_field(ui, "max over window", &mut form.max_over_window, "0");
                ui.end_row();
                error_row(ui, checked.window_error.as_deref(), pal.error);
                ui.label("max over threshold");
                text_field(
                    ui,
                    "max over threshold",
                    &mut form.max_over_threshold,
                    "no limit",
                );
                ui.end_row();
                error_row(ui, checked.threshold_error.as_deref(), pal.error);
            });
        if let Some(e) = &checked.grid_error {
            ui.label(RichText::new(e).color(pal.error));
        }
        objective_ui(ui, form, priced, pal.weak_text);
    });
}

fn error_row(ui: &mut Ui, error: Option<&str>, colour: egui::Color32) {
    if let Some(e) = error {
        ui.label("");
        ui.label(RichText::new(e).color(colour));
        ui.end_row();
    }
}

/// What an empty field means.
fn hint(name: &str) -> &'static str {
    match name {
        "retain_tokens" => "(excludes retain_ratio)",
        "summary_tokens" => "each log's mean",
        _ => "the policy's default",
    }
}

/// A field named `label` for screen readers and tests.
fn text_field(ui: &mut Ui, label: &str, text: &mut String, hint: &str) {
    let response = ui.add(
        TextEdit::singleline(text)
            .id_salt(("tune-field", label))
            .desired_width(theme::TUNE_FIELD_WIDTH.min(ui.available_width()))
            .hint_text(hint),
    );
    response.widget_info(|| WidgetInfo::labeled(Role::TextInput, true, label));
    response.on_hover_text("VALUES of NAME=VALUES: a list (0.6,0.7) or FROM:TO:STEP, inclusive");
}

/// Cost or agent prompt tokens; without prices, prompt tokens and why.
fn objective_ui(ui: &mut Ui, form: &mut TuneForm, priced: bool, weak: egui::Color32) {
    ui.horizontal_wrapped(|ui| {
        ui.label("objective:");
        let shown = form.objective(priced);
        let cost = ui
            .add_enabled(
                priced,
                egui::RadioButton::new(shown == Objective::Cost, "cost"),
            )
            .on_hover_text("Σ cost of every call, priced by File ▸ Prices")
            .on_disabled_hover_text("Needs a price file: File ▸ Prices…");
        if cost.clicked() {
            form.objective = Objective::Cost;
        }
        if ui
            .radio(shown == Objective::Prompt, "agent prompt tokens")
            .clicked()
        {
            form.objective = Objective::Prompt;
        }
    });
    if !priced {
        ui.label(
            RichText::new(
                "No price file: ranked by agent prompt tokens (File ▸ Prices… to rank by cost).",
            )
            .color(weak),
        );
    }
}
