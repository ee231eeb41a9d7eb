//! Applying the [`WindowCommand`]s — clipboard, theme, help, the side panel's tab, the banner,
//! the panels shown, quitting — and showing a native file dialog on a worker thread.

use crate::app::ViewerApp;
use crate::chrome::command::WindowCommand;
use crate::session::loader::{DialogJob, DialogPurpose};

impl ViewerApp {
    /// Applies a command of the window.
    pub(crate) fn apply_window(&mut self, ctx: &egui::Context, command: WindowCommand) {
        let layout = &mut self.prefs.layout;
        match command {
            WindowCommand::Copy(text) => ctx.copy_text(text),
            WindowCommand::SetTheme(choice) => {
                self.prefs.theme = choice;
                choice.apply(ctx);
            }
            WindowCommand::ToggleHelp => self.chrome.show_help = !self.chrome.show_help,
            WindowCommand::ShowTab(tab) => {
                self.prefs.tab = tab;
                layout.side_open = true;
            }
            WindowCommand::DismissBanner => self.chrome.banner = None,
            WindowCommand::ToggleSidePanel => layout.side_open = !layout.side_open,
            WindowCommand::ToggleSurfacePanel => layout.surface_open = !layout.surface_open,
            WindowCommand::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
        }
    }

    /// Shows the native dialog for `purpose` on a worker thread (not in tests, and not while
    /// one is shown); its answer is polled every frame.
    pub(crate) fn open_dialog(&mut self, ctx: &egui::Context, purpose: DialogPurpose) {
        self.chrome.dialog_asked = Some(purpose);
        if self.chrome.dialog.is_some() || self.jobs.synchronous {
            return;
        }
        let suggested = match purpose {
            DialogPurpose::OpenFolder => self.browser.state.as_ref().map(|b| b.root.clone()),
            DialogPurpose::Open | DialogPurpose::Compare | DialogPurpose::CompareBeside => self
                .session
                .as_ref()
                .and_then(|s| s.path())
                .map(|p| p.to_path_buf()),
            DialogPurpose::Save => self.panels.preview.suggested_path(self.session.as_ref()),
            DialogPurpose::Prices => self.prefs.price_file.clone(),
            DialogPurpose::ExportTo => self
                .browser
                .state
                .as_ref()
                .map(|b| crate::browser::export::suggested_out(&b.root)),
        };
        self.chrome.dialog = Some(DialogJob::spawn(purpose, suggested, ctx.clone()));
    }
}
