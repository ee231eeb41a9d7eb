//! The replay bar's playback commands — applied by [`crate::replay::apply`].

/// A playback command.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayCommand {
    /// Start or stop playback.
    TogglePlay,
    /// Playback speed, events per second.
    SetSpeed(f32),
}
