//! A folder as a report's input: every session found under it (only `only` when given), and
//! `sessions DIR`'s document — each session with its figures or why it could not be read,
//! sorted by path, then the files that could not be read and the walk's notes. A walk bounded
//! by the MCP server's roots follows no symbolic link out of them.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::Serialize;
use serde_json::Value;
use surface_store::{
    Discovery, ReadLimits, SessionEntry, SessionFigures, StoreError, find_sessions_bounded,
    find_sessions_within, for_each_parallel, read_figures_within,
};

use crate::ReportError;

/// The sessions under `dir` (only `only`), no file decoded past `limits`, probed on `threads`
/// workers; with `bounds`, no link followed out of them. An error when the folder holds no
/// session file at all, or no session `only`.
pub fn discover(
    dir: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
    threads: usize,
    bounds: Option<&[PathBuf]>,
) -> Result<Discovery, ReportError> {
    let cancel = AtomicBool::new(false);
    let mut found = match bounds {
        Some(b) => find_sessions_bounded(dir, b, threads, limits, &cancel)?,
        None => find_sessions_within(dir, threads, limits, &cancel, |_, _| {})?,
    };
    if found.sessions.is_empty() && found.unreadable.is_empty() {
        // The walk's notes are the only clue to why: say them with the error.
        let notes: String = found.notes.iter().map(|n| format!("; {n}")).collect();
        return Err(ReportError::Folder(format!(
            "{}: no session file under this folder ({} file{} looked at{notes})",
            dir.display(),
            found.files_seen,
            if found.files_seen == 1 { "" } else { "s" }
        )));
    }
    if let Some(id) = only {
        found.sessions.retain(|s| s.id == id);
        found.unreadable.clear();
        found.special.clear();
        if found.sessions.is_empty() {
            return Err(ReportError::Folder(format!(
                "{}: no session {id:?} under this folder",
                dir.display()
            )));
        }
    }
    Ok(found)
}

/// One session of a folder's listing.
#[derive(Debug, Serialize)]
pub struct FolderListed {
    /// Where it was found and what its file says of it.
    #[serde(flatten)]
    pub entry: SessionEntry,
    /// What reading it whole found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<SessionFigures>,
    /// Why it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl FolderListed {
    /// The listing of `entry` and what reading it gave.
    pub fn of(entry: SessionEntry, figures: Result<SessionFigures, StoreError>) -> Self {
        match figures {
            Ok(f) => FolderListed {
                entry,
                figures: Some(f),
                error: None,
            },
            Err(e) => FolderListed {
                entry,
                figures: None,
                error: Some(e.to_string()),
            },
        }
    }

    /// Reads `entry` whole within `limits`.
    pub fn read(entry: SessionEntry, limits: &ReadLimits) -> Self {
        let figures = read_figures_within(&entry.file, entry.session_arg(), limits);
        FolderListed::of(entry, figures)
    }
}

/// `sessions DIR --json`: `root` as named, the sessions sorted by file and id, the files that
/// could not be read and the walk's notes.
pub fn document(
    root: &Path,
    mut listed: Vec<FolderListed>,
    found: &Discovery,
) -> Result<Value, ReportError> {
    listed.sort_by(|a, b| (&a.entry.file, &a.entry.id).cmp(&(&b.entry.file, &b.entry.id)));
    Ok(serde_json::to_value(serde_json::json!({
        "root": root,
        "sessions": listed,
        "unreadable": found.unreadable,
        "notes": found.notes,
    }))?)
}

/// The whole listing of `dir` (as `sessions DIR --json`), every session read on `threads`
/// workers; with `bounds`, no link followed out of them.
pub fn listing(
    dir: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
    threads: usize,
    bounds: Option<&[PathBuf]>,
) -> Result<Value, ReportError> {
    let found = discover(dir, only, limits, threads, bounds)?;
    let cancel = AtomicBool::new(false);
    let mut listed = Vec::with_capacity(found.sessions.len());
    for_each_parallel(
        found.sessions.clone(),
        threads,
        &cancel,
        |entry| FolderListed::read(entry, limits),
        |item| listed.push(item),
    );
    document(dir, listed, &found)
}
