//! The Policy tab (viewer-spec §10, issue #24): the policy's settings as fields, verify or
//! what-if, the settings inferred from the log, one verdict per check (a click moves the
//! cursor there), the first divergence, and the log's totals beside the replay's.

use egui::{RichText, Role, ScrollArea, Sense, TextEdit, Ui, WidgetInfo};

use surface_engine::policy::{PolicyReport, PolicySettings, ReplayMode};

use crate::command::NavCommand;
use crate::command::PolicyCommand;
use crate::command::UiCommand;
use crate::policy::fields::{PolicyFields, interval_text};
use crate::policy::job::PolicyJob;
use crate::policy::rows::{VERDICT_COLUMNS, totals_rows, verdict_cells};
use crate::session::loaded::Session;
use crate::theme;

/// The tab's state: the settings and mode in force (changed only by commands), the text of
/// the fields, the background work.
#[derive(Debug)]
pub struct PolicyTabState {
    /// The settings replayed.
    pub settings: PolicySettings,
    /// Verify or what-if.
    pub mode: ReplayMode,
    /// The fields' text (may not parse while being typed).
    pub fields: PolicyFields,
    /// The input and reports of the open log.
    pub job: PolicyJob,
}

impl Default for PolicyTabState {
    fn default() -> Self {
        let settings = PolicySettings::default();
        PolicyTabState {
            fields: PolicyFields::of(&settings),
            settings,
            mode: ReplayMode::Verify,
            job: PolicyJob::default(),
        }
    }
}

impl PolicyTabState {
    /// Forgets the open log's work (a new log was loaded); the settings stay.
    pub fn reset(&mut self) {
        self.job.reset();
    }

    /// The what-if report to draw over the context strip: the latest what-if report when the
    /// tab is `shown` in what-if mode.
    pub fn what_if_shown(&self, shown: bool) -> Option<std::sync::Arc<PolicyReport>> {
        if !shown || self.mode != ReplayMode::WhatIf {
            return None;
        }
        self.job
            .landed(ReplayMode::WhatIf)
            .map(|(_, report)| std::sync::Arc::clone(report))
    }

    /// Puts `settings` in force and rewrites the fields to show them (Use inferred settings).
    pub fn set_settings(&mut self, settings: PolicySettings) {
        self.settings = settings;
        self.fields = PolicyFields::of(&settings);
    }
}

