//! Reading session files into the engine's types: format detection by content, JSONL,
//! Zstandard JSONL and SQLite (read-only), the list of sessions a file holds, and every session
//! under a folder (`discover*`); the one rule for every file written (`write_safely`).
//!
//! One of the two crates of the workspace that may hold `unsafe` (the other is `surface-scan`):
//! the operating system's part — mapping a file (`mapped_file`, `read_file`), the SIGBUS guard
//! (`map_guard`) and its chaining to the handler it replaced (`sigbus_chain`), the machine's
//! memory and page size (`limits`) and one uninitialised-buffer fill (`batch_merge`). Each
//! block states why it is sound; ARCHITECTURE.md gives the contract of mapped bytes.
//!
//! Every reader holds a file to [`ReadLimits`] (`limits.rs`): a per-event limit and a total on
//! the session's decompressed text.

mod batch_merge;
mod discover;
mod envelope;
mod envelope_scan;
mod error;
mod follow;
mod identity;
mod jsonl;
mod limits;
mod log_with_line;
#[cfg(target_os = "linux")]
mod map_guard;
#[cfg(target_os = "linux")]
mod mapped_file;
mod options;
mod packed_rows;
mod progress;
mod read_file;
#[cfg(target_os = "linux")]
mod sigbus_chain;
mod sqlite;
mod sqlite_rows;
mod sqlite_schema;
mod sqlite_sessions;
mod string_scan;
mod varint;
mod write_safely;
mod zstd_jsonl;
mod zstd_sink;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use discover::{Candidate, Walk, for_each_parallel, for_each_parallel_in, walk, walk_bounded};
pub use discover::{
    Discovery, Probe, SessionEntry, SessionFigures, UnreadableFile, default_threads, figures_of,
    find_sessions, find_sessions_bounded, find_sessions_within, is_session_log, project_of,
    read_figures, read_figures_within, read_session_figures,
};
pub use envelope::{Envelope, parse_integer, parse_non_negative, parse_sources, parse_surface_op};
pub use envelope_scan::{MAX_DEPTH, ScanOutcome, compare_with_serde, scan_envelope};
pub use error::StoreError;
pub use follow::{FollowUpdate, Follower, open_following};
pub use identity::{FileChange, FileIdentity};
pub use jsonl::{header_from_json, parse_body, parse_header, read_jsonl, read_jsonl_with};
pub use limits::{
    DEFAULT_EVENT_BYTES, ReadLimits, ReadStop, TOTAL_CEILING, default_total_bytes, parse_byte_size,
    physical_memory,
};
pub use log_with_line::{LineError, LogBytes, SaveLogError, log_with_line, write_log_with_line};
#[cfg(target_os = "linux")]
#[doc(hidden)]
pub use mapped_file::set_after_map_hook;
pub use options::{OnTruncate, Options, Reading};
pub use progress::LoadProgress;
pub use sqlite::{NewRows, list_sqlite_sessions, read_sqlite, read_sqlite_rows_after};
pub use varint::{decode_seq_list, encode_seq_list};
pub use write_safely::{WriteError, WriteTarget, refuse_the_log, write_file_safely};
pub use zstd_jsonl::{decode_complete_frames, read_zstd_jsonl};

use read_file::ReadFail;
use surface_engine::{EventLog, TextArena};

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

