//! The replace preview: validity, shadowed nodes, the meter's totals before and after, the
//! resulting surface, an editable summary, the exact event line, copy, and "save as new log"
//! with what `check` would say about the saved file.

use std::path::Path;

use egui::{RichText, ScrollArea, Ui};

use surface_engine::{Preview, Severity};
use surface_store::{Format, WriteTarget};

use crate::chrome::path_field::{PathField, path_field_ui};
use crate::command::PreviewCommand;
use crate::command::UiCommand;
use crate::command::WindowCommand;
use crate::preview::saved_check::added_findings;
use crate::preview::state::PreviewState;
use crate::session::loaded::Session;
use crate::theme;
use crate::view::ViewState;

/// Shows the preview pane.
pub fn preview_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut PreviewState,
    blocking: bool,
    commands: &mut Vec<UiCommand>,
) {
    if view.range_start.is_none() {
        ui.label("Click a node in the surface panel, then shift-click another, to preview replacing that range with a summary.");
        return;
    }
    if view.range_end.is_none() {
        ui.label("Now shift-click the last node of the range in the surface panel.");
        return;
    }
    if state.save_path.is_empty()
        && let Some(p) = state.suggested_path(Some(session))
    {
        state.save_path = p.display().to_string();
    }
    if session.meter().is_none() {
        ui.horizontal(|ui| {
            ui.label(format!(
                "The preview's token figures: {}",
                crate::session::loaded::PENDING
            ));
        })
        .response
        .on_hover_text(crate::session::loaded::PENDING_METER_HOVER);
        return;
    }
    let summary_before = state.summary.clone();
    ScrollArea::vertical()
        .id_salt("preview")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let Some(preview) = state.refresh(session, view).cloned() else {
                return;
            };
            validity_ui(ui, &preview, state, commands);
            totals_ui(ui, &preview);
            ui.separator();
            let label = ui.label(RichText::new("Replacement summary").strong());
            ui.add(
                egui::TextEdit::multiline(&mut state.summary)
                    .desired_rows(3)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
            ui.label(format!(
                "Resulting surface: {}",
                seq_list(&preview.after_nodes)
            ));
            ui.separator();
            save_ui(ui, session, &preview, state, commands);
            saved_check_ui(ui, session, &preview, state, blocking);
        });
    if state.summary != summary_before {
        ui.ctx().request_repaint();
    }
}

