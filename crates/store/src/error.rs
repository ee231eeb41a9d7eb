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
