//! Opening the input of a command: store + optional repair closers + the surface at a cursor,
//! and `check`'s findings on two cores (shared with the desktop viewer's loader). Commands
//! map a large JSONL log instead of copying it (`store::open` with `Reading::Map`, once
//! `main` installed the SIGBUS guard), as the desktop viewer does. Every file is read within
//! the input's `--max-bytes`. What the reader skipped is said once on stderr, naming the file,
//! the line and the limit (docs/check.md#what-a-command-did-not-read), and kept for `--json`.

use anyhow::Context as _;

use super::Input;
use surface_engine::{
    EventLog, Skipped, Surface, apply_closers, closers, skipped, skipped_warning,
};
use surface_store::{self as store, Format, OnTruncate, SessionInfo};

/// A log ready for a command.
pub struct Loaded {
    /// The log (with repair closers appended when asked).
    pub log: EventLog,
    /// Detected format.
    pub format: Format,
    /// The session read.
    pub session: SessionInfo,
    /// Number of closers appended by `--repair`.
    pub repaired: usize,
    /// The records the reader skipped (every `--json` document's `"skipped"`).
    pub skipped: Vec<Skipped>,
}

/// Opens `input`, appending repair closers when `repair` is set. A large JSONL file is mapped,
/// not copied: a command reads its log once and exits, and if another program truncates the
/// file meanwhile the process names it and exits 2. Repair closers are synthesized events
/// (`EventLog::synthesized`), so the mapped text stays as it is.
pub fn load(input: &Input, repair: bool) -> anyhow::Result<Loaded> {
    load_mapped(input, repair, OnTruncate::Exit)
}

/// [`load`], with what a truncation of the mapped file does (`check DIR`: report that file,
/// [`OnTruncate::Report`], and check the others).
pub fn load_mapped(input: &Input, repair: bool, on_truncate: OnTruncate) -> anyhow::Result<Loaded> {
    let loaded = load_quietly(input, repair, on_truncate)?;
    warn_skipped(&input.file, &loaded.skipped);
    Ok(loaded)
}

/// [`load_mapped`] without the warning: for `check`, whose findings name every skipped record.
pub fn load_quietly(
    input: &Input,
    repair: bool,
    on_truncate: OnTruncate,
) -> anyhow::Result<Loaded> {
    let options = store::Options {
        session: input.session.as_deref(),
        progress: None,
        limits: input.limits(),
        reading: store::Reading::Map(on_truncate),
    };
    let opened = store::open(&input.file, &options)?;
    let mut log = opened.log;
    let skipped = skipped(&log);
    let mut repaired = 0;
    if repair {
        let c = closers(&log);
        repaired = c.len();
        apply_closers(&mut log, &c);
    }
    Ok(Loaded {
        log,
        format: opened.format,
        session: opened.session,
        repaired,
        skipped,
    })
}

/// Says on stderr, in one line, what the reader of `file` skipped (nothing when it skipped
/// nothing). Every command that reads a log calls it, so none passes over unread content in
/// silence.
pub fn warn_skipped(file: &std::path::Path, skipped: &[Skipped]) {
    if let Some(line) = skipped_warning(&file.display().to_string(), skipped) {
        eprintln!("surface-viewer: warning: {line}");
    }
}

impl Loaded {
    /// The log as surface-reports builds a document from it, the file named `file`.
    pub fn source<'a>(&'a self, file: &'a str) -> surface_reports::Source<'a> {
        surface_reports::Source {
            file,
            log: &self.log,
            format: self.format,
            session: &self.session,
            repaired: self.repaired,
            skipped: &self.skipped,
        }
    }

    /// The surface at `at` (or the end).
    pub fn surface_at(&self, at: Option<u64>) -> Surface {
        Surface::at_seq(&self.log, at)
    }
}

/// "at the end" or "at seq N", for human output.
pub fn describe_cursor(at: Option<u64>) -> String {
    at.map_or_else(|| "at the end".to_string(), |s| format!("at seq {s}"))
}

/// Context for errors while writing output.
pub fn write_context<T>(r: std::io::Result<T>) -> anyhow::Result<T> {
    r.context("cannot write to stdout")
}
