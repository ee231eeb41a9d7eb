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
mod chunk_pages;
mod code_search;
mod delta_envelope;
mod discover;
mod envelope;
mod envelope_scan;
mod error;
mod follow;
mod identity;
mod jsonl;
mod limits;
mod log_with_line;
mod map_for;
#[cfg(target_os = "linux")]
mod map_guard;
#[cfg(target_os = "linux")]
mod mapped_file;
mod packed_rows;
mod progress;
mod read_file;
mod resident;
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

pub use discover::{Candidate, Walk, for_each_parallel, for_each_parallel_in, walk};
pub use discover::{
    Discovery, Probe, SessionEntry, SessionFigures, UnreadableFile, default_threads, figures_of,
    find_sessions, find_sessions_within, is_session_log, project_of, read_figures,
    read_figures_within,
};
pub use envelope::{Envelope, parse_integer, parse_non_negative, parse_sources, parse_surface_op};
pub use envelope_scan::{MAX_DEPTH, ScanOutcome, compare_with_serde, scan_envelope};
pub use error::StoreError;
pub use follow::{FollowUpdate, Follower, open_following};
pub use identity::{FileChange, FileIdentity};
use jsonl::{LetGo, read_jsonl_releasing};
pub use jsonl::{header_from_json, parse_body, parse_header, read_jsonl, read_jsonl_with};
pub use limits::{
    DEFAULT_EVENT_BYTES, ReadLimits, ReadStop, TOTAL_CEILING, default_total_bytes, parse_byte_size,
    physical_memory,
};
pub use log_with_line::{LineError, LogBytes, SaveLogError, log_with_line, write_log_with_line};
pub use map_for::OnTruncate;
#[cfg(target_os = "linux")]
#[doc(hidden)]
pub use mapped_file::{page_runs_can_be_let_go, set_after_map_hook};
pub use progress::LoadProgress;
pub use resident::{ResidentBudget, resident_kib};
pub use sqlite::{NewRows, list_sqlite_sessions, read_sqlite, read_sqlite_rows_after};
pub use varint::{decode_seq_list, encode_seq_list};
pub use write_safely::{WriteError, WriteTarget, refuse_the_log, write_file_safely};
pub use zstd_jsonl::{decode_complete_frames, read_zstd_jsonl};

use map_for::MapFor;
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

/// Opens `path` read-only and reads one session (`session` picks one in a SQLite file;
/// otherwise the only or the most recently created one). The log owns a copy of the file's
/// bytes (what live follow and tests use; the viewer maps: [`open_for_viewer`]). The default
/// [`ReadLimits`] hold.
pub fn open(path: &Path, session: Option<&str>) -> Result<Opened, StoreError> {
    open_within(path, session, None, &ReadLimits::default())
}

/// [`open`] reporting progress and honouring cancellation.
pub fn open_with_progress(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
) -> Result<Opened, StoreError> {
    open_within(path, session, progress, &ReadLimits::default())
}

