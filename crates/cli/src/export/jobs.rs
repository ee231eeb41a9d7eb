//! What `export PATH...` reads: every session of every PATH — a folder is walked as `check
//! DIR` walks it (`dir.rs`: special files skipped with a note), a file is one session (every
//! session of a SQLite store) — each once, and the files that cannot be read, which become rows
//! of `sessions` with their error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::bail;
use surface_store::{Format, ReadLimits, detect_file, list_sessions_within};

use crate::dir::{discover, largest_first};

/// One session to export.
#[derive(Clone, Debug)]
pub struct Job {
    /// The file.
    pub file: PathBuf,
    /// The `--session` that picks it in a SQLite store holding several.
    pub session: Option<String>,
    /// The id the cheap pass read, for a file that then fails to load.
    pub id: Option<String>,
}

/// A file that cannot be read at all.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// The file.
    pub file: PathBuf,
    /// Why, in one sentence.
    pub error: String,
}

/// Everything to export.
#[derive(Debug, Default)]
pub struct Jobs {
    /// The sessions, largest first.
    pub jobs: Vec<Job>,
    /// The files that cannot be read.
    pub unreadable: Vec<Unreadable>,
}

/// The sessions of `paths`. `Err` when a path does not exist, or a folder cannot be read or
/// holds no session file.
pub fn jobs_of(paths: &[PathBuf], limits: &ReadLimits, threads: usize) -> anyhow::Result<Jobs> {
    let mut out = Jobs::default();
    let mut seen: HashSet<(PathBuf, Option<String>)> = HashSet::new();
    let mut sized: Vec<(u64, Job)> = Vec::new();
    for path in paths {
        if std::fs::symlink_metadata(path).is_err() && std::fs::metadata(path).is_err() {
            bail!("{}: no such file or folder", path.display());
        }
        if path.is_dir() {
            let found = discover(path, None, limits, threads)?;
            for entry in largest_first(&found.sessions) {
                let job = Job {
                    file: entry.file.clone(),
                    session: entry.session_arg().map(str::to_string),
                    id: Some(entry.id.clone()).filter(|id| !id.is_empty()),
                };
                if seen.insert(identity(&job)) {
                    sized.push((entry.size, job));
                }
            }
            out.unreadable
                .extend(found.unreadable.into_iter().map(|u| Unreadable {
                    file: u.file,
                    error: u.error,
                }));
        } else {
            file_jobs(path, limits, &mut seen, &mut sized, &mut out.unreadable);
        }
    }
    sized.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.file.cmp(&b.1.file)));
    out.jobs = sized.into_iter().map(|(_, j)| j).collect();
    Ok(out)
}

/// The sessions of one named file: one, or each of a SQLite store's.
fn file_jobs(
    path: &Path,
    limits: &ReadLimits,
    seen: &mut HashSet<(PathBuf, Option<String>)>,
    sized: &mut Vec<(u64, Job)>,
    unreadable: &mut Vec<Unreadable>,
) {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let sessions = match detect_file(path) {
        Err(e) => {
            unreadable.push(Unreadable {
                file: path.to_path_buf(),
                error: e.to_string(),
            });
            return;
        }
        Ok(Format::Sqlite) => match list_sessions_within(path, limits) {
            Ok(list) if list.len() > 1 => list
                .into_iter()
                .map(|s| (Some(s.id.clone()), Some(s.id)))
                .collect(),
            Ok(list) => vec![(None, list.into_iter().next().map(|s| s.id))],
            Err(e) => {
                unreadable.push(Unreadable {
                    file: path.to_path_buf(),
                    error: e.to_string(),
                });
                return;
            }
        },
        Ok(_) => vec![(None, None)],
    };
    for (session, id) in sessions {
        let job = Job {
            file: path.to_path_buf(),
            session,
            id: id.filter(|id| !id.is_empty()),
        };
        if seen.insert(identity(&job)) {
            sized.push((size, job));
        }
    }
}

/// A session's identity: its file, however it was named, and its session in a store.
fn identity(job: &Job) -> (PathBuf, Option<String>) {
    let file = std::fs::canonicalize(&job.file).unwrap_or_else(|_| job.file.clone());
    (file, job.session.clone())
}
