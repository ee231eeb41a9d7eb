//! The comparison's commands — applied by [`crate::compare::apply`].

use std::path::PathBuf;

/// A file and, for a SQLite file holding several, the session in it.
pub type SessionRef = (PathBuf, Option<String>);

/// A command of the comparison of two runs.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareCommand {
    /// File ▸ Compare with ▸ Pick a file…: pick B with the native open dialog (B lands in the
    /// Compare tab).
    OpenDialog,
    /// The Policy tab's what-if ▸ Compare with a run…: the same dialog; B lands beside the
    /// prediction (the Policy tab stays).
    OpenDialogBeside,
    /// Compare the open log (A) with this file (B), read in the background; the Compare tab
    /// opens.
    With(PathBuf),
    /// As [`CompareCommand::With`], in the tab in view, with B's curve and the what-if's both
    /// drawn on the strip (the Policy tab's what-if: a real run beside the predicted one).
    Beside(PathBuf),
    /// From the sessions browser: open `a` and compare it with `b` once it is loaded.
    Sessions {
        /// The run opened (A).
        a: SessionRef,
        /// The run compared with it (B).
        b: SessionRef,
    },
    /// Move the cursor to A's side of the first divergence (B's side is kept as B's position).
    JumpToDivergence,
    /// Move the cursor to the start of this turn in A, and B's position to its start in B.
    SelectTurn(u64),
    /// Draw B's context curve on the strip, or hide it.
    ShowCurve(bool),
    /// Forget B.
    Close,
}

impl CompareCommand {
    /// How the command moves the user, for the history: the first divergence and a turn are
    /// jumps.
    pub fn jump_kind(&self) -> Option<bool> {
        match self {
            CompareCommand::JumpToDivergence | CompareCommand::SelectTurn(_) => Some(false),
            _ => None,
        }
    }
}
