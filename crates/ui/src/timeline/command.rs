//! The timeline's commands: its family filters, the arrows' reach, and the search box and its
//! hits — applied by [`crate::timeline::apply`].

use crate::theme::Family;

/// A command of the timeline.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineCommand {
    /// Show or hide one event type family in the timeline.
    ToggleFamily(Family),
    /// Show all families again.
    ShowAllFamilies,
    /// Switch between one-hop and whole-chain provenance arrows.
    ToggleChain,
    /// Focus the search box (the browser's filter while browsing).
    FocusSearch,
    /// Select the next search hit.
    NextHit,
    /// Select the previous search hit.
    PrevHit,
}
