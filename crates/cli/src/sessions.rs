//! `sessions`: the sessions a file holds, each read whole so its error count and what its
//! reader skipped are said (a session whose content was not read never lists as a clean one).

use std::io::Write as _;
use std::path::Path;

use serde::Serialize;

use super::load::{warn_skipped, write_context};
use super::{EXIT_OK, print_json};
use surface_store::{
    Format, ReadLimits, SessionFigures, SessionInfo, StoreError, detect_file, list_sessions_within,
    read_session_figures,
};

/// One session of the listing: what the file says of it, and what reading it found.
#[derive(Debug, Serialize)]
struct Listed {
    #[serde(flatten)]
    info: SessionInfo,
    /// Error-level findings of `check` (`null` when the session could not be read).
    errors: Option<u64>,
    /// Warnings of `check`.
    warnings: Option<u64>,
    /// The records its reader skipped.
    skipped: Vec<surface_engine::Skipped>,
    /// Why the session could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
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

/// Runs `sessions`, reading the file within `limits`.
pub fn run(file: &Path, only: Option<&str>, limits: &ReadLimits, json: bool) -> anyhow::Result<u8> {
    let sessions = listed(file, only, limits)?;
    for s in &sessions {
        warn_skipped(file, &s.skipped);
    }
    if json {
        print_json(&sessions)?;
        return Ok(EXIT_OK);
    }
    write_human(&sessions)?;
    Ok(EXIT_OK)
}

/// The sessions of `file` (only `only`, when given), each read whole. A JSONL file is read
/// once; a SQLite file's sessions one after another.
fn listed(file: &Path, only: Option<&str>, limits: &ReadLimits) -> anyhow::Result<Vec<Listed>> {
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
) -> anyhow::Result<Vec<&'a SessionInfo>> {
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

fn write_human(sessions: &[Listed]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    write_context(writeln!(
        out,
        "{:<40} {:>15} {:>9} {:>7}  parent",
        "id", "created", "events", "errors"
    ))?;
    for s in sessions {
        let info = &s.info;
        let parent = match (&info.parent, info.seed_length) {
            (Some(p), Some(n)) => format!("{p} (seed {n})"),
            (Some(p), None) => p.clone(),
            _ => "-".to_string(),
        };
        let origin = info
            .origin
            .as_deref()
            .map(|o| format!(" [{o}]"))
            .unwrap_or_default();
        let errors = s.errors.map_or("-".to_string(), |n| n.to_string());
        write_context(writeln!(
            out,
            "{:<40} {:>15} {:>9} {errors:>7}  {parent}{origin}",
            info.id,
            info.created.map_or("-".to_string(), |c| c.to_string()),
            info.events
        ))?;
        if let Some(err) = &s.error {
            write_context(writeln!(out, "  unreadable: {err}"))?;
        }
    }
    Ok(())
}
