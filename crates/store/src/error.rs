//! Errors that stop a file from being read at all (everything else is a finding).

use std::path::{Path, PathBuf};

/// A file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Nothing in the file is a session log.
    #[error("{}: {message}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A SQLite file that cannot be read as a session database.
    #[error("{}: cannot read as a session database: {message}", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite or the schema check said.
        message: String,
    },
    /// `--session` names a session the file does not hold.
    #[error("{}: no session {id:?} in this file (it holds: {available})", path.display())]
    UnknownSession {
        /// The file.
        path: PathBuf,
        /// The id asked for.
        id: String,
        /// The ids it holds, comma-separated.
        available: String,
    },
    /// The session's text, once decompressed, passes the total limit
    /// ([`crate::ReadLimits::total_bytes`]): nothing of it is shown.
    #[error(
        "{}: holds more than {limit} bytes ({}) of session text once decompressed, the most one session may take (--max-bytes); not read",
        path.display(),
        surface_engine::human_bytes(*limit)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The total limit, in bytes.
        limit: u64,
    },
    /// Another program truncated the file while it was mapped and read (the mapping's bytes
    /// read as zeros from then on): what was read from it cannot be trusted.
    #[error(
        "{} shrank while it was being read (another program truncated it); nothing more can be read from it",
        path.display()
    )]
    Shrank {
        /// The file.
        path: PathBuf,
    },
    /// The user cancelled the load.
    #[error("loading {} was cancelled", path.display())]
    Cancelled {
        /// The file.
        path: PathBuf,
    },
}

impl StoreError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
