//! A folder as the input of `check DIR`, `sessions DIR`, `policy DIR` and `cost DIR`: every
//! session found under it, notes about what was skipped on stderr, and exit 2 when nothing is
//! there to read.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use surface_store::{Discovery, ReadLimits, SessionEntry, default_threads, find_sessions_within};

/// Worker threads for `--jobs` (default: one per core).
pub fn threads(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(default_threads).max(1)
}

/// Finds the sessions under `dir` (only `only` when given), no file decoded past `limits`,
/// printing the walk's notes on stderr. `Err` when the folder cannot be read or holds no
/// session file at all.
pub fn discover(
    dir: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
    threads: usize,
) -> anyhow::Result<Discovery> {
    let cancel = AtomicBool::new(false);
    let mut found = find_sessions_within(dir, threads, limits, &cancel, |_, _| {})?;
    for note in &found.notes {
        eprintln!("surface-viewer: note: {note}");
    }
    if found.sessions.is_empty() && found.unreadable.is_empty() {
        anyhow::bail!(
            "{}: no session file under this folder ({} file{} looked at)",
            dir.display(),
            found.files_seen,
            if found.files_seen == 1 { "" } else { "s" }
        );
    }
    if let Some(id) = only {
        found.sessions.retain(|s| s.id == id);
        found.unreadable.clear();
        found.special.clear();
        if found.sessions.is_empty() {
            anyhow::bail!("{}: no session {id:?} under this folder", dir.display());
        }
    }
    Ok(found)
}

/// The sessions to read, largest first: the long ones start early and the workers finish
/// together.
pub fn largest_first(sessions: &[SessionEntry]) -> Vec<SessionEntry> {
    let mut jobs = sessions.to_vec();
    jobs.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.file.cmp(&b.file)));
    jobs
}

/// "path" or "path [session ID]" for a session of a database.
pub fn label(entry: &SessionEntry) -> String {
    match entry.session_arg() {
        Some(id) => format!("{} [session {id}]", entry.file.display()),
        None => entry.file.display().to_string(),
    }
}

/// One `FILE: unreadable: REASON` line of the human output.
pub fn write_unreadable(
    out: &mut impl std::io::Write,
    file: &Path,
    error: &str,
) -> anyhow::Result<()> {
    super::load::write_context(writeln!(out, "{}: unreadable: {error}", file.display()))
}

/// `n thing` or `n things`.
pub fn plural(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}
