//! `sessions`: the sessions a file holds.

use std::io::Write as _;
use std::path::Path;

use super::load::write_context;
use super::{EXIT_OK, print_json};
use surface_store::{ReadLimits, StoreError, list_sessions_within};

/// Runs `sessions`, reading the file within `limits`.
pub fn run(file: &Path, only: Option<&str>, limits: &ReadLimits, json: bool) -> anyhow::Result<u8> {
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
    if json {
        print_json(&sessions)?;
        return Ok(EXIT_OK);
    }
    let mut out = std::io::stdout().lock();
    write_context(writeln!(
        out,
        "{:<40} {:>15} {:>9}  parent",
        "id", "created", "events"
    ))?;
    for s in &sessions {
        let parent = match (&s.parent, s.seed_length) {
            (Some(p), Some(n)) => format!("{p} (seed {n})"),
            (Some(p), None) => p.clone(),
            _ => "-".to_string(),
        };
        let origin = s
            .origin
            .as_deref()
            .map(|o| format!(" [{o}]"))
            .unwrap_or_default();
        write_context(writeln!(
            out,
            "{:<40} {:>15} {:>9}  {parent}{origin}",
            s.id,
            s.created.map_or("-".to_string(), |c| c.to_string()),
            s.events
        ))?;
    }
    Ok(EXIT_OK)
}
