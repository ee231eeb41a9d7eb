//! The Policy tab (docs/policy.md, issue #24): the policy's settings as fields, verify or
//! what-if, the settings inferred from the log, the first divergence (a link to its check), and
//! the log's totals beside the replay's in a pane that scrolls (a what-if also its ledgers and
//! the prediction against a real run, `beside`); under it the verdict table (`table`), one row
//! per check, always in view.

use std::sync::Arc;

use egui::{RichText, Role, ScrollArea, TextEdit, Ui, WidgetInfo};

use surface_analysis::policy::{PolicyReport, PolicySettings, ReplayMode, four_digits};

use crate::command::NavCommand;
use crate::command::PolicyCommand;
use crate::command::UiCommand;
use crate::compare::state::CompareRuns;
use crate::policy::fields::{PolicyFields, interval_text};
use crate::policy::job::PolicyJob;
use crate::policy::ledgers::LedgerJob;
use crate::policy::rows::totals_rows;
use crate::policy::table::VerdictTable;
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
    /// The verdict table's layout and scroll.
    pub table: VerdictTable,
    /// A what-if's two ledgers.
    pub ledgers: LedgerJob,
}

impl Default for PolicyTabState {
    fn default() -> Self {
        let settings = PolicySettings::default();
        PolicyTabState {
            fields: PolicyFields::of(&settings),
            settings,
            mode: ReplayMode::Verify,
            job: PolicyJob::default(),
            table: VerdictTable::default(),
            ledgers: LedgerJob::default(),
        }
    }
}

impl PolicyTabState {
    /// Forgets the open log's work (a new log was loaded); the settings stay.
    pub fn reset(&mut self) {
        self.job.reset();
        self.table = VerdictTable::default();
        self.ledgers.reset();
    }

    /// The latest what-if report (drawn over the context strip while its toggle is on,
    /// whichever tab is open).
    pub fn latest_what_if(&self) -> Option<std::sync::Arc<PolicyReport>> {
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

/// Draws the tab: on top, in a pane that scrolls and that the user can make taller or
/// shorter, the mode, the settings, what the log implies, the first divergence and the
/// totals; below it, always in view at any window size, the verdict table. `cursor` is the
/// replay cursor; `reveal` when it just jumped (the table scrolls to the check there).
pub fn policy_ui(
    ui: &mut Ui,
    (session, compare): (&Session, &CompareRuns),
    state: &mut PolicyTabState,
    (synchronous, reveal): (bool, bool),
    commands: &mut Vec<UiCommand>,
) {
    let report = replay_ui(ui, session, state, synchronous);
    let height = ui.available_height();
    let table_room = theme::POLICY_TABLE_MIN_HEIGHT.min(height / 2.0);
    egui::Panel::top("policy-upper")
        .resizable(true)
        .default_size(height * theme::POLICY_UPPER_SHARE)
        .min_size(theme::POLICY_ROW_HEIGHT * 2.0)
        .max_size((height - table_room).max(theme::POLICY_ROW_HEIGHT * 2.0))
        .show(ui, |ui| {
            ScrollArea::vertical()
                .id_salt("policy-upper-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    upper_ui(
                        ui,
                        (session, compare, synchronous),
                        state,
                        report.as_ref(),
                        commands,
                    )
                });
        });
    if let Some(report) = report {
        crate::policy::table::verdict_table_ui(
            ui,
            &report,
            &mut state.table,
            (session.cursor(), reveal),
            commands,
        );
    }
}

/// Starts or polls the replay of the settings in force; the report to show (the latest,
/// while the next is computed), or `None` while none can be.
fn replay_ui(
    ui: &Ui,
    session: &Session,
    state: &mut PolicyTabState,
    synchronous: bool,
) -> Option<std::sync::Arc<PolicyReport>> {
    let meter = session.meter()?;
    state
        .settings
        .validate(meter.window_at(session.len()))
        .ok()?;
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
    state.job.report_or_latest(state.mode).cloned()
}

/// The upper pane: mode, settings, and for the report what the log implies, the first
/// divergence (a link to its check) and the totals.
fn upper_ui(
    ui: &mut Ui,
    (session, compare, synchronous): (&Session, &CompareRuns, bool),
    state: &mut PolicyTabState,
    report: Option<&std::sync::Arc<PolicyReport>>,
    commands: &mut Vec<UiCommand>,
) {
    let palette = theme::palette(ui);
    mode_ui(ui, state.mode, commands);
    // The verdict first: in view without scrolling the pane.
    if let Some(report) = report {
        divergence_ui(ui, report, &palette, commands);
    }
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
    if let Err(e) = state.settings.validate(meter.window_at(session.len())) {
        ui.label(RichText::new(e.to_string()).color(palette.error));
        return;
    }
    let Some(report) = report else {
        ui.label(format!(
            "Replaying the policy {}",
            crate::session::loaded::PENDING
        ));
        return;
    };
    let current = state
        .job
        .report_for(session.len(), &state.settings, state.mode)
        .is_some();
    if !current {
        ui.label(RichText::new("Replaying the new settings…").color(palette.weak_text));
    }
    inferred_ui(ui, report, commands);
    ui.separator();
    summary_ui(ui, report, &palette);
    if current && report.mode == ReplayMode::WhatIf {
        ui.separator();
        what_if_ledgers_ui(ui, (session, synchronous), state, &palette);
        ui.separator();
        let ledgers = state.ledgers.ledgers().map(Arc::clone);
        crate::policy::beside::beside_ui(ui, report, ledgers.as_deref(), compare, commands);
    }
}

