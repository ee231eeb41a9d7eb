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

use super::discover_pool::for_each_parallel;
use super::discover_walk::{Candidate, walk};
use super::{Format, StoreError};

pub use super::discover_figures::{SessionFigures, figures_of, read_figures};
pub use super::discover_pool::default_threads;

/// One session found under a folder, with what could be read cheaply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionEntry {
    /// The file holding it.
    pub file: PathBuf,
    /// The file's format.
    pub format: Format,
    /// Size of the file in bytes (a SQLite file counts once per session it holds).
    pub size: u64,
    /// The file's last modification, epoch milliseconds.
    pub modified: Option<i64>,
    /// Session id (empty when the header could not be read).
    pub id: String,
    /// True when the file holds several sessions and `id` picks this one (SQLite).
    pub in_database: bool,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The project: the working directory, else the store folder it sits in.
    pub project: String,
    /// Title: the last `session/title` event seen so far.
    pub title: Option<String>,
    /// Creation time, epoch milliseconds.
    pub created: Option<i64>,
    /// Time of the last event, epoch milliseconds, when known.
    pub last_event: Option<i64>,
    /// Parent session of a fork.
    pub parent: Option<String>,
    /// Number of leading events a fork inherited from its parent.
    pub seed_length: Option<u64>,
    /// `origin` (`"subagent"`).
    pub origin: Option<String>,
    /// Number of events, when known without reading the whole log (SQLite).
    pub events: Option<u64>,
}

impl SessionEntry {
    /// The `--session` argument that opens exactly this session.
    pub fn session_arg(&self) -> Option<&str> {
        self.in_database.then_some(self.id.as_str())
    }

    /// Last activity: the last event's time, else the file's modification time.
    pub fn last_activity(&self) -> Option<i64> {
        self.last_event.or(self.modified)
    }
}

/// What the cheap pass made of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Not a session file (skipped silently).
    NotASession,
    /// The sessions the file holds.
    Sessions(Vec<SessionEntry>),
    /// A session file (by its content) that cannot be read: why.
    Unreadable(String),
    /// A file that could not even be opened: a note, not a session.
    Skipped(String),
}

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
    /// Regular files looked at.
    pub files_seen: usize,
}

/// Walks `root` and probes every file on `threads` workers, calling `on_file` with each
/// file's probe as it finishes (for progress and progressive display). `Err` only when `root`
/// cannot be read as a folder.
pub fn find_sessions(
    root: &Path,
    threads: usize,
    cancel: &AtomicBool,
    mut on_file: impl FnMut(&Path, &Probe),
) -> Result<Discovery, StoreError> {
    let walked = walk(root)?;
    let mut found = Discovery {
        notes: walked.notes,
        files_seen: walked.files.len(),
        ..Default::default()
    };
    let mut probed: Vec<(PathBuf, Probe)> = Vec::with_capacity(walked.files.len());
    for_each_parallel(
        walked.files,
        threads,
        cancel,
        |c: Candidate| {
            let probe = super::discover_probe::probe(&c);
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

/// The project of a session: its working directory, else the store folder it sits in
/// (`--<projectKey>--`, `cwd-<h>`, `_no-cwd`).
pub fn project_of(cwd: Option<&str>, file: &Path) -> String {
    if let Some(cwd) = cwd.filter(|c| !c.is_empty()) {
        return cwd.to_string();
    }
    for dir in file.ancestors().skip(1).take(3) {
        let Some(name) = dir.file_name().map(|n| n.to_string_lossy()) else {
            break;
        };
        if name.len() > 4 && name.starts_with("--") && name.ends_with("--") {
            return name[2..name.len() - 2].to_string();
        }
        if name.starts_with("cwd-") {
            return name.into_owned();
        }
        if name == "_no-cwd" {
            break;
        }
    }
    "(no working directory)".to_string()
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