/// Seqs as a comma-separated list.
fn seq_list(seqs: &[u64]) -> String {
    seqs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the op holds at the cursor and at the end of the log, its errors and warnings,
/// and the nodes it shadows.
fn validity_ui(
    ui: &mut Ui,
    preview: &Preview,
    state: &PreviewState,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let op = &preview.event["surfaceOp"];
    // Wrapped: in a narrow side panel the button goes to the next line instead of past the
    // panel's edge, where it would be cut off.
    ui.horizontal_wrapped(|ui| {
        let (text, color) = if preview.valid {
            ("● valid at the cursor", pal.on_surface)
        } else {
            ("× invalid at the cursor", pal.error)
        };
        ui.label(RichText::new(text).color(color).strong());
        ui.label(format!("replace {}..{}", op["start"], op["end"]));
        if ui
            .button("Clear")
            .on_hover_text("Drop the range (Esc)")
            .clicked()
        {
            commands.push(PreviewCommand::ClearRange.into());
        }
    });
    for e in &preview.errors {
        ui.label(RichText::new(format!("• {e}")).color(pal.error));
    }
    let (text, color) = match state.end_problem() {
        None => (
            "● valid at the end of the log, where a saved copy appends it".to_string(),
            pal.on_surface,
        ),
        Some(problem) => (
            format!(
                "× invalid at the end of the log, where a saved copy appends it: {problem} — saving is refused"
            ),
            pal.error,
        ),
    };
    ui.label(RichText::new(text).color(color));
    for w in &preview.warnings {
        ui.label(RichText::new(format!("• {w}")).color(pal.warning));
    }
    ui.label(format!(
        "Shadows {} node(s): {}",
        preview.shadowed.len(),
        seq_list(&preview.shadowed)
    ));
}

/// The nodes, the meter's total and the surface's tokens before and after.
fn totals_ui(ui: &mut Ui, preview: &Preview) {
    let delta = preview.after.approx_tokens as i64 - preview.before.approx_tokens as i64;
    egui::Grid::new("preview-totals")
        .num_columns(4)
        .show(ui, |ui| {
            ui.label("");
            ui.label(RichText::new("nodes").strong());
            ui.label(RichText::new("meter total").strong()).on_hover_text(
                "The harness's token meter: what its compaction policy compares with the threshold",
            );
            ui.label(RichText::new("surface").strong())
                .on_hover_text("The sum of the meter's message prices on the surface");
            ui.end_row();
            ui.label("before");
            ui.label(preview.before.nodes.to_string());
            ui.label(preview.before.approx_tokens.to_string());
            ui.label(preview.before.surface_tokens.to_string());
            ui.end_row();
            ui.label("after");
            ui.label(preview.after.nodes.to_string());
            ui.label(format!("{} ({delta:+})", preview.after.approx_tokens));
            ui.label(preview.after.surface_tokens.to_string());
            ui.end_row();
        });
}

/// The event line to append, copy, save through the dialog or to a typed path (asking
/// before replacing a file; the open log's own path refused at once).
fn save_ui(
    ui: &mut Ui,
    session: &Session,
    preview: &Preview,
    state: &mut PreviewState,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.label(RichText::new("Event line to append").strong());
    let line = preview.event_line();
    ui.label(RichText::new(&line).monospace().size(theme::CODE_LINE_SIZE));
    let can_save = state.savable() && session.format != Format::Sqlite;
    ui.horizontal(|ui| {
        if ui.button("Copy event line").clicked() {
            commands.push(WindowCommand::Copy(line.clone()).into());
        }
        if ui
            .add_enabled(can_save, egui::Button::new("Save as new log…"))
            .on_hover_text("Write a copy of the log with this line appended to a new file (the open log is never written)")
            .on_disabled_hover_text("Only an op valid at the cursor and at the end of the log, on a JSONL or Zstandard log, can be saved")
            .clicked()
        {
            commands.push(PreviewCommand::SaveDialog.into());
        }
    });
    let field = PathField {
        label: "or to path:",
        hint: "the new log's file",
        button: "Write",
        enabled: can_save,
        max_width: f32::INFINITY,
    };
    if let Some(target) = path_field_ui(ui, &mut state.save_path, &field) {
        if asks_before_replacing(&target, session) {
            state.confirm_replace = Some(target);
        } else {
            state.confirm_replace = None;
            commands.push(PreviewCommand::SaveAs(target).into());
        }
    }
    if state.path_is_the_log(session) {
        ui.label(
            RichText::new(
                "× that is the open log: surface-viewer never writes to it — choose another file",
            )
            .color(pal.error),
        );
    }
    replace_question_ui(ui, state, commands);
}

/// True when `target` exists and the store's write rule would let a confirmation replace it:
/// the open log, a file of its session and any session log are refused by the save itself,
/// with their reason — nothing to ask.
fn asks_before_replacing(target: &Path, session: &Session) -> bool {
    std::fs::symlink_metadata(target).is_ok()
        && WriteTarget::new(target, session.path())
            .replacing(true)
            .check()
            .is_ok()
}

/// "… exists. Replace it?" for the path asked about, while that path is the one typed.
fn replace_question_ui(ui: &mut Ui, state: &mut PreviewState, commands: &mut Vec<UiCommand>) {
    let Some(target) = state.confirm_replace.clone() else {
        return;
    };
    if target.as_os_str() != state.save_path.trim() {
        state.confirm_replace = None;
        return;
    }
    let pal = theme::palette(ui);
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new(format!("{} exists. Replace it?", target.display())).color(pal.warning),
        );
        if ui.button("Replace").clicked() {
            commands.push(PreviewCommand::SaveAsReplacing(target.clone()).into());
            state.confirm_replace = None;
        }
        if ui.button("Cancel").clicked() {
            state.confirm_replace = None;
        }
    });
}

/// What `check` would say about the saved file beyond the log's own findings, computed
/// (in the background for a long log) while the op can be saved.
fn saved_check_ui(
    ui: &mut Ui,
    session: &Session,
    preview: &Preview,
    state: &mut PreviewState,
    blocking: bool,
) {
    if !state.savable() || session.format == Format::Sqlite {
        return;
    }
    let pal = theme::palette(ui);
    let line = preview.event_line();
    if state.saved_check.poll() {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
    state
        .saved_check
        .ensure(session, &line, Some(ui.ctx()), blocking);
    let pending = |ui: &mut Ui, what: &str| {
        ui.label(RichText::new(format!("check on the saved file: {what}")).color(pal.weak_text));
    };
    let (saved, log) = match (state.saved_check.outcome(session, &line), &session.findings) {
        (None, _) => return pending(ui, crate::session::loaded::PENDING),
        (Some(Err(e)), _) => {
            ui.label(
                RichText::new(format!("× the saved file could not be checked: {e}"))
                    .color(pal.error),
            );
            return;
        }
        (Some(Ok(_)), None) => {
            return pending(ui, "waiting for the log's own findings");
        }
        (Some(Ok(saved)), Some(index)) => (saved, &index.list),
    };
    let added = added_findings(log, saved);
    if added.is_empty() {
        ui.label(
            RichText::new("● check finds nothing new in the saved file").color(pal.on_surface),
        );
        return;
    }
    ui.label(
        RichText::new(format!(
            "check would report {} in the saved file that the log does not have:",
            crate::wording::count(added.len(), "more finding")
        ))
        .color(pal.warning),
    );
    for f in added {
        let icon = if f.severity == Severity::Error {
            "■"
        } else {
            "▲"
        };
        let place = crate::findings::row::place_of(f);
        ui.label(
            RichText::new(format!("{icon} {} · {place}: {}", f.rule, f.message))
                .color(pal.severity(f.severity)),
        );
    }
}
