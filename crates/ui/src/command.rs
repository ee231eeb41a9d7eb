//! Commands panels push and the app applies once per frame: the only way the UI changes the
//! loaded session (cursor, selection) or starts side effects (open, save, copy). Each room
//! defines its own commands and applies them; a [`UiCommand`] says whose command it is.

pub use crate::browser::command::BrowserCommand;
pub use crate::chrome::command::{SideTab, WindowCommand};
pub use crate::compare::command::CompareCommand;
pub use crate::nav::command::NavCommand;
pub use crate::policy::command::PolicyCommand;
pub use crate::preview::command::PreviewCommand;
pub use crate::prices::command::PriceCommand;
pub use crate::replay::command::ReplayCommand;
pub use crate::session::command::SessionCommand;
pub use crate::strip::command::StripCommand;
pub use crate::timeline::command::TimelineCommand;
pub use crate::tune::command::{TuneCommand, TuneTarget};

/// One thing the user asked for, by the room that applies it.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    /// Open, reload, follow the file; an analysis landed.
    Session(SessionCommand),
    /// The sessions browser.
    Browser(BrowserCommand),
    /// Cursor and selection moves, links, history.
    Nav(NavCommand),
    /// Playback.
    Replay(ReplayCommand),
    /// The context strip's range, axis and threshold.
    Strip(StripCommand),
    /// The replace preview and saving it.
    Preview(PreviewCommand),
    /// The Policy tab.
    Policy(PolicyCommand),
    /// The price file.
    Prices(PriceCommand),
    /// The timeline's filters and search.
    Timeline(TimelineCommand),
    /// The window: clipboard, theme, help, tabs, panels, quit.
    Window(WindowCommand),
    /// Two runs side by side.
    Compare(CompareCommand),
    /// The Tune views (the open log's, the browsed folder's).
    Tune(TuneCommand),
}

macro_rules! from_group {
    ($($group:ident => $variant:ident),* $(,)?) => {
        $(impl From<$group> for UiCommand {
            fn from(command: $group) -> Self {
                UiCommand::$variant(command)
            }
        })*
    };
}

from_group! {
    SessionCommand => Session,
    BrowserCommand => Browser,
    NavCommand => Nav,
    ReplayCommand => Replay,
    StripCommand => Strip,
    PreviewCommand => Preview,
    PolicyCommand => Policy,
    PriceCommand => Prices,
    TimelineCommand => Timeline,
    WindowCommand => Window,
    CompareCommand => Compare,
    TuneCommand => Tune,
}
