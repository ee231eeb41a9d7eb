//! The replace preview: validity, shadowed nodes, the meter's totals before and after, the
//! resulting surface, an editable summary, the exact event line, copy, and "save as new log".

use std::path::PathBuf;

use egui::{RichText, ScrollArea, Ui};

use surface_engine::{Preview, PreviewRequest, preview_replace};
use surface_store::Format;

use crate::command::PreviewCommand;
use crate::command::UiCommand;
use crate::command::WindowCommand;
use crate::session::loaded::Session;
use crate::theme;
use crate::view::ViewState;

/// Default summary text of a new preview.
const DEFAULT_SUMMARY: &str = "Summary of the replaced conversation span.";

/// UI-only state of the preview pane.
#[derive(Debug)]
pub struct PreviewState {
    /// The replacement text the user edits.
    pub summary: String,
    /// Path typed for "save as new log".
    pub save_path: String,
    /// `(cursor, first event, last event, summary)` and the preview computed for them.
    cached: Option<((usize, u64, u64, String), Preview)>,
    /// The surface at the end of the log, where a saved op lands.
    end: crate::preview::end::EndSurface,
    /// Why the cached preview's op would be rejected at the end of the log.
    end_problem: Option<String>,
    /// A path that exists and that "Write" would replace: asked about first.
    pub confirm_replace: Option<PathBuf>,
}

impl Default for PreviewState {
    fn default() -> Self {
        PreviewState {
            summary: DEFAULT_SUMMARY.to_string(),
            save_path: String::new(),
            cached: None,
            end: Default::default(),
            end_problem: None,
            confirm_replace: None,
        }
    }
}

impl PreviewState {
    /// Drops the cached preview (a new log was loaded).
    pub fn reset(&mut self) {
        self.cached = None;
        self.save_path.clear();
        self.end.reset();
        self.end_problem = None;
        self.confirm_replace = None;
    }

    /// Why the current op would be rejected at the end of the log, where saving appends it
    /// (`None`: it holds there).
    pub fn end_problem(&self) -> Option<&str> {
        self.end_problem.as_deref()
    }

    /// True when the current op can be saved: valid at the cursor and at the end of the log.
    pub fn savable(&self) -> bool {
        self.current().is_some_and(|p| p.valid) && self.end_problem.is_none()
    }

    /// The preview computed last.
    pub fn current(&self) -> Option<&Preview> {
        self.cached.as_ref().map(|(_, p)| p)
    }

    /// Recomputes the preview when the range, cursor or summary changed.
    pub fn refresh(&mut self, session: &Session, view: &ViewState) -> Option<&Preview> {
        let (Some(a), Some(b)) = (view.range_start, view.range_end) else {
            self.cached = None;
            return None;
        };
        let key = (
            session.cursor(),
            a.0 as u64,
            b.0 as u64,
            self.summary.clone(),
        );
        if self.cached.as_ref().is_none_or(|(k, _)| *k != key) {
            // Order the endpoints by surface position, so that shift-clicking upwards works too.
            let (first, last) = match (session.node_position(a), session.node_position(b)) {
                (Some(x), Some(y)) if y < x => (b, a),
                _ => (a, b),
            };
            let req = PreviewRequest {
                start: session.log.event(first).seq,
                end: session.log.event(last).seq,
                summary: self.summary.clone(),
                time: None,
            };
            // The preview's figures are the meter's: none before it landed.
            let meter = session.meter()?;
            let preview = preview_replace(&session.log, &session.surface, meter, &req);
            self.end_problem = self.end.problem(session, req.start, req.end);
            self.cached = Some((key, preview));
        }
        self.current()
    }

    /// A default path for the new log: next to the open one, with a suffix.
    pub fn suggested_path(&self, session: Option<&Session>) -> Option<PathBuf> {
        let path = session?.path()?;
        let stem = path
            .file_name()?
            .to_string_lossy()
            .replace(".session.jsonl", "")
            .replace(".jsonl", "");
        Some(path.with_file_name(format!("{stem}.with-replace.session.jsonl")))
    }
}

/// Shows the preview pane.
pub fn preview_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut PreviewState,
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
    ui.horizontal(|ui| {
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
/// before replacing a file).
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
    ui.horizontal(|ui| {
        let label = ui.label("or to path:");
        ui.add(
            egui::TextEdit::singleline(&mut state.save_path)
                .desired_width(ui.available_width() - 70.0),
        )
        .labelled_by(label.id);
        if ui
            .add_enabled(can_save, egui::Button::new("Write"))
            .clicked()
        {
            let target = PathBuf::from(state.save_path.trim());
            if target.exists() {
                state.confirm_replace = Some(target);
            } else {
                state.confirm_replace = None;
                commands.push(PreviewCommand::SaveAs(target).into());
            }
        }
    });
    let Some(target) = state.confirm_replace.clone() else {
        return;
    };
    if target.as_os_str() != state.save_path.trim() {
        state.confirm_replace = None;
        return;
    }
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
