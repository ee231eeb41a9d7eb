//! The comparison's commands — applied by [`crate::compare::apply`].

use std::path::PathBuf;

/// A file and, for a SQLite file holding several, the session in it.
pub type SessionRef = (PathBuf, Option<String>);

/// A command of the comparison of two runs.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareCommand {
    /// File ▸ Compare with…: pick B with the native open dialog.
    OpenDialog,
    /// Compare the open log (A) with this file (B), read in the background.
    With(PathBuf),
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
