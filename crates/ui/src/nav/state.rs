//! Where the user is going: the event to scroll to next frame, the back/forward history of
//! jumps, the list the arrow keys move, and the Findings list's selected row.

use surface_engine::EventIdx;

use crate::nav::history::History;
use crate::nav::navigate::ListKind;

/// The navigation state.
#[derive(Debug, Default)]
pub(crate) struct Navigation {
    /// Event to scroll both panels to on the next frame.
    pub(crate) pending_reveal: Option<EventIdx>,
    /// Back/forward history of jumps.
    pub(crate) history: History,
    /// The list ↑/↓/PgUp/PgDn move the selection of (the one clicked last).
    pub(crate) list_focus: ListKind,
    /// The findings list's selected row (display order).
    pub(crate) findings_row: Option<usize>,
}
