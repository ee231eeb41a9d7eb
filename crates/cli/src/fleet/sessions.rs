//! Every session under a folder through one per-session report, in parallel (`check DIR`'s
//! discovery and worker pool): one row per session — its report, or the error that kept it
//! from being read — plus the files the discovery could not read and the special files it
//! skipped (a FIFO, a socket, a device: never opened), sorted by path. A file truncated while
//! it is mapped is that session's error (`OnTruncate::Report`); the others finish.

use std::io;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Value, json};

use super::progress::Progress;
use crate::Input;
use crate::csv_out::{Cell, CsvWriter};
use crate::dir::{discover, each_found, entry_input, threads};
use crate::load::{load_quietly, warn_skipped};
use surface_engine::{EventLog, Skipped, skipped_warning};
use surface_store::{OnTruncate, SessionEntry, StoreError};

/// What became of one session.
#[derive(Debug)]
pub enum Outcome<R> {
    /// Its report.
    Done(R),
    /// It could not be read (or reported on): why.
    Unreadable(String),
    /// A special file, skipped without opening it: what it is.
    Skipped(String),
}

/// One row of a folder report.
#[derive(Debug)]
pub struct Row<R> {
    /// The session file.
    pub file: PathBuf,
    /// The session, in a file of several (SQLite).
    pub session: Option<String>,
    /// Its report or error.
    pub outcome: Outcome<R>,
    /// The records its reader skipped (said on stderr as it was read).
    pub skipped: Vec<Skipped>,
}

impl<R> Row<R> {
    /// The report, when the session was read.
    pub fn done(&self) -> Option<&R> {
        match &self.outcome {
            Outcome::Done(r) => Some(r),
            _ => None,
        }
    }

    /// The error, when it was not.
    pub fn error(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Done(_) => None,
            Outcome::Unreadable(e) | Outcome::Skipped(e) => Some(e),
        }
    }

    /// `FILE: unreadable: ERROR` (or `skipped`) and a newline; empty for a session read.
    pub fn error_line(&self) -> String {
        match &self.outcome {
            Outcome::Done(_) => String::new(),
            Outcome::Unreadable(e) => format!("{}: unreadable: {e}\n", self.label()),
            Outcome::Skipped(e) => format!("{}: skipped: {e}\n", self.label()),
        }
    }

    /// `path` or `path [session ID]`.
    pub fn label(&self) -> String {
        match &self.session {
            Some(id) => format!("{} [session {id}]", self.file.display()),
            None => self.file.display().to_string(),
        }
    }
}

/// The JSON of a row that has no report: its file, session and error.
#[derive(Serialize)]
pub struct ErrorRow<'a> {
    /// The session file.
    pub file: &'a PathBuf,
    /// The session, in a file of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    /// Why it has no report.
    pub error: &'a str,
    /// A special file skipped without opening it.
    pub skipped: bool,
}

impl<'a, R> From<&'a Row<R>> for ErrorRow<'a> {
    fn from(row: &'a Row<R>) -> Self {
        ErrorRow {
            file: &row.file,
            session: row.session.as_deref(),
            error: row.error().unwrap_or(""),
            skipped: matches!(row.outcome, Outcome::Skipped(_)),
        }
    }
}

/// A folder's rows and how they came out.
pub struct Fleet<R> {
    /// One per session, unreadable file and special file, sorted by path and session.
    pub rows: Vec<Row<R>>,
    /// What the walk skipped and why.
    pub notes: Vec<String>,
}

impl<R> Fleet<R> {
    /// Sessions and files that could not be read (special files not counted: `check DIR`
    /// skips them with a note, and so do the exit codes here).
    pub fn unreadable(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Unreadable(_)))
            .count()
    }

    /// Special files skipped.
    pub fn skipped(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Skipped(_)))
            .count()
    }
}

impl<R> Fleet<R> {
    /// The folder's `--csv` under `columns`: every row starts with the file, the session and
    /// the error; a session that was read goes on with `cells` of its report, one that was
    /// not leaves the rest empty.
    pub fn csv(&self, columns: &[&str], cells: fn(&R) -> Vec<Cell<'_>>) -> io::Result<Vec<u8>> {
        let mut out = CsvWriter::new(Vec::new(), columns)?;
        for r in &self.rows {
            let file = r.file.display().to_string();
            let mut row: Vec<Cell<'_>> = vec![
                file.as_str().into(),
                r.session.as_deref().into(),
                r.error().into(),
            ];
            if let Some(report) = r.done() {
                row.extend(cells(report));
            }
            row.resize(columns.len(), Cell::Empty);
            out.row(&row)?;
        }
        Ok(out.into_inner())
    }
}

