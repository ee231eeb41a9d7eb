//! Applying the [`PreviewCommand`]s: the range picked on the surface (Esc hides the help
//! first), and saving the preview as a new log.

use std::path::Path;

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::chrome::command::SideTab;
use crate::preview::command::PreviewCommand;
use crate::session::loader::DialogPurpose;

impl ViewerApp {
    /// Applies a command of the replace preview.
    pub(crate) fn apply_preview(&mut self, ctx: &egui::Context, command: PreviewCommand) {
        let view = &mut self.view;
        match command {
            PreviewCommand::RangeStart(idx) => {
                view.range_start = Some(idx);
                view.range_end = None;
            }
            PreviewCommand::RangeEnd(idx) => {
                if view.range_start.is_none() {
                    view.range_start = Some(idx);
                }
                view.range_end = Some(idx);
            }
            PreviewCommand::ClearRange => {
                if self.chrome.show_help {
                    self.chrome.show_help = false;
                } else {
                    view.range_start = None;
                    view.range_end = None;
                }
            }
            PreviewCommand::SaveDialog => self.open_dialog(ctx, DialogPurpose::Save),
            PreviewCommand::SaveAs(path) => self.save_preview(&path, false),
            PreviewCommand::SaveAsReplacing(path) => self.save_preview(&path, true),
        }
    }

    fn save_preview(&mut self, path: &Path, replace: bool) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        let result =
            crate::preview::save::save_as_new_log(session, &self.panels.preview, path, replace);
        self.chrome.banner = Some(match result {
            Ok(()) => Banner::info(format!(
                "Saved a copy with the proposed event appended to {}.",
                path.display()
            )),
            Err(e) => Banner::error(format!("Not saved: {e:#}")),
        });
        self.prefs.tab = SideTab::Preview;
    }
}