/// [`open_with_progress`] holding the file to `limits`: an event past the per-event limit is
/// a `line.too-long` finding, a session whose text passes the total is
/// [`StoreError::TooLarge`].
pub fn open_within(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Result<Opened, StoreError> {
    open_reading(path, session, progress, Reading::Copy, limits)
}

/// [`open_within`], but a large JSONL file is mapped read-only instead of copied (Linux, once
/// the program has called [`install_map_guard`]; see `mapped_file.rs`): the log's text arena
/// shares the file's pages. For short-lived readers (the CLI). Zstandard and SQLite files read
/// as with [`open`] (they decode into owned text). If another program truncates the file while
/// the log is alive, `on_truncate` says what happens: [`OnTruncate::Exit`] prints one line
/// naming the file and exits 2; with [`OnTruncate::Report`] the bytes read as zeros from then
/// on and [`surface_engine::EventLog::text_lost`] turns true, for the caller to report (this
/// function does so itself, as [`StoreError::Shrank`], when it happens while reading).
pub fn open_mapped(
    path: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
    on_truncate: OnTruncate,
) -> Result<Opened, StoreError> {
    open_mapped_for(path, session, limits, MapFor::CommandLine(on_truncate))
}

/// [`open_mapped`] for a command that reads the whole log once and then only a part of it
/// (`export`): the mapping keeps every page through the read, and lets them go when the
/// command asks ([`surface_engine::EventLog::release_resident`]) — after it copied the lines
/// its later passes read out of the mapping ([`surface_engine::EventLog::keep_lines`]).
pub fn open_staged(
    path: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
    on_truncate: OnTruncate,
) -> Result<Opened, StoreError> {
    open_mapped_for(path, session, limits, MapFor::Staged(on_truncate))
}

/// [`open_mapped`] for `check`, whose passes after the read look at no streamed chunk's text:
/// the mapping lets go of the pages that hold nothing but streamed-chunk lines once their piece
/// is parsed (`chunk_pages.rs`), and keeps every other page until the log is dropped. What any
/// pass reads is the same; a chunk read after all faults its page back in from the page cache.
pub fn open_for_check(
    path: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
    on_truncate: OnTruncate,
) -> Result<Opened, StoreError> {
    open_mapped_for(path, session, limits, MapFor::Check(on_truncate))
}

/// The command line's openings of `path`, mapped for `use_`, with no progress to report.
fn open_mapped_for(
    path: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
    use_: MapFor,
) -> Result<Opened, StoreError> {
    open_reading(path, session, None, Reading::Map(use_), limits)
}

/// What the desktop viewer opens a file with: [`open_within`], but a large JSONL file is
/// mapped lazily instead of copied (Linux, once the guard is installed; see
/// `mapped_file.rs`). The log's text arena shares the page cache and lets go of pages once
/// read ([`surface_engine::EventLog::release_resident`]). If another program truncates the
/// file, the bytes read as zeros from then on and [`surface_engine::EventLog::text_lost`]
/// turns true: the viewer reopens the file.
pub fn open_for_viewer(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Result<Opened, StoreError> {
    open_reading(
        path,
        session,
        progress,
        Reading::Map(MapFor::Viewer),
        limits,
    )
}

/// How the bytes of a JSONL file get into memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// An owned copy.
    Copy,
    /// Mapped when large enough (`read_file::map_or_read`), for this use.
    Map(MapFor),
}

impl Reading {
    /// What the JSONL reader of `text_len` bytes lets go of behind its parse: the viewer every
    /// page (it reads lines again as it shows them), `check` the pages of streamed chunks
    /// alone until the process passes its budget (then every page of the mapping), the other
    /// commands nothing (their passes may read any line).
    fn let_go(self, text_len: usize) -> LetGo {
        match self {
            Reading::Map(MapFor::Viewer) => LetGo::Everything,
            Reading::Map(MapFor::Check(_)) => {
                LetGo::ChunkOnlyPages(ResidentBudget::for_check(text_len))
            }
            Reading::Copy | Reading::Map(MapFor::CommandLine(_) | MapFor::Staged(_)) => {
                LetGo::Nothing
            }
        }
    }

    /// Whether the reader keeps each harness-written delta's piece for the meter
    /// ([`surface_engine::StreamedDelta`]): not for `check`, which has no meter, nor for the
    /// viewer's mapping, whose first frame waits for the read while its meter is computed
    /// behind that frame (measuring costs the read 2–3 % of its time and saves the meter a
    /// third of its own).
    fn keeps_deltas(self) -> bool {
        !matches!(self, Reading::Map(MapFor::Viewer | MapFor::Check(_)))
    }
}

/// [`open`] and [`open_mapped`]: detect, read (copied or mapped), check it is a session.
fn open_reading(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    reading: Reading,
    limits: &ReadLimits,
) -> Result<Opened, StoreError> {
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
                Reading::Map(use_) if format == Format::Jsonl => {
                    read_file::map_or_read(path, use_, total)
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
                _ => {
                    let let_go = reading.let_go(bytes.len());
                    read_jsonl_releasing(bytes, progress, limits, let_go, reading.keeps_deltas())
                }
                .ok_or(ReadStop::Cancelled),
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
        _ => Ok(vec![open_within(path, None, None, limits)?.session]),
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
