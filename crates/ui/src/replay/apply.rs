//! Applying the [`ReplayCommand`]s: playback on and off (from the start when at the end), and
//! its speed.

use crate::app::ViewerApp;
use crate::replay::command::ReplayCommand;

impl ViewerApp {
    /// Applies a playback command.
    pub(crate) fn apply_replay(&mut self, command: ReplayCommand) {
        match command {
            ReplayCommand::TogglePlay => {
                let replay = &mut self.panels.replay;
                replay.playing = !replay.playing;
                if replay.playing
                    && let Some(s) = self.session.as_mut()
                    && s.cursor() >= s.len()
                {
                    s.seek(0);
                }
            }
            ReplayCommand::SetSpeed(speed) => self.prefs.speed = speed,
        }
    }
}
