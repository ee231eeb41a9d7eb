//! A Tune view, the same in its two places (the Tune tab over the open log, the browser over
//! its folder): the Run button with the grid's size, the progress and Cancel while it runs,
//! the form (folded once there is a result), then the recommendation in `tune`'s words, the
//! frontier chart and the table. Its state: the form, the job, what the last run gave, the
//! sort and the selection.

use std::sync::Arc;

use egui::{RichText, Ui};

use surface_analysis::policy::tune::{Constraints, Grid};
use surface_reports::tune::Sweep;
use surface_reports::tune::text::recommendation;

use crate::command::UiCommand;
use crate::theme;
use crate::tune::columns::TuneSort;
use crate::tune::command::{TuneCommand, TuneTarget};
use crate::tune::form::TuneForm;
use crate::tune::job::{TuneJob, TuneRequest};
use crate::tune::table::TableContext;

/// What the last run gave.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Its sweep.
    Swept(Arc<Sweep>),
    /// Cancelled: no result.
    Cancelled,
    /// It could not run (a folder with no session file, no thread).
    Failed(String),
}

/// A Tune view's state.
#[derive(Default)]
pub struct TuneView {
    /// The form's text.
    pub form: TuneForm,
    /// The sweep running.
    pub(crate) job: Option<TuneJob>,
    /// What the last run gave.
    pub(crate) outcome: Option<Outcome>,
    /// The table's sort.
    pub sort: TuneSort,
    /// The selected row (folder view).
    pub selected: Option<usize>,
    /// Tests: a job waits before it starts (see [`TuneJob::spawn`]).
    pub(crate) hold: bool,
    /// The open log's view is shown across the window, not in its side tab.
    pub(crate) wide: bool,
    /// The form is folded (a result landed: the chart and table need the room; its header
    /// unfolds it). The same in the side tab and wide.
    form_folded: bool,
}

impl TuneView {
    /// Starts `request`, replacing any sweep running or shown.
    pub fn start(&mut self, request: TuneRequest, ctx: Option<egui::Context>) {
        self.job = None;
        self.outcome = None;
        self.selected = None;
        match TuneJob::spawn(request, ctx, self.hold) {
            Ok(job) => self.job = Some(job),
            Err(why) => self.outcome = Some(Outcome::Failed(why)),
        }
    }

    /// Asks the sweep running to stop.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.as_mut() {
            job.cancel();
        }
    }

    /// Takes a finished sweep (`wait`: block for it, as a synchronous app does). True while
    /// one runs.
    pub fn poll(&mut self, wait: bool) -> bool {
        let Some(job) = &self.job else {
            return false;
        };
        let Some(result) = job.poll(wait) else {
            return true;
        };
        self.outcome = Some(if job.cancelled() {
            Outcome::Cancelled
        } else {
            match result {
                Ok(sweep) => {
                    self.form_folded = true;
                    Outcome::Swept(Arc::new(sweep))
                }
                Err(why) => Outcome::Failed(why),
            }
        });
        self.job = None;
        false
    }

    /// The sweep shown.
    pub fn sweep(&self) -> Option<&Arc<Sweep>> {
        match &self.outcome {
            Some(Outcome::Swept(s)) => Some(s),
            _ => None,
        }
    }

    /// Forgets the run and its result (another log, another folder) and leaves the wide
    /// view; the form stays.
    pub fn reset(&mut self) {
        self.wide = false;
        self.job = None;
        self.outcome = None;
        self.selected = None;
    }
}

