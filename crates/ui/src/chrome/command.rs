//! The window's commands: the clipboard, the theme, the help overlay, the side panel's tab,
//! the banner, which panels are shown, quitting — applied by [`crate::chrome::apply`].

use crate::theme::ThemeChoice;

/// Which tab of the right-hand panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SideTab {
    /// The selected event.
    #[default]
    Inspector,
    /// The replace preview of the selected surface range.
    Preview,
    /// Every replace op audited (docs/audit.md), and the selected one before | after.
    Compactions,
    /// Every finding of `check`.
    Findings,
    /// The model request at the cursor (header, messages, the meter's breakdown).
    Request,
    /// The policy lab: the compaction policy replayed over the log (docs/policy.md).
    Policy,
    /// Which setting to ship: the policy swept over a grid of settings (docs/tune.md).
    Tune,
    /// Two runs side by side (docs/compare.md): the first divergence and the per-turn table.
    Compare,
}

/// A command of the window.
#[derive(Clone, Debug, PartialEq)]
pub enum WindowCommand {
    /// Put text on the clipboard.
    Copy(String),
    /// Switch the theme.
    SetTheme(ThemeChoice),
    /// Show or hide the shortcut overlay.
    ToggleHelp,
    /// Show a tab of the right-hand panel.
    ShowTab(SideTab),
    /// Hide the banner.
    DismissBanner,
    /// Show or hide the side panel (tabs).
    ToggleSidePanel,
    /// Show or hide the surface panel.
    ToggleSurfacePanel,
    /// Close the window.
    Quit,
}
