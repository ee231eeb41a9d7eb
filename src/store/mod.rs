//! Reading session files into the engine's types: format detection by content, JSONL,
//! Zstandard JSONL and SQLite (read-only), and the list of sessions a file holds.

mod envelope;
mod error;
mod follow;
mod jsonl;
mod packed_rows;
mod progress;
mod sqlite;
mod sqlite_rows;
mod sqlite_schema;
mod sqlite_sessions;
mod varint;
mod zstd_jsonl;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use envelope::{parse_integer, parse_non_negative, parse_sources, parse_surface_op};
pub use error::StoreError;
pub use follow::{FollowUpdate, Follower, open_following};
pub use jsonl::{header_from_json, parse_body, parse_header, read_jsonl};
pub use progress::LoadProgress;
pub use sqlite::{NewRows, list_sqlite_sessions, read_sqlite, read_sqlite_rows_after};
pub use varint::{decode_seq_list, encode_seq_list};
pub use zstd_jsonl::{decode_complete_frames, read_zstd_jsonl};

use crate::engine::EventLog;

/// The on-disk format of a session file, detected from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Plain JSONL.
    Jsonl,
    /// Zstandard-compressed JSONL (concatenated frames).
    Zstd,
    /// A SQLite database of sessions.
    Sqlite,
}

impl Format {
    /// Detects the format from the leading bytes: SQLite magic, Zstandard magic, else JSONL.
    pub fn detect(prefix: &[u8]) -> Format {
        if prefix.starts_with(b"SQLite format 3\0") {
            Format::Sqlite
        } else if prefix.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Format::Zstd
        } else {
            Format::Jsonl
        }
    }

    /// A short human name.
    pub fn label(self) -> &'static str {
        match self {
            Format::Jsonl => "JSONL",
            Format::Zstd => "Zstandard JSONL",
            Format::Sqlite => "SQLite",
        }
    }
}

/// One session in a file (a JSONL file holds one; a SQLite file many).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// Session id.
    pub id: String,
    /// Creation time, epoch milliseconds.
    pub created: Option<i64>,
    /// Number of events (after packed rows are expanded).
    pub events: u64,
    /// Parent session of a fork.
    pub parent: Option<String>,
    /// Number of inherited seed events of a fork.
    pub seed_length: Option<u64>,
    /// `origin` (`"subagent"`).
    pub origin: Option<String>,
}

/// A session read from a file.
#[derive(Debug)]
pub struct Opened {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// The session that was read.
    pub session: SessionInfo,
    /// The log.
    pub log: EventLog,
}

/// Opens `path` read-only and reads one session (`session` picks one in a SQLite file;
/// otherwise the only or the most recently created one).
pub fn open(path: &Path, session: Option<&str>) -> Result<Opened, StoreError> {
    open_with_progress(path, session, None)
}

/// [`open`] reporting progress and honouring cancellation.
pub fn open_with_progress(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
) -> Result<Opened, StoreError> {
    let format = detect_file(path)?;
    let cancelled = || StoreError::Cancelled {
        path: path.to_path_buf(),
    };
    let (log, info) = match format {
        Format::Sqlite => read_sqlite(path, session, progress)?.ok_or_else(cancelled)?,
        Format::Jsonl | Format::Zstd => {
            let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
            if let Some(p) = progress {
                p.set_total(bytes.len() as u64);
            }
            let log = match format {
                Format::Zstd => read_zstd_jsonl(&bytes, progress),
                _ => read_jsonl(bytes, progress),
            }
            .ok_or_else(cancelled)?;
            if log.header.is_none() && log.is_empty() {
                let first_problem = log
                    .problems
                    .iter()
                    .find(|p| p.kind != crate::engine::ProblemKind::HeaderMissing)
                    .map(|p| format!(" (first problem: {})", p.message))
                    .unwrap_or_default();
                return Err(StoreError::Unreadable {
                    path: path.to_path_buf(),
                    message: format!(
                        "no session header and no event could be read; not a session log{first_problem}"
                    ),
                });
            }
            let info = single_session_info(&log);
            if let Some(wanted) = session
                && wanted != info.id
            {
                return Err(StoreError::UnknownSession {
                    path: path.to_path_buf(),
                    id: wanted.to_string(),
                    available: info.id,
                });
            }
            (log, info)
        }
    };
    Ok(Opened {
        path: path.to_path_buf(),
        format,
        session: info,
        log,
    })
}

/// The sessions a file holds.
pub fn list_sessions(path: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    match detect_file(path)? {
        Format::Sqlite => list_sqlite_sessions(path),
        _ => Ok(vec![open(path, None)?.session]),
    }
}

/// Detects the format of a file from its first bytes.
pub fn detect_file(path: &Path) -> Result<Format, StoreError> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path).map_err(|e| StoreError::io(path, e))?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(StoreError::Unreadable {
            path: path.to_path_buf(),
            message: "is a directory, not a session file".into(),
        });
    }
    let mut prefix = [0u8; 16];
    let mut n = 0;
    while n < prefix.len() {
        match file.read(&mut prefix[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(StoreError::io(path, e)),
        }
    }
    Ok(Format::detect(&prefix[..n]))
}

pub(crate) fn single_session_info(log: &EventLog) -> SessionInfo {
    let h = log.header.clone().unwrap_or_default();
    SessionInfo {
        id: h.id,
        created: h.created_at,
        events: log.len() as u64,
        parent: h.parent_session,
        seed_length: h.seed_length,
        origin: h.origin,
    }
}