/// Draws the tab.
pub fn policy_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut PolicyTabState,
    synchronous: bool,
    commands: &mut Vec<UiCommand>,
) {
    let palette = theme::palette(ui);
    ui.horizontal(|ui| {
        ui.label("Mode:");
        for (mode, label, hover) in [
            (
                ReplayMode::Verify,
                "verify",
                "Replay every check on the log as it is and hold each decision against the log's",
            ),
            (
                ReplayMode::WhatIf,
                "what-if",
                "Remove the log's compactions and replay the session with these settings",
            ),
        ] {
            if ui
                .selectable_label(state.mode == mode, label)
                .on_hover_text(hover)
                .clicked()
                && state.mode != mode
            {
                commands.push(PolicyCommand::SetPolicyMode(mode).into());
            }
        }
    });
    ui.add_space(theme::SPACE_SMALL);
    if settings_fields(ui, &mut state.fields) {
        match state.fields.parse(&state.settings) {
            Ok(settings) if settings != state.settings => {
                commands.push(PolicyCommand::SetPolicySettings(settings).into());
            }
            _ => {}
        }
    }
    if let Err(why) = state.fields.parse(&state.settings) {
        ui.label(RichText::new(why).color(palette.error));
    }
    let Some(meter) = session.meter() else {
        ui.label(format!("Token meter {}", crate::session::loaded::PENDING));
        return;
    };
    let window = meter.window_at(session.len());
    if let Err(e) = state.settings.validate(window) {
        ui.label(RichText::new(e.to_string()).color(palette.error));
        return;
    }
    state.job.ensure(
        session,
        &state.settings,
        state.mode,
        Some(ui.ctx()),
        synchronous,
    );
    if state.job.poll() {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
    let current = state
        .job
        .report_for(session.len(), &state.settings, state.mode)
        .is_some();
    let Some(report) = state.job.report_or_latest(state.mode).cloned() else {
        ui.label(format!(
            "Replaying the policy {}",
            crate::session::loaded::PENDING
        ));
        return;
    };
    if !current {
        ui.label(RichText::new("Replaying the new settings…").color(palette.weak_text));
    }
    inferred_ui(ui, &report, commands);
    ui.separator();
    summary_ui(ui, &report, &palette);
    ui.separator();
    verdicts_ui(ui, &report, &palette, commands);
}

/// The settings' fields; true when one changed.
fn settings_fields(ui: &mut Ui, fields: &mut PolicyFields) -> bool {
    let mut changed = false;
    egui::Grid::new("policy-settings")
        .num_columns(2)
        .spacing([theme::SPACE, theme::SPACE_SMALL])
        .show(ui, |ui| {
            changed |= field(ui, "threshold ratio T", &mut fields.threshold_ratio);
            ui.end_row();
            ui.horizontal(|ui| {
                changed |= ui
                    .radio_value(&mut fields.retain_in_tokens, false, "R")
                    .on_hover_text("Retain a share of the window")
                    .changed();
                changed |= ui
                    .radio_value(&mut fields.retain_in_tokens, true, "N")
                    .on_hover_text("Retain a number of tokens")
                    .changed();
            });
            if fields.retain_in_tokens {
                changed |= text_field(ui, "retain tokens N", &mut fields.retain_tokens);
            } else {
                changed |= text_field(ui, "retain ratio R", &mut fields.retain_ratio);
            }
            ui.end_row();
            changed |= field(ui, "compaction retries", &mut fields.compaction_retries);
            ui.end_row();
            changed |= ui
                .checkbox(&mut fields.pruner_on, "pruner")
                .on_hover_text("The tool-result pruner runs before summarising")
                .changed();
            ui.end_row();
            if fields.pruner_on {
                changed |= field(ui, "prune threshold", &mut fields.prune_threshold);
                ui.end_row();
                changed |= field(ui, "prune head", &mut fields.prune_head);
                ui.end_row();
                changed |= field(ui, "prune tail", &mut fields.prune_tail);
                ui.end_row();
            }
            changed |= field(ui, "summary tokens", &mut fields.summary_tokens);
            ui.end_row();
        });
    changed
}

/// A labelled text field (its label names it for screen readers and tests).
fn field(ui: &mut Ui, label: &str, text: &mut String) -> bool {
    ui.label(label);
    text_field(ui, label, text)
}

fn text_field(ui: &mut Ui, label: &str, text: &mut String) -> bool {
    let hint = if label == "summary tokens" {
        "the log's mean"
    } else {
        ""
    };
    let response = ui.add(
        TextEdit::singleline(text)
            .desired_width(theme::POLICY_FIELD_WIDTH)
            .hint_text(hint),
    );
    response.widget_info(|| WidgetInfo::labeled(Role::TextInput, true, label));
    response.changed()
}

/// The intervals the log's decisions allow, and the button that takes a setting inside them.
fn inferred_ui(ui: &mut Ui, report: &PolicyReport, commands: &mut Vec<UiCommand>) {
    let inferred = &report.inferred;
    ui.label(RichText::new("Inferred from the log").strong());
    let pruner = match inferred.pruner {
        Some(true) => "on",
        Some(false) => "off",
        None => "—",
    };
    ui.label(format!(
        "T {} · retain {} tokens · pruner {pruner} · prune threshold {}",
        interval_text(inferred.threshold_ratio.map(|r| r.map(round3)), true),
        interval_text(inferred.retain_tokens, false),
        interval_text(inferred.threshold_chars, false),
    ));
    for conflict in &inferred.conflicts {
        ui.label(format!("conflict: {conflict}"));
    }
    if ui
        .button("Use inferred settings")
        .on_hover_text("Set the settings to a value inside every inferred interval")
        .clicked()
    {
        commands.push(PolicyCommand::UseInferredSettings.into());
    }
}

/// `x` to three decimals (for display).
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The first divergence and the totals, the log's beside the replay's.
fn summary_ui(ui: &mut Ui, report: &PolicyReport, palette: &theme::Palette) {
    match &report.first_divergence {
        Some(d) => ui.label(
            RichText::new(format!(
                "First divergence at seq {}: {}",
                d.step_start_seq, d.why
            ))
            .color(palette.warning),
        ),
        None => ui.label(format!(
            "No divergence: {} checks, {} disagree",
            report.checks.len(),
            report.disagreements()
        )),
    };
    for note in &report.notes {
        ui.label(RichText::new(note).color(palette.weak_text));
    }
    let replay = match report.mode {
        ReplayMode::Verify => "verify",
        ReplayMode::WhatIf => "what-if",
    };
    egui::Grid::new("policy-totals")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            ui.label("");
            ui.label(RichText::new("actual").strong());
            ui.label(RichText::new(replay).strong());
            ui.end_row();
            for (name, actual, what_if) in totals_rows(&report.actual_totals, &report.totals) {
                ui.label(name);
                ui.label(actual);
                ui.label(what_if)
                    .on_hover_text(format!("{name} ({replay})"));
                ui.end_row();
            }
        });
}

