//! The commands that move the cursor or the selection: seeks and steps, jumps to replace ops,
//! findings, turns and model calls, list moves, links and the history — applied by
//! [`crate::nav::apply`], which records every jump in the history.

use surface_engine::EventIdx;

use crate::nav::navigate::ListKind;

/// A command that moves the user through the log.
#[derive(Clone, Debug, PartialEq)]
pub enum NavCommand {
    /// Select an event (inspector, arrows); `reveal` scrolls both panels to it.
    Select {
        /// The event.
        idx: EventIdx,
        /// Scroll the timeline and surface panel so it is visible.
        reveal: bool,
    },
    /// Clear the selection.
    ClearSelection,
    /// Move the replay cursor so that exactly the first `n` events are applied.
    Seek(usize),
    /// Apply one more event.
    StepForward,
    /// Undo the last applied event.
    StepBack,
    /// Move to just after the next replace op.
    NextReplace,
    /// Move to just after the previous replace op.
    PrevReplace,
    /// Move to the next finding's event (and select it).
    NextFinding,
    /// Move to the previous finding's event (and select it).
    PrevFinding,
    /// Move the cursor to the start (nothing applied).
    Home,
    /// Move the cursor to the end (everything applied).
    End,
    /// Move the cursor to "after every event with seq ≤ SEQ" and select that seq.
    GoToSeq(u64),
    /// Move the cursor just past an event and select it (a compaction in the Compactions tab).
    JumpTo(EventIdx),
    /// Jump to finding number `n` (cursor + selection).
    JumpToFinding(usize),
    /// Move the cursor just past the next `turn/start`.
    NextTurn,
    /// Move the cursor just past the previous `turn/start`.
    PrevTurn,
    /// Move the cursor just past the next model call (`step/start`).
    NextModelCall,
    /// Move the cursor just past the previous model call.
    PrevModelCall,
    /// Move the selection of the list that has the keyboard by this many rows.
    MoveSelection(isize),
    /// Move the selection of the list that has the keyboard a page up (-1) or down (1).
    MoveSelectionPage(isize),
    /// Select the first (`false`) or last (`true`) row of the list that has the keyboard.
    SelectListEnd(bool),
    /// Give a list the keyboard (↑/↓ move its selection).
    FocusList(ListKind),
    /// Follow a link to an event (a source chip, a refetch, a cited-by link): select it,
    /// scroll to it, and remember where we came from.
    FollowLink(EventIdx),
    /// Back to the place before the last jump.
    HistoryBack,
    /// Forward again after [`NavCommand::HistoryBack`].
    HistoryForward,
}

impl NavCommand {
    /// How the command moves the user, for the history: `Some(true)` a seek (a drag repeats
    /// it), `Some(false)` another jump, `None` not a jump (steps, selections, list moves).
    pub fn jump_kind(&self) -> Option<bool> {
        match self {
            NavCommand::Seek(_) => Some(true),
            NavCommand::GoToSeq(_)
            | NavCommand::JumpTo(_)
            | NavCommand::JumpToFinding(_)
            | NavCommand::NextFinding
            | NavCommand::PrevFinding
            | NavCommand::NextReplace
            | NavCommand::PrevReplace
            | NavCommand::NextTurn
            | NavCommand::PrevTurn
            | NavCommand::NextModelCall
            | NavCommand::PrevModelCall
            | NavCommand::FollowLink(_)
            | NavCommand::Home
            | NavCommand::End => Some(false),
            _ => None,
        }
    }
}
