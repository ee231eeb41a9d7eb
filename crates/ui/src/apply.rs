//! Applying one [`UiCommand`]: each room's commands go to that room's handler
//! (`apply_session`, `apply_nav`, `apply_policy`, `apply_tune`, …), the only code that changes the session's
//! cursor and the shared selection or starts side effects (load, save, clipboard). Every jump
//! is recorded in the history here.

use crate::app::ViewerApp;
use crate::command::{TimelineCommand, UiCommand};

/// How a command moves the user, for the history: `Some(true)` a seek (a drag repeats it),
/// `Some(false)` another jump, `None` not a jump (steps, playback, edits).
pub fn jump_kind(command: &UiCommand) -> Option<bool> {
    match command {
        UiCommand::Nav(c) => c.jump_kind(),
        UiCommand::Timeline(TimelineCommand::NextHit | TimelineCommand::PrevHit) => Some(false),
        UiCommand::Compare(c) => c.jump_kind(),
        _ => None,
    }
}

impl ViewerApp {
    /// Applies one command: hands it to the room that owns it.
    pub(crate) fn apply(&mut self, ctx: &egui::Context, command: UiCommand) {
        match command {
            UiCommand::Session(c) => self.apply_session(ctx, c),
            UiCommand::Browser(c) => self.apply_browser(ctx, c),
            UiCommand::Nav(c) => self.apply_nav(ctx, c),
            UiCommand::Replay(c) => self.apply_replay(c),
            UiCommand::Strip(c) => self.apply_strip(c),
            UiCommand::Preview(c) => self.apply_preview(ctx, c),
            UiCommand::Policy(c) => self.apply_policy(c),
            UiCommand::Prices(c) => self.apply_prices(ctx, c),
            UiCommand::Timeline(c) => self.apply_timeline(c),
            UiCommand::Window(c) => self.apply_window(ctx, c),
            UiCommand::Compare(c) => self.apply_compare(ctx, c),
            UiCommand::Tune(c) => self.apply_tune(ctx, c),
        }
    }

    /// Applies a queued command, recording it in the history when it is a jump.
    pub(crate) fn apply_recorded(&mut self, ctx: &egui::Context, command: UiCommand) {
        let jump = jump_kind(&command);
        let before = self.place();
        self.apply(ctx, command);
        if let Some(seek) = jump {
            let after = self.place();
            self.nav.history.record(before, after, seek);
        }
    }
}
