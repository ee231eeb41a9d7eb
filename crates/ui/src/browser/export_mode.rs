//! "Export this folder…" as the app runs it: its menu in the browser's header (the native
//! folder dialog, or OUT typed), starting the child (refused while one runs or when OUT
//! exists), polling it every frame wherever the app is, the notice naming OUT when it ends, and
//! its progress in the header.

use std::path::{Path, PathBuf};

use egui::Ui;

use crate::app::ViewerApp;
use crate::browser::export::{ExportJob, ExportOutcome, suggested_out};
use crate::chrome::banner::Banner;
use crate::chrome::path_field::{PathField, remembered_path_field_ui};
use crate::command::{BrowserCommand, UiCommand};
use crate::theme;

impl ViewerApp {
    /// Starts exporting the browsed folder to `out`; a banner says why when it cannot.
    pub(crate) fn start_export(&mut self, out: PathBuf, ctx: Option<egui::Context>) {
        let Some(root) = self.browser.state.as_ref().map(|b| b.root.clone()) else {
            return;
        };
        if let Some(job) = &self.browser.export {
            self.chrome.banner = Some(Banner::error(format!(
                "An export to {} is running: wait for it to end",
                job.out.display()
            )));
            return;
        }
        let program = match self.browser.export_program.clone() {
            Some(p) => p,
            None => match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => {
                    self.chrome.banner = Some(Banner::error(format!(
                        "The export cannot find this program: {e}"
                    )));
                    return;
                }
            },
        };
        match ExportJob::spawn(&program, &root, out, ctx) {
            Ok(job) => self.browser.export = Some(job),
            Err(why) => self.chrome.banner = Some(Banner::error(why)),
        }
    }

    /// Takes the export's news; when it ended, the notice naming OUT.
    pub(crate) fn poll_export(&mut self, ctx: &egui::Context) {
        let Some(job) = self.browser.export.as_mut() else {
            return;
        };
        match job.poll() {
            Some(outcome) => {
                self.browser.export = None;
                self.export_ended(&outcome);
            }
            None => ctx.request_repaint_after(std::time::Duration::from_millis(200)),
        }
    }

    fn export_ended(&mut self, outcome: &ExportOutcome) {
        self.chrome.banner = Some(if outcome.success {
            Banner::info(outcome.notice())
        } else {
            Banner::error(outcome.notice())
        });
    }

    /// Tests: run `program` as `PROGRAM export` (the test binary is not the viewer).
    pub fn set_export_program(&mut self, program: PathBuf) {
        self.browser.export_program = Some(program);
    }

    /// Tests: waits for the running export and shows its notice; its outcome.
    pub fn wait_for_export(&mut self) -> Option<ExportOutcome> {
        let outcome = self.browser.export.take()?.wait();
        self.export_ended(&outcome);
        Some(outcome)
    }
}

/// The browser header's export menu — the native folder dialog and the typed path of OUT
/// (beside `root` by default) — or the running export's progress.
pub fn export_ui(ui: &mut Ui, root: &Path, job: Option<&ExportJob>, commands: &mut Vec<UiCommand>) {
    match job {
        None => {
            // A click inside must not close it: its path field takes the focus.
            let config = egui::containers::menu::MenuConfig::new()
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            egui::containers::menu::MenuButton::new("Export this folder…")
                .config(config)
                .ui(ui, |ui| export_menu_ui(ui, root, commands))
                .0
                .on_hover_text(
                    "Write every session under this folder as Parquet tables to a new folder (surface-viewer export DIR --to OUT; docs/export.md)",
                );
        }
        Some(job) => {
            let (fraction, text) = match job.progress {
                Some((done, total)) if total > 0 => (
                    done as f32 / total as f32,
                    format!("exporting {done}/{total}"),
                ),
                _ => (0.0, "exporting…".to_string()),
            };
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(theme::BROWSER_PROGRESS_WIDTH)
                    .text(text)
                    .animate(true),
            )
            .on_hover_text(format!("to {}", job.out.display()));
        }
    }
}

/// The export menu's two ways to name OUT, a new folder.
fn export_menu_ui(ui: &mut Ui, root: &Path, commands: &mut Vec<UiCommand>) {
    if ui.button("Choose the new folder…").clicked() {
        commands.push(BrowserCommand::ExportFolderDialog.into());
        ui.close();
    }
    let field = PathField {
        label: "or its path:",
        hint: "a folder that does not exist yet",
        button: "Export",
        enabled: true,
        max_width: theme::PRICE_PATH_WIDTH,
    };
    let initial = || suggested_out(root).display().to_string();
    if let Some(out) = remembered_path_field_ui(ui, "export-out", initial, &field) {
        commands.push(BrowserCommand::ExportFolderTo(out).into());
        ui.close();
    }
}
