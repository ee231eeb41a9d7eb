//! Saving the replace preview as a new log: a copy of the open log with the proposed event
//! appended, written by the store ([`surface_store::write_log_with_line`]) — refused while the
//! op is invalid at the cursor or at the end of the log, for a SQLite store, and over an
//! existing file unless confirmed.

use std::path::Path;

use surface_store::{Format, LogBytes, write_log_with_line};

use crate::preview::state::PreviewState;
use crate::session::loaded::Session;
use crate::session::loader::Source;

/// Writes a copy of the open log with the preview's event line appended to `target`,
/// atomically. Refuses invalid ops (at the cursor or at the end of the log, where the line
/// lands), SQLite logs, and what the store's write rule refuses: the open log itself, any
/// session log, and an existing file unless `replace`.
pub fn save_as_new_log(
    session: &Session,
    state: &PreviewState,
    target: &Path,
    replace: bool,
) -> anyhow::Result<()> {
    let Some(preview) = state.current() else {
        anyhow::bail!("there is no replace preview (select a surface range first)");
    };
    if !preview.valid {
        anyhow::bail!(
            "the proposed op is invalid at the cursor: {}",
            preview.errors.join("; ")
        );
    }
    if let Some(problem) = state.end_problem() {
        anyhow::bail!(
            "the op would be appended at the end of the log, where it is invalid: {problem} (move the cursor to the end and pick the range there)"
        );
    }
    if target.as_os_str().is_empty() {
        anyhow::bail!("no target path given");
    }
    let log = match &session.source {
        Source::Path(p) => LogBytes::File(p),
        Source::Embedded { bytes, .. } => LogBytes::Memory(bytes),
    };
    if session.format == Format::Sqlite {
        anyhow::bail!(
            "saving a new log is supported for JSONL and Zstandard files; copy the event line instead"
        );
    }
    // The store's rule: never the open log or its session, never a session log, an existing
    // file only when the user confirmed.
    Ok(write_log_with_line(
        target,
        replace,
        log,
        session.format,
        &preview.event_line(),
    )?)
}