/// Installs the SIGBUS guard that mapping a file needs (Linux; see `map_guard.rs`), keeping
/// the process's previous SIGBUS disposition to hand every signal that is not the guard's to.
/// A program calls it once, early in `main` (the viewer's `run` does too); the library never
/// installs it on its own. Without it the store reads files instead of mapping them. Returns
/// whether the guard is in place (always false off Linux).
pub fn install_map_guard() -> bool {
    #[cfg(target_os = "linux")]
    {
        map_guard::install()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Opens `path` read-only and reads one session as `options` say: which session of a SQLite
/// file (otherwise the only or the most recently created one), the progress to report and the
/// cancellation to honour, the [`ReadLimits`] (an event past the per-event limit is a
/// `line.too-long` finding, a session whose text passes the total is
/// [`StoreError::TooLarge`]), and whether a large JSONL file is copied or mapped
/// ([`Reading`]). A mapped file truncated while it is read is [`StoreError::Shrank`].
pub fn open(path: &Path, options: &Options<'_>) -> Result<Opened, StoreError> {
    let Options {
        session,
        progress,
        limits,
        reading,
    } = *options;
    let limits = &limits;
    let format = detect_file(path)?;
    let stopped = |stop| match stop {
        ReadStop::Cancelled => StoreError::Cancelled {
            path: path.to_path_buf(),
        },
        ReadStop::TooLarge { limit } => StoreError::TooLarge {
            path: path.to_path_buf(),
            limit,
        },
    };
    let (log, info) = match format {
        Format::Sqlite => read_sqlite(path, session, progress, limits)?
            .ok_or_else(|| stopped(ReadStop::Cancelled))?,
        Format::Jsonl | Format::Zstd => {
            let total = limits.total_bytes();
            let bytes = match reading {
                Reading::Map(on_truncate) if format == Format::Jsonl => {
                    read_file::map_or_read(path, on_truncate, total)
                }
                _ => read_file::read_whole(path, total).map(TextArena::from),
            }
            .map_err(|e| match e {
                ReadFail::Io(e) => StoreError::io(path, e),
                ReadFail::TooLarge => stopped(ReadStop::TooLarge { limit: total }),
            })?;
            if let Some(p) = progress {
                p.set_total(bytes.len() as u64);
            }
            let log = match format {
                Format::Zstd => read_zstd_jsonl(&bytes, progress, limits),
                _ => read_jsonl_with(bytes, progress, limits).ok_or(ReadStop::Cancelled),
            }
            .map_err(stopped)?;
            if log.text_lost() {
                return Err(StoreError::Shrank {
                    path: path.to_path_buf(),
                });
            }
            if log.header.is_none() && log.is_empty() {
                let first_problem = log
                    .problems
                    .iter()
                    .find(|p| p.kind != surface_engine::ProblemKind::HeaderMissing)
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

/// The sessions a file holds (the default [`ReadLimits`]).
pub fn list_sessions(path: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    list_sessions_within(path, &ReadLimits::default())
}

/// [`list_sessions`] holding the file to `limits` (a JSONL or Zstandard file is read whole).
pub fn list_sessions_within(
    path: &Path,
    limits: &ReadLimits,
) -> Result<Vec<SessionInfo>, StoreError> {
    match detect_file(path)? {
        Format::Sqlite => list_sqlite_sessions(path, limits),
        _ => {
            let options = Options {
                limits: *limits,
                ..Options::default()
            };
            Ok(vec![open(path, &options)?.session])
        }
    }
}

/// Detects the format of a file from its first bytes. Folders, FIFOs, sockets and devices are
/// refused from their metadata before anything is opened (opening a FIFO blocks until a
/// writer comes; a device such as `/dev/zero` never ends).
pub fn detect_file(path: &Path) -> Result<Format, StoreError> {
    use std::io::Read as _;
    let metadata = std::fs::metadata(path).map_err(|e| StoreError::io(path, e))?;
    refuse_non_regular(path, &metadata)?;
    let mut file = std::fs::File::open(path).map_err(|e| StoreError::io(path, e))?;
    // The path may have been replaced between the two calls: check what was opened.
    if let Ok(opened) = file.metadata() {
        refuse_non_regular(path, &opened)?;
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

/// `Err` naming what `path` is when it is not a regular file.
pub fn refuse_non_regular(path: &Path, metadata: &std::fs::Metadata) -> Result<(), StoreError> {
    match special_file_kind(metadata) {
        None => Ok(()),
        Some(kind) => Err(StoreError::Unreadable {
            path: path.to_path_buf(),
            message: format!("is {kind}, not a session file"),
        }),
    }
}

/// What a file that is not a regular file is ("a directory", "a FIFO", …); `None` for a
/// regular file. `metadata` should follow symlinks.
pub fn special_file_kind(metadata: &std::fs::Metadata) -> Option<&'static str> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
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
