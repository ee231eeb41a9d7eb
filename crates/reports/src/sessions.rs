//! `sessions`' document: the sessions a file holds (id, created, events, parent, seed,
//! origin), optionally only the one named.

use std::path::Path;

use serde_json::Value;
use surface_store::{ReadLimits, SessionInfo, StoreError, list_sessions_within};

use crate::ReportError;

/// The sessions in `file` read within `limits`; only `only` when given (an id the file does
/// not hold is [`StoreError::UnknownSession`]).
pub fn sessions_of(
    file: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
) -> Result<Vec<SessionInfo>, ReportError> {
    let mut sessions = list_sessions_within(file, limits)?;
    if let Some(id) = only {
        let available = sessions
            .iter()
            .map(|s| s.id.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        sessions.retain(|s| s.id == id);
        if sessions.is_empty() {
            return Err(StoreError::UnknownSession {
                path: file.to_path_buf(),
                id: id.to_string(),
                available,
            }
            .into());
        }
    }
    Ok(sessions)
}

/// The `--json` document: an array of sessions.
pub fn document(sessions: &[SessionInfo]) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(sessions)?)
}
