//! SQLite session databases (schemas 1–17), opened strictly read-only.

use std::path::Path;

use super::progress::LoadProgress;
use super::{SessionInfo, StoreError};
use crate::engine::EventLog;

/// Lists the sessions of a database.
pub fn list_sqlite_sessions(path: &Path) -> Result<Vec<SessionInfo>, StoreError> {
    Err(StoreError::Sqlite {
        path: path.to_path_buf(),
        message: "SQLite reading is not implemented yet".into(),
    })
}

/// Reads one session. `Ok(None)` when cancelled.
pub fn read_sqlite(
    path: &Path,
    _session: Option<&str>,
    _progress: Option<&LoadProgress>,
) -> Result<Option<(EventLog, SessionInfo)>, StoreError> {
    Err(StoreError::Sqlite {
        path: path.to_path_buf(),
        message: "SQLite reading is not implemented yet".into(),
    })
}