impl<R: Serialize> Fleet<R> {
    /// The `sessions` array of the folder's `--json`: each done row as `{file, session, …}`
    /// with the per-file command's own fields, each other row as its [`ErrorRow`].
    pub fn sessions_json(&self) -> anyhow::Result<Vec<Value>> {
        self.rows
            .iter()
            .map(|r| {
                Ok(match r.done() {
                    Some(fields) => {
                        let mut v = json!({"file": r.file});
                        if let Some(id) = &r.session {
                            v["session"] = json!(id);
                        }
                        if let (Value::Object(o), Value::Object(fields)) =
                            (&mut v, serde_json::to_value(fields)?)
                        {
                            o.extend(fields);
                        }
                        v["skipped"] = json!(r.skipped);
                        v
                    }
                    None => serde_json::to_value(ErrorRow::from(r))?,
                })
            })
            .collect()
    }
}

/// Runs `work` on every session under `input.file` (only `--session` when given) on `jobs`
/// workers, within `input`'s read limits, with a progress bar labelled `label` on a terminal.
/// `Err` when the folder cannot be read or holds no session file.
pub fn each_session<R: Send>(
    input: &Input,
    jobs: Option<usize>,
    label: &'static str,
    work: impl Fn(&EventLog) -> anyhow::Result<R> + Sync,
) -> anyhow::Result<Fleet<R>> {
    let threads = threads(jobs);
    let limits = input.limits();
    let found = discover(&input.file, input.session.as_deref(), &limits, threads)?;
    let mut rows: Vec<Row<R>> = found
        .unreadable
        .iter()
        .map(|u| Row {
            file: u.file.clone(),
            session: None,
            outcome: Outcome::Unreadable(u.error.clone()),
            skipped: Vec::new(),
        })
        .collect();
    if input.session.is_none() {
        rows.extend(found.special.iter().map(|u| Row {
            file: u.file.clone(),
            session: None,
            outcome: Outcome::Skipped(u.error.clone()),
            skipped: Vec::new(),
        }));
    }
    let mut progress = Progress::new(label, found.sessions.len());
    each_found(
        &found,
        threads,
        |entry: SessionEntry| {
            let one = entry_input(input, &entry);
            row_of(one, &work)
        },
        |row| {
            if let Some(line) = skipped_warning(&row.file.display().to_string(), &row.skipped) {
                progress.say(&format!("surface-viewer: warning: {line}"));
            }
            progress.tick();
            rows.push(row);
            Ok(())
        },
    )?;
    progress.finish();
    rows.sort_by(|a, b| (&a.file, &a.session).cmp(&(&b.file, &b.session)));
    Ok(Fleet {
        rows,
        notes: found.notes,
    })
}

/// Reads one session and runs `work` on it, with what its reader skipped; a file that shrank
/// under its mapping meanwhile is an error, not a report on zeros.
fn report_on<R>(
    input: &Input,
    work: &impl Fn(&EventLog) -> anyhow::Result<R>,
) -> anyhow::Result<(R, Vec<Skipped>)> {
    let loaded = load_quietly(input, false, OnTruncate::Report)?;
    let report = work(&loaded.log)?;
    if loaded.log.text_lost() {
        return Err(StoreError::Shrank {
            path: input.file.clone(),
        }
        .into());
    }
    Ok((report, loaded.skipped))
}

/// The row of one session: its report and what was skipped, or the error that kept it from
/// being read.
fn row_of<R>(input: Input, work: &impl Fn(&EventLog) -> anyhow::Result<R>) -> Row<R> {
    let (outcome, skipped) = match report_on(&input, work) {
        Ok((r, skipped)) => (Outcome::Done(r), skipped),
        Err(e) => (Outcome::Unreadable(format!("{e:#}")), Vec::new()),
    };
    Row {
        file: input.file,
        session: input.session,
        outcome,
        skipped,
    }
}

/// The row of one session file given on its own (a PATH of `tune` that is not a folder):
/// its report, or the error that kept it from being read.
pub fn one_session<R>(input: &Input, work: impl Fn(&EventLog) -> anyhow::Result<R>) -> Row<R> {
    let row = row_of(input.clone(), &work);
    warn_skipped(&row.file, &row.skipped);
    row
}
