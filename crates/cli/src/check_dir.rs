//! `check DIR`: every session under a folder checked in parallel with the per-file check of
//! `check.rs`. Human output streams one summary line per session as it finishes (with the
//! findings of sessions that have errors), then a totals line; `--json` is one document
//! sorted by path. Exit 1 when any session has an error or a session file is unreadable, 2
//! only when nothing could be read. Each file has its own outcome: one truncated while it is
//! mapped is that session's error (`OnTruncate::Report`), and the others finish.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::check::{Checked, check_file};
use super::dir::{discover, each_found, entry_input, label, plural, threads, write_unreadable};
use super::load::write_context;
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, Input, print_json};
use surface_store::{OnTruncate, SessionEntry};

/// The totals line and `"totals"` object.
#[derive(Debug, Default, Serialize)]
struct Totals {
    sessions: usize,
    files: usize,
    events: usize,
    errors: usize,
    warnings: usize,
    sessions_with_errors: usize,
    sessions_with_warnings: usize,
    unreadable: usize,
}

impl Totals {
    fn add(&mut self, c: &Checked) {
        let (e, w) = (c.errors(), c.warnings());
        self.sessions += 1;
        self.events += c.events;
        self.errors += e;
        self.warnings += w;
        self.sessions_with_errors += usize::from(e > 0);
        self.sessions_with_warnings += usize::from(w > 0);
    }
}

/// A session file or session that could not be read.
#[derive(Debug, Serialize)]
struct Unreadable {
    file: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<String>,
    error: String,
}

/// Runs `check DIR`.
pub fn run(input: &Input, json: bool, jobs: Option<usize>) -> anyhow::Result<u8> {
    let dir = &input.file;
    let threads = threads(jobs);
    let limits = input.limits();
    let found = discover(dir, input.session.as_deref(), &limits, threads)?;
    let mut totals = Totals {
        files: found
            .sessions
            .iter()
            .map(|s| &s.file)
            .chain(found.unreadable.iter().map(|u| &u.file))
            .collect::<std::collections::HashSet<_>>()
            .len(),
        ..Totals::default()
    };
    let mut unreadable: Vec<Unreadable> = found
        .unreadable
        .iter()
        .map(|u| Unreadable {
            file: u.file.clone(),
            session: None,
            error: u.error.clone(),
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if !json {
        for u in &unreadable {
            write_unreadable(&mut out, &u.file, &u.error)?;
        }
    }
    let mut checked: Vec<Checked> = Vec::new();
    each_found(
        &found,
        threads,
        |entry: SessionEntry| {
            let result = check_file(&entry_input(input, &entry), OnTruncate::Report);
            (entry, result)
        },
        |(entry, result)| match result {
            Ok(c) => {
                totals.add(&c);
                let shown = if json {
                    Ok(())
                } else {
                    c.write_summary(&mut out).and_then(|()| {
                        if c.errors() > 0 {
                            c.write_findings(&mut out)
                        } else {
                            Ok(())
                        }
                    })
                };
                if json {
                    checked.push(c);
                }
                shown
            }
            Err(e) => {
                let u = Unreadable {
                    file: entry.file.clone(),
                    session: entry.session_arg().map(str::to_string),
                    error: format!("{e:#}"),
                };
                let shown = if json {
                    Ok(())
                } else {
                    write_context(writeln!(out, "{}: unreadable: {}", label(&entry), u.error))
                };
                unreadable.push(u);
                shown
            }
        },
    )?;
    totals.unreadable = unreadable.len();
    if json {
        print_json(&document(dir, checked, unreadable, &totals, &found.notes))?;
    } else {
        write_context(writeln!(out, "{}", totals_line(dir, &totals)))?;
    }
    Ok(if totals.sessions == 0 {
        EXIT_UNREADABLE
    } else if totals.errors > 0 || totals.unreadable > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// The `--json` document: the sessions checked and the unreadable ones, by path, and the totals.
fn document(
    dir: &Path,
    mut checked: Vec<Checked>,
    mut unreadable: Vec<Unreadable>,
    totals: &Totals,
    notes: &[String],
) -> serde_json::Value {
    checked.sort_by(|a, b| (&a.file, &a.session.id).cmp(&(&b.file, &b.session.id)));
    unreadable.sort_by(|a, b| (&a.file, &a.session).cmp(&(&b.file, &b.session)));
    let sessions: Vec<serde_json::Value> = checked
        .iter()
        .map(|c| {
            let mut v = c.json();
            v["errors"] = c.errors().into();
            v["warnings"] = c.warnings().into();
            v
        })
        .collect();
    serde_json::json!({
        "root": dir,
        "sessions": sessions,
        "unreadable": unreadable,
        "totals": totals,
        "notes": notes,
    })
}

/// "N sessions checked in M files under DIR: …; K with errors (…), …".
fn totals_line(dir: &Path, totals: &Totals) -> String {
    format!(
        "{} checked in {} under {}: {}; {} with errors ({}), {} with warnings ({}){}",
        plural(totals.sessions, "session"),
        plural(totals.files, "file"),
        dir.display(),
        plural(totals.events, "event"),
        totals.sessions_with_errors,
        plural(totals.errors, "error"),
        totals.sessions_with_warnings,
        plural(totals.warnings, "warning"),
        if totals.unreadable > 0 {
            format!("; {} unreadable", totals.unreadable)
        } else {
            String::new()
        }
    )
}
