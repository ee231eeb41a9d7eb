//! `sessions`: the sessions a file holds, each read whole so its error count and what its
//! reader skipped are said (a session whose content was not read never lists as a clean one).

use std::io::Write as _;
use std::path::Path;

use super::load::{warn_skipped, write_context};
use super::{EXIT_OK, print_json};
use surface_reports::sessions::Listed;
use surface_store::ReadLimits;

/// Runs `sessions`, reading the file within `limits`.
pub fn run(file: &Path, only: Option<&str>, limits: &ReadLimits, json: bool) -> anyhow::Result<u8> {
    let sessions = surface_reports::sessions::listed(file, only, limits)?;
    for s in &sessions {
        warn_skipped(file, &s.skipped);
    }
    if json {
        print_json(&surface_reports::sessions::document(&sessions)?)?;
        return Ok(EXIT_OK);
    }
    write_human(&sessions)?;
    Ok(EXIT_OK)
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