/// The verdict table's column widths: the theme's, narrowed in proportion when the panel is
/// narrower than they are together, so that the last column (agrees) is never cut off.
fn column_widths(available: f32, spacing: f32) -> [f32; 5] {
    let columns = theme::POLICY_COLUMNS;
    let gaps = spacing * (columns.len() - 1) as f32;
    let wanted: f32 = columns.iter().sum();
    let scale = ((available - gaps) / wanted).clamp(0.5, 1.0);
    columns.map(|w| w * scale)
}

/// One row per check; a click moves the cursor to the check, hovering shows what differs.
fn verdicts_ui(
    ui: &mut Ui,
    report: &PolicyReport,
    palette: &theme::Palette,
    commands: &mut Vec<UiCommand>,
) {
    let widths = column_widths(ui.available_width(), ui.spacing().item_spacing.x);
    ui.horizontal(|ui| {
        for (title, width) in VERDICT_COLUMNS.iter().zip(widths) {
            ui.add_sized(
                [width, theme::POLICY_ROW_HEIGHT],
                egui::Label::new(RichText::new(*title).strong()),
            );
        }
    });
    if report.checks.is_empty() {
        ui.label("No checks: the log has no steps or /compact commands.");
        return;
    }
    ScrollArea::vertical()
        .id_salt("policy-verdicts")
        .auto_shrink([false, true])
        .show_rows(
            ui,
            theme::POLICY_ROW_HEIGHT,
            report.checks.len(),
            |ui, rows| {
                for check in &report.checks[rows] {
                    let cells = verdict_cells(check);
                    let row = ui.horizontal(|ui| {
                        let mut clicked = false;
                        for (k, (text, width)) in cells.iter().zip(widths).enumerate() {
                            let mut rich = RichText::new(text);
                            if k == 4 && check.agrees == Some(false) {
                                rich = rich.color(palette.error);
                            }
                            let cell = ui.add_sized(
                                [width, theme::POLICY_ROW_HEIGHT],
                                egui::Label::new(rich).truncate().sense(Sense::click()),
                            );
                            clicked |= cell.clicked();
                        }
                        clicked
                    });
                    let hover = check
                        .why
                        .clone()
                        .unwrap_or_else(|| "Click: move the cursor to this check".to_string());
                    let response = row.response.interact(Sense::hover()).on_hover_text(hover);
                    response.widget_info(|| {
                        WidgetInfo::labeled(
                            Role::Button,
                            true,
                            format!("check seq {}", check.step_start_seq),
                        )
                    });
                    if row.inner {
                        commands.push(NavCommand::Seek(check.cursor).into());
                    }
                }
            },
        );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_columns_fit_a_narrow_panel() {
        let wide = column_widths(1000.0, 8.0);
        assert_eq!(
            wide,
            theme::POLICY_COLUMNS,
            "room enough: the theme's widths"
        );
        let narrow = column_widths(360.0, 8.0);
        let total: f32 = narrow.iter().sum::<f32>() + 4.0 * 8.0;
        assert!(total <= 360.0 + 0.01, "{total}");
        assert!(narrow[4] > 0.0);
    }
}
