//! `sessions`' document: the sessions a file holds (id, created, events, parent, seed,
//! origin), each read whole so that its error and warning counts and what its reader skipped
//! are said — a session whose content was not read never lists as a clean one.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use surface_engine::Skipped;
use surface_store::{
    Format, ReadLimits, SessionFigures, SessionInfo, StoreError, detect_file, list_sessions_within,
    read_session_figures,
};

use crate::ReportError;

/// One session of the listing: what the file says of it, and what reading it found.
#[derive(Debug, Serialize)]
pub struct Listed {
    /// What the file says.
    #[serde(flatten)]
    pub info: SessionInfo,
    /// Error-level findings of `check` (`null` when the session could not be read).
    pub errors: Option<u64>,
    /// Warnings of `check`.
    pub warnings: Option<u64>,
    /// The records its reader skipped.
    pub skipped: Vec<Skipped>,
    /// Why the session could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Listed {
    fn of(info: SessionInfo, figures: Result<SessionFigures, StoreError>) -> Self {
        match figures {
            Ok(f) => Listed {
                info,
                errors: Some(f.errors),
                warnings: Some(f.warnings),
                skipped: f.skipped,
                error: None,
            },
            Err(e) => Listed {
                info,
                errors: None,
                warnings: None,
                skipped: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    }
}

/// The sessions of `file` (only `only`, when given), each read whole within `limits`. A JSONL
/// file is read once; a SQLite file's sessions one after another.
pub fn listed(
    file: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
) -> Result<Vec<Listed>, ReportError> {
    if detect_file(file)? != Format::Sqlite {
        let (info, figures) = read_session_figures(file, None, limits)?;
        keep_only(file, std::slice::from_ref(&info), only)?;
        return Ok(vec![Listed::of(info, Ok(figures))]);
    }
    let sessions = list_sessions_within(file, limits)?;
    Ok(keep_only(file, &sessions, only)?
        .into_iter()
        .map(|info| {
            let figures = read_session_figures(file, Some(&info.id), limits).map(|(_, f)| f);
            Listed::of(info.clone(), figures)
        })
        .collect())
}

/// The sessions but the ones other than `only`; an `only` the file does not hold is an error
/// naming the ones it does.
fn keep_only<'a>(
    file: &Path,
    sessions: &'a [SessionInfo],
    only: Option<&str>,
) -> Result<Vec<&'a SessionInfo>, ReportError> {
    let kept: Vec<&SessionInfo> = sessions
        .iter()
        .filter(|s| only.is_none_or(|id| s.id == id))
        .collect();
    match only {
        Some(id) if kept.is_empty() => Err(StoreError::UnknownSession {
            path: file.to_path_buf(),
            id: id.to_string(),
            available: sessions
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
        .into()),
        _ => Ok(kept),
    }
}

/// The `--json` document: an array of sessions.
pub fn document(sessions: &[Listed]) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(sessions)?)
}
