//! The Tune views' state as tests read it and drive it, through the app.

use std::sync::Arc;

use surface_reports::tune::Sweep;

use crate::app::ViewerApp;
use crate::tune::columns::order;
use crate::tune::command::TuneTarget;
use crate::tune::view::{Outcome, TuneView};

impl ViewerApp {
    fn tune_view(&self, target: TuneTarget) -> &TuneView {
        match target {
            TuneTarget::Log => &self.panels.tune,
            TuneTarget::Folder => &self.browser.tune,
        }
    }

    /// The sweep a Tune view shows, once one landed.
    pub fn tune_sweep(&self, target: TuneTarget) -> Option<Arc<Sweep>> {
        self.tune_view(target).sweep().cloned()
    }

    /// The sweep's row indices in the table's order (its sort in force).
    pub fn tune_order(&self, target: TuneTarget) -> Vec<usize> {
        let view = self.tune_view(target);
        view.sweep().map_or_else(Vec::new, |s| order(s, view.sort))
    }

    /// True while a Tune view's sweep runs.
    pub fn tune_running(&self, target: TuneTarget) -> bool {
        self.tune_view(target).job.is_some()
    }

    /// True when a Tune view's last run was cancelled.
    pub fn tune_cancelled(&self, target: TuneTarget) -> bool {
        matches!(self.tune_view(target).outcome, Some(Outcome::Cancelled))
    }

    /// The row selected in a Tune view.
    pub fn tune_selected(&self, target: TuneTarget) -> Option<usize> {
        self.tune_view(target).selected
    }

    /// Tests: hold every sweep started from now on before it starts, until
    /// [`ViewerApp::release_tune`] (or its Cancel).
    pub fn hold_tune(&mut self, target: TuneTarget, hold: bool) {
        self.tune_view_mut(target).hold = hold;
    }

    /// Tests: lets a held sweep start.
    pub fn release_tune(&mut self, target: TuneTarget) {
        if let Some(job) = self.tune_view_mut(target).job.as_mut() {
            job.release();
        }
    }

    /// True while the open log's Tune view is shown across the window.
    pub fn tune_wide(&self) -> bool {
        self.panels.tune.wide
    }

    /// True while the browser shows its folder's Tune view.
    pub fn folder_tune_shown(&self) -> bool {
        self.browser.tune_shown
    }
}
