//! Applying the [`TuneCommand`]s: a sweep started over the open log or the browsed folder
//! (the form read by `tune`'s parsers, the price file in use), cancelled, the table sorted
//! and selected, a setting opened in the Policy tab's what-if (over the open log, or over a
//! session of the folder, loaded first), the browser's Tune view shown or left.

use std::sync::Arc;

use crate::app::ViewerApp;
use crate::command::{BrowserCommand, PolicyCommand, SideTab, WindowCommand};
use crate::tune::command::{TuneCommand, TuneTarget};
use crate::tune::job::{TuneRequest, TuneSource};
use crate::tune::view::TuneView;

impl ViewerApp {
    pub(crate) fn tune_view_mut(&mut self, target: TuneTarget) -> &mut TuneView {
        match target {
            TuneTarget::Log => &mut self.panels.tune,
            TuneTarget::Folder => &mut self.browser.tune,
        }
    }

    /// Applies a command of a Tune view.
    pub(crate) fn apply_tune(&mut self, ctx: &egui::Context, command: TuneCommand) {
        match command {
            TuneCommand::Run(target) => self.run_tune(target, Some(ctx.clone())),
            TuneCommand::Cancel(target) => self.tune_view_mut(target).cancel(),
            TuneCommand::Sort(target, column) => {
                let view = self.tune_view_mut(target);
                if let Some(objective) = view.sweep().map(|s| s.objective) {
                    view.sort = view.sort.clicked(column, objective);
                }
            }
            TuneCommand::Select(target, row) => self.tune_view_mut(target).selected = Some(row),
            TuneCommand::OpenWhatIf(settings) => {
                self.panels.tune.wide = false;
                self.apply_policy(PolicyCommand::OpenWhatIf(settings));
                self.apply_window(ctx, WindowCommand::ShowTab(SideTab::Policy));
            }
            TuneCommand::OpenSessionWhatIf {
                file,
                session,
                settings,
            } => {
                // The Policy tab's settings outlive a load: the session opens on its what-if.
                self.apply_policy(PolicyCommand::OpenWhatIf(settings));
                self.apply_window(ctx, WindowCommand::ShowTab(SideTab::Policy));
                self.apply_browser(ctx, BrowserCommand::OpenSessionOf { file, session });
            }
            TuneCommand::ShowFolderTune(shown) => self.browser.tune_shown = shown,
            TuneCommand::WideLogTune(wide) => {
                self.panels.tune.wide = wide;
                if !wide {
                    self.apply_window(ctx, WindowCommand::ShowTab(SideTab::Tune));
                }
            }
        }
    }

    /// Starts the sweep of `target` when its form reads and there is something to sweep.
    fn run_tune(&mut self, target: TuneTarget, ctx: Option<egui::Context>) {
        let prices = self.panels.prices.table().cloned();
        let source = match target {
            TuneTarget::Log => {
                let Some(s) = self.session.as_ref() else {
                    return;
                };
                TuneSource::Log {
                    log: Arc::clone(&s.log),
                    file: s.path().map(|p| p.to_path_buf()).unwrap_or_default(),
                }
            }
            TuneTarget::Folder => {
                let Some(b) = self.browser.state.as_ref() else {
                    return;
                };
                TuneSource::Folder(b.root.clone())
            }
        };
        let view = self.tune_view_mut(target);
        let Some((grid, constraints)) = view.form.check().plan else {
            return;
        };
        let request = TuneRequest {
            source,
            grid,
            objective: view.form.objective(prices.is_some()),
            constraints,
            prices,
        };
        view.start(request, ctx);
    }
}
