//! Applying the [`CompareCommand`]s: asking for B (a file, the dialog, two sessions of the
//! browser, a real run beside the Policy tab's what-if), moving A's cursor to the first
//! divergence or a turn while B's position follows in the comparison's state, the curve's
//! toggle; and the per-frame tick that binds, starts and polls the comparison and hands it to
//! the strip.

use surface_engine::EventIdx;

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::command::{BrowserCommand, NavCommand, SideTab, StripCommand, WindowCommand};
use crate::compare::command::CompareCommand;
use crate::compare::job::Target;
use crate::session::loader::{DialogPurpose, Source};

impl ViewerApp {
    /// Applies a command of the comparison.
    pub(crate) fn apply_compare(&mut self, ctx: &egui::Context, command: CompareCommand) {
        match command {
            CompareCommand::OpenDialog => self.open_dialog(ctx, DialogPurpose::Compare),
            CompareCommand::OpenDialogBeside => self.open_dialog(ctx, DialogPurpose::CompareBeside),
            CompareCommand::With(path) => {
                if self.compare_with(path) {
                    self.apply_window(ctx, WindowCommand::ShowTab(SideTab::Compare));
                }
            }
            CompareCommand::Beside(path) => {
                if self.compare_with(path) {
                    // A real run beside the predicted one: both curves on the strip.
                    self.panels.compare.hide_curve = false;
                    self.apply_strip(StripCommand::ShowWhatIf(true));
                }
            }
            CompareCommand::Sessions { a, b } => {
                let generation = self.session.as_ref().map_or(0, |s| s.generation);
                let target = Target {
                    source: Source::Path(b.0),
                    session: b.1,
                };
                self.panels.compare.want(target, generation, true);
                self.apply_window(ctx, WindowCommand::ShowTab(SideTab::Compare));
                let (file, session) = a;
                self.apply_browser(ctx, BrowserCommand::OpenSessionOf { file, session });
            }
            CompareCommand::JumpToDivergence => {
                let Some(d) = self
                    .panels
                    .compare
                    .result()
                    .and_then(|r| r.comparison.first_divergence.clone())
                else {
                    return;
                };
                self.panels.compare.b_cursor = d.b_event.map(EventIdx::get);
                self.panels.compare.scroll_b = true;
                if let Some(a) = d.a_event {
                    self.apply_nav(ctx, NavCommand::JumpTo(a));
                }
            }
            CompareCommand::SelectTurn(turn) => {
                let Some(r) = self.panels.compare.result().cloned() else {
                    return;
                };
                let b_len = r.b_log.len();
                self.panels.compare.selected_turn = Some(turn);
                self.panels.compare.scroll_b = true;
                self.panels.compare.b_cursor =
                    r.b.positions.turn_start(turn).filter(|&i| i < b_len);
                let a_len = self.session.as_ref().map_or(0, |s| s.len());
                if let Some(i) = r.a.positions.turn_start(turn).filter(|&i| i < a_len) {
                    self.apply_nav(ctx, NavCommand::JumpTo(EventIdx(i as u32)));
                }
            }
            CompareCommand::ShowCurve(on) => self.panels.compare.hide_curve = !on,
            CompareCommand::Close => self.panels.compare.close(),
        }
    }

    /// Asks for the comparison of the open log (A) with the file at `path` (B), read in the
    /// background; false (and a banner) with no log open.
    fn compare_with(&mut self, path: std::path::PathBuf) -> bool {
        let Some(generation) = self.session.as_ref().map(|s| s.generation) else {
            self.chrome.banner = Some(Banner::error(
                "Open a log first (A); Compare with… then reads the second run (B).",
            ));
            return false;
        };
        let target = Target {
            source: Source::Path(path),
            session: None,
        };
        self.panels.compare.want(target, generation, false);
        true
    }
}
