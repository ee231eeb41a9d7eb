//! The replace preview's commands: the range picked on the surface, and saving the preview as
//! a new log — applied by [`crate::preview::apply`].

use std::path::PathBuf;

use surface_engine::EventIdx;

/// A command of the replace preview.
#[derive(Clone, Debug, PartialEq)]
pub enum PreviewCommand {
    /// Start a replace-preview range at a surface node.
    RangeStart(EventIdx),
    /// Extend the replace-preview range to a surface node.
    RangeEnd(EventIdx),
    /// Drop the replace-preview range (or, while the help is shown, hide the help: Esc).
    ClearRange,
    /// Ask for a path (dialog on a worker thread) and save the preview as a new log there.
    SaveDialog,
    /// Save the current preview as a new log at this path.
    SaveAs(PathBuf),
    /// Save the preview as a new log at this path, replacing the file there (confirmed).
    SaveAsReplacing(PathBuf),
}