/// Draws the view. `priced`: a price file is in use; `synchronous`: wait for the sweep here
/// (tests); `notes` draws what the folder view adds under the recommendation.
pub fn tune_view_ui(
    ui: &mut Ui,
    view: &mut TuneView,
    (target, priced, synchronous): (TuneTarget, bool, bool),
    commands: &mut Vec<UiCommand>,
    notes: impl FnOnce(&mut Ui, &Sweep, Option<usize>, &mut Vec<UiCommand>),
) {
    if view.poll(synchronous) {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
    let checked = view.form.check();
    run_row(ui, view, (target, checked.plan.as_ref()), commands);
    let sweep = view.sweep().cloned();
    let form = egui::CollapsingHeader::new("Grid, objective and constraints")
        .id_salt(("tune-form", target as u8))
        .open(Some(!view.form_folded))
        .show(ui, |ui| {
            crate::tune::form_ui::form_ui(
                ui,
                &mut view.form,
                &checked,
                (priced, view.job.is_some()),
            )
        });
    if form.header_response.clicked() {
        view.form_folded = !view.form_folded;
    }
    let Some(s) = sweep else {
        return;
    };
    result_ui(ui, view, &s, target, commands, notes);
}

/// Run (with the grid's size), or the progress and Cancel, or how the last run ended.
fn run_row(
    ui: &mut Ui,
    view: &mut TuneView,
    (target, plan): (TuneTarget, Option<&(Grid, Constraints)>),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.horizontal_wrapped(|ui| {
        if let Some(job) = &view.job {
            let p = job.progress();
            let (fraction, text) = match p.total {
                Some(total) if total > 0 => (
                    p.done as f32 / total as f32,
                    format!("{}/{total} {}", p.done, p.unit),
                ),
                _ => (0.0, "looking through the folder…".to_string()),
            };
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(theme::TUNE_PROGRESS_WIDTH)
                    // Not animated: a frame every 100 ms shows the progress (and tests settle).
                    .text(text),
            );
            let label = if job.cancelled() {
                "Cancelling…"
            } else {
                "Cancel"
            };
            if ui
                .add_enabled(!job.cancelled(), egui::Button::new(label))
                .on_hover_text("Stop the sweep: no result is shown")
                .clicked()
            {
                commands.push(TuneCommand::Cancel(target).into());
            }
            return;
        }
        let size = plan.map(|(grid, _)| grid.expand());
        let run = ui
            .add_enabled(size.is_some(), egui::Button::new("▶ Run"))
            .on_hover_text("Sweep the grid in the background (tune)")
            .on_disabled_hover_text("The form does not read: see the line in red");
        if run.clicked() {
            commands.push(TuneCommand::Run(target).into());
        }
        if let Some(e) = size {
            ui.label(format!(
                "{} ({} left out)",
                crate::wording::count(e.settings.len(), "setting"),
                e.left_out
            ));
        }
        match &view.outcome {
            Some(Outcome::Cancelled) => {
                ui.label(RichText::new("Cancelled: no result.").color(pal.warning));
            }
            Some(Outcome::Failed(why)) => {
                ui.label(RichText::new(why).color(pal.error));
            }
            _ => {}
        }
    });
}

/// The recommendation, the summary, the folder's notes, the chart and the table.
fn result_ui(
    ui: &mut Ui,
    view: &mut TuneView,
    s: &Sweep,
    target: TuneTarget,
    commands: &mut Vec<UiCommand>,
    notes: impl FnOnce(&mut Ui, &Sweep, Option<usize>, &mut Vec<UiCommand>),
) {
    let pal = theme::palette(ui);
    let line = recommendation(s);
    let colour = match (s.choice.recommended, s.choice.indistinguishable) {
        (Some(_), false) => pal.what_if,
        (Some(_), true) => pal.warning,
        (None, _) => pal.weak_text,
    };
    ui.label(RichText::new(line.trim_end()).color(colour).strong());
    ui.label(
        RichText::new(format!(
            "{} swept under {} ({} left out) · frontier (◆): {} · objective: {}",
            crate::wording::count(s.sessions, "session"),
            crate::wording::count(s.rows.len(), "setting"),
            s.left_out,
            s.choice.frontier.len(),
            surface_reports::tune::text::objective_name(s),
        ))
        .color(pal.weak_text),
    );
    notes(ui, s, view.selected, commands);
    let (share, least, most) = theme::TUNE_CHART_SHARE;
    let room = ui.available_height() - theme::TUNE_TABLE_MIN_HEIGHT;
    let height = (ui.available_height() * share)
        .clamp(least, most)
        .min(room.max(least));
    let click = match target {
        TuneTarget::Log => "Click to open the Policy tab's what-if with it",
        TuneTarget::Folder => "Click to select it",
    };
    if let Some(i) = crate::tune::chart::chart_ui(ui, s, (view.selected, click), height) {
        commands.push(crate::tune::click::row_command(target, s, i));
    }
    let context = TableContext {
        target,
        sort: view.sort,
        selected: view.selected,
    };
    crate::tune::table::table_ui(ui, s, &context, commands);
}
