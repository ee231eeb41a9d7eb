//! Applying the [`SessionCommand`]s: opening a file (a folder opens the browser), the sample,
//! another session of the same file, cancelling a load, following, and landing an analysis.

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::session::command::SessionCommand;
use crate::session::loader::{DialogPurpose, Source, sample_source};

impl ViewerApp {
    /// Applies a command about the open file.
    pub(crate) fn apply_session(&mut self, ctx: &egui::Context, command: SessionCommand) {
        match command {
            SessionCommand::Open(path) if path.is_dir() => {
                self.open_folder(path, Some(ctx.clone()))
            }
            SessionCommand::Open(path) => {
                self.start_load(Source::Path(path), None, Some(ctx.clone()))
            }
            SessionCommand::OpenDialog => self.open_dialog(ctx, DialogPurpose::Open),
            SessionCommand::OpenSample => match sample_source() {
                Some(source) => self.start_load(source, None, Some(ctx.clone())),
                None => {
                    self.chrome.banner = Some(Banner::error(
                        "The bundled sample assets/sample.session.jsonl is missing.",
                    ))
                }
            },
            SessionCommand::PickSession(id) => {
                if let Some(path) = self
                    .session
                    .as_ref()
                    .and_then(|s| s.path())
                    .map(|p| p.to_path_buf())
                {
                    self.start_load(Source::Path(path), Some(id), Some(ctx.clone()));
                }
            }
            SessionCommand::CancelLoad => {
                if let Some(job) = self.jobs.load.take() {
                    job.cancel();
                    self.chrome.banner = Some(Banner::info(format!(
                        "Loading {} was cancelled.",
                        job.source.label()
                    )));
                }
            }
            SessionCommand::ClearRecent => self.prefs.recent.clear(),
            SessionCommand::ToggleFollow => self.toggle_follow(),
            SessionCommand::AnalysisLanded(parcel) => {
                self.land_analysis(&parcel);
                // Commands are applied after the panels were drawn: draw the figures now, not
                // at the next input.
                ctx.request_repaint();
            }
        }
    }
}
