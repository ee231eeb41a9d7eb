//! Finding every session under a folder — a harness store root (`root/--<project>--/<id>/
//! session.jsonl[.zstd]`, the older `root/cwd-<h>/<id>.jsonl`, SQLite stores holding many
//! sessions) or any tree of session files. Read-only throughout.
//!
//! Two passes: [`find_sessions`] walks the tree and reads, for every file, only what is cheap
//! (its first bytes to detect the format by content, the header, the head and tail of the
//! file for a title and the last event time); then [`read_figures`] reads each session fully
//! (events, turns, compactions, errors and warnings) — the caller spreads that over the cores
//! with [`for_each_parallel`].

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::Serialize;

mod entry;
mod figures;
mod pool;
mod probe;
mod sqlite;
mod walk;

use super::{ReadLimits, StoreError};

pub use entry::{Probe, SessionEntry, project_of};
pub use figures::{
    SessionFigures, figures_of, read_figures, read_figures_within, read_session_figures,
};
pub use pool::{default_threads, for_each_parallel, for_each_parallel_in};
pub use walk::{Candidate, Walk, walk, walk_bounded};

/// A session file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnreadableFile {
    /// The file.
    pub file: PathBuf,
    /// Why, in one sentence.
    pub error: String,
}

/// Everything the cheap pass found under a folder.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// Every session, in file order (sorted by path), sessions of one file in row order.
    pub sessions: Vec<SessionEntry>,
    /// Session files that could not be read.
    pub unreadable: Vec<UnreadableFile>,
    /// What was skipped and why (unreadable folders, symlink loops, special files).
    pub notes: Vec<String>,
    /// Special files (FIFOs, sockets, devices) skipped without opening them, each with what
    /// it is: a folder report may give them a row.
    pub special: Vec<UnreadableFile>,
    /// Regular files looked at.
    pub files_seen: usize,
}

/// Walks `root` and probes every file on `threads` workers, calling `on_file` with each
/// file's probe as it finishes (for progress and progressive display). `Err` only when `root`
/// cannot be read as a folder. The default [`ReadLimits`] hold.
pub fn find_sessions(
    root: &Path,
    threads: usize,
    cancel: &AtomicBool,
    on_file: impl FnMut(&Path, &Probe),
) -> Result<Discovery, StoreError> {
    find_sessions_within(root, threads, &ReadLimits::default(), cancel, on_file)
}

/// [`find_sessions`], no probe decoding more than `limits` allow.
pub fn find_sessions_within(
    root: &Path,
    threads: usize,
    limits: &ReadLimits,
    cancel: &AtomicBool,
    on_file: impl FnMut(&Path, &Probe),
) -> Result<Discovery, StoreError> {
    probe_all(walk(root)?, threads, limits, cancel, on_file)
}

/// [`find_sessions_within`] following no symbolic link out of `bounds` (canonical folders;
/// see [`walk_bounded`]).
pub fn find_sessions_bounded(
    root: &Path,
    bounds: &[PathBuf],
    threads: usize,
    limits: &ReadLimits,
    cancel: &AtomicBool,
) -> Result<Discovery, StoreError> {
    let walked = walk_bounded(root, Some(bounds))?;
    probe_all(walked, threads, limits, cancel, |_, _| {})
}

/// Probes every file `walked` found on `threads` workers.
fn probe_all(
    walked: Walk,
    threads: usize,
    limits: &ReadLimits,
    cancel: &AtomicBool,
    mut on_file: impl FnMut(&Path, &Probe),
) -> Result<Discovery, StoreError> {
    let mut found = Discovery {
        notes: walked.notes,
        special: walked
            .special
            .into_iter()
            .map(|(file, kind)| UnreadableFile {
                file,
                error: format!("{kind}, not a session file: skipped without opening it"),
            })
            .collect(),
        files_seen: walked.files.len(),
        ..Default::default()
    };
    let mut probed: Vec<(PathBuf, Probe)> = Vec::with_capacity(walked.files.len());
    for_each_parallel(
        walked.files,
        threads,
        cancel,
        |c: Candidate| {
            let probe = probe::probe(&c, limits);
            (c.path, probe)
        },
        |(path, probe)| {
            on_file(&path, &probe);
            probed.push((path, probe));
        },
    );
    probed.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, probe) in probed {
        match probe {
            Probe::NotASession => {}
            Probe::Sessions(list) => found.sessions.extend(list),
            Probe::Unreadable(error) => found.unreadable.push(UnreadableFile { file: path, error }),
            Probe::Skipped(note) => found.notes.push(note),
        }
    }
    Ok(found)
}

/// True when `path` is a file that session discovery lists as holding a session (what
/// `sessions` and the browser show), by the same cheap look at it.
pub fn is_session_log(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let candidate = Candidate {
        path: path.to_path_buf(),
        size: meta.len(),
        modified: None,
    };
    matches!(
        probe::probe(&candidate, &ReadLimits::default()),
        Probe::Sessions(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_from_cwd_or_store_folders() {
        let f = Path::new("/r/--home-u-proj--/abc/session.jsonl");
        assert_eq!(project_of(Some("/home/u/proj"), f), "/home/u/proj");
        assert_eq!(project_of(None, f), "home-u-proj");
        assert_eq!(
            project_of(None, Path::new("/r/cwd-0123456789ab/x.jsonl")),
            "cwd-0123456789ab"
        );
        assert_eq!(
            project_of(Some(""), Path::new("/r/_no-cwd/x/session.jsonl")),
            "(no working directory)"
        );
    }
}