/// The what-if's ledgers, computed once per report (on a worker unless the app is synchronous).
fn what_if_ledgers_ui(
    ui: &mut Ui,
    (session, synchronous): (&Session, bool),
    state: &mut PolicyTabState,
    palette: &theme::Palette,
) {
    let (Some(meter), Some((input, report))) =
        (session.meter.as_ref(), state.job.landed(ReplayMode::WhatIf))
    else {
        return;
    };
    let Ok(settings) = state.settings.validate(meter.window_at(session.len())) else {
        return;
    };
    state.ledgers.ensure(
        (&session.log, meter),
        (input, report),
        settings,
        Some(ui.ctx()),
        synchronous,
    );
    let running = state.ledgers.running();
    match state.ledgers.ledgers().map(Arc::clone) {
        Some(l) => crate::policy::ledgers_ui::ledgers_ui(ui, &l, palette),
        None if running => {
            ui.label(RichText::new("Estimating the what-if's ledger…").color(palette.weak_text));
        }
        None => {}
    }
}

/// Verify or what-if.
fn mode_ui(ui: &mut Ui, mode: ReplayMode, commands: &mut Vec<UiCommand>) {
    ui.horizontal(|ui| {
        ui.label("Mode:");
        for (m, label, hover) in [
            (
                ReplayMode::Verify,
                "verify",
                "Replay every check on the log as it is and hold each decision against the log's",
            ),
            (
                ReplayMode::WhatIf,
                "what-if",
                "Remove the log's compactions and replay the session with these settings (its curve is drawn over the context strip)",
            ),
        ] {
            if ui
                .selectable_label(mode == m, label)
                .on_hover_text(hover)
                .clicked()
                && mode != m
            {
                commands.push(PolicyCommand::SetPolicyMode(m).into());
            }
        }
    });
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
            // Its own id: lines above it come and go (the divergence), focus stays.
            .id_salt(("policy-field", label))
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
        interval_text(inferred.threshold_ratio.map(|r| r.map(four_digits)), true),
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

/// The first divergence (a link: a click moves the cursor to its check) and the checks the
/// policy cannot judge.
fn divergence_ui(
    ui: &mut Ui,
    report: &PolicyReport,
    palette: &theme::Palette,
    commands: &mut Vec<UiCommand>,
) {
    match &report.first_divergence {
        Some(d) => {
            ui.horizontal_wrapped(|ui| {
                // The link and its reason read as one sentence: no gap before the colon.
                ui.spacing_mut().item_spacing.x = 0.0;
                let link = ui
                    .link(
                        RichText::new(format!("First divergence at seq {}", d.step_start_seq))
                            .color(palette.warning),
                    )
                    .on_hover_text("Move the cursor to this check");
                if link.clicked() {
                    commands.push(NavCommand::Seek(d.cursor).into());
                }
                ui.label(RichText::new(format!(": {}", d.why)).color(palette.warning));
            });
        }
        None => {
            ui.label(format!(
                "No divergence: {} checks, {} disagree",
                report.checks.len(),
                report.disagreements()
            ));
        }
    }
    let unjudged = report.checks.iter().filter(|c| c.cant_judge()).count();
    if unjudged > 0 {
        ui.label(
            RichText::new(format!(
                "{}: {} (the log compacted with no context window in force)",
                surface_analysis::policy::CANT_JUDGE_NO_WINDOW,
                crate::wording::count(unjudged, "check")
            ))
            .color(palette.weak_text),
        );
    }
}

/// The report's notes and the totals, the log's beside the replay's.
fn summary_ui(ui: &mut Ui, report: &PolicyReport, palette: &theme::Palette) {
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
            let basis = (report.window, report.settings.threshold_ratio);
            for (name, actual, what_if) in totals_rows(&report.actual_totals, &report.totals, basis)
            {
                ui.label(&name);
                ui.label(actual);
                ui.label(what_if)
                    .on_hover_text(format!("{name} ({replay})"));
                ui.end_row();
            }
        });
}
