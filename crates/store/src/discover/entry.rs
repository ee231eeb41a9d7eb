//! What the cheap pass of discovery knows of a session file: one entry per session, the
//! probe's verdict on a file, and the project a session belongs to.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Format;

/// One session found under a folder, with what could be read cheaply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionEntry {
    /// The file holding it.
    pub file: PathBuf,
    /// The file's format.
    pub format: Format,
    /// The log holds packed chunk rows (`text-chunks`, …) as far as the probe saw (its first
    /// and last bytes; a SQLite store's rows are not looked at).
    pub packed: bool,
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

    /// The format as the browser names it: `JSONL`, `JSONL packed` (chunk rows packed, as the
    /// harness writes them since July), `Zstandard JSONL (packed)`, `SQLite`.
    pub fn format_label(&self) -> &'static str {
        match (self.format, self.packed) {
            (Format::Jsonl, true) => "JSONL packed",
            (Format::Zstd, true) => "Zstandard JSONL packed",
            (format, _) => format.label(),
        }
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
