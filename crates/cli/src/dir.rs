//! A folder as the input of `check DIR`, `sessions DIR`, `policy DIR` and `cost DIR`: every
//! session found under it, notes about what was skipped on stderr, and exit 2 when nothing is
//! there to read.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use surface_store::{Discovery, ReadLimits, SessionEntry, default_threads, for_each_parallel};

use crate::Input;

/// Worker threads for `--jobs` (default: one per core).
pub fn threads(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(default_threads).max(1)
}

/// Finds the sessions under `dir` (only `only` when given), no file decoded past `limits`,
/// printing the walk's notes on stderr. `Err` when the folder cannot be read or holds no
/// session file at all (the notes are then in its message).
pub fn discover(
    dir: &Path,
    only: Option<&str>,
    limits: &ReadLimits,
    threads: usize,
) -> anyhow::Result<Discovery> {
    let found = surface_reports::folder::discover(dir, only, limits, threads, None)?;
    for note in &found.notes {
        eprintln!("surface-viewer: note: {note}");
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

/// Runs `work` on every session `found` holds on `threads` workers, largest first, and hands
/// each result to `take` on this thread as it finishes (in completion order). The first `Err`
/// of `take` (a write that failed) stops the rest: sessions not started are dropped, results
/// still arriving are not taken, and that error is returned.
pub fn each_found<T: Send>(
    found: &Discovery,
    threads: usize,
    work: impl Fn(SessionEntry) -> T + Sync,
    mut take: impl FnMut(T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let cancel = AtomicBool::new(false);
    let mut failed: Option<anyhow::Error> = None;
    for_each_parallel(
        largest_first(&found.sessions),
        threads,
        &cancel,
        work,
        |t| {
            if failed.is_some() {
                return;
            }
            if let Err(e) = take(t) {
                failed = Some(e);
                cancel.store(true, Ordering::Relaxed);
            }
        },
    );
    failed.map_or(Ok(()), Err)
}

/// The input of one session found under the folder `folder` names, read within its limits.
pub fn entry_input(folder: &Input, entry: &SessionEntry) -> Input {
    Input {
        file: entry.file.clone(),
        session: entry.session_arg().map(str::to_string),
        max_bytes: folder.max_bytes,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use surface_store::Format;

    fn found(sizes: &[u64]) -> Discovery {
        let sessions = sizes
            .iter()
            .map(|&size| SessionEntry {
                file: format!("/r/{size}.jsonl").into(),
                format: Format::Jsonl,
                packed: false,
                size,
                modified: None,
                id: size.to_string(),
                in_database: size == 7,
                cwd: None,
                project: "p".into(),
                title: None,
                created: None,
                last_event: None,
                parent: None,
                seed_length: None,
                origin: None,
                events: None,
            })
            .collect();
        Discovery {
            sessions,
            ..Discovery::default()
        }
    }

    /// `each_found` on one worker over sessions of `sizes`, its `take` failing at `fail_at`:
    /// the outcome and the sizes taken, in order.
    fn taken(sizes: &[u64], fail_at: Option<u64>) -> (Result<(), String>, Vec<u64>) {
        let mut taken = Vec::new();
        let done = each_found(
            &found(sizes),
            1,
            |e| e.size,
            |size| {
                taken.push(size);
                if Some(size) == fail_at {
                    anyhow::bail!("stdout closed at {size}");
                }
                Ok(())
            },
        );
        (done.map_err(|e| e.to_string()), taken)
    }

    #[test]
    fn each_found_takes_every_result_largest_first_on_one_worker() {
        assert_eq!(taken(&[3, 9, 7, 1], None), (Ok(()), vec![9, 7, 3, 1]));
    }

    #[test]
    fn the_first_failed_take_stops_the_rest_and_is_the_error() {
        assert_eq!(
            taken(&[3, 9, 7, 1], Some(7)),
            (Err("stdout closed at 7".into()), vec![9, 7])
        );
    }

    #[test]
    fn an_entry_input_opens_that_session_within_the_folders_limit() {
        let folder = Input {
            file: "/r".into(),
            session: None,
            max_bytes: Some(512),
        };
        let sessions = found(&[7, 3]).sessions;
        let one = entry_input(&folder, &sessions[0]);
        assert_eq!(
            (one.file, one.session, one.max_bytes),
            ("/r/7.jsonl".into(), Some("7".to_string()), Some(512))
        );
        assert_eq!(entry_input(&folder, &sessions[1]).session, None);
    }
}
