//! `check`'s document: the file, its format and session, the event count, the mode, the era
//! whose rules decided the severities, and every finding.

use std::path::PathBuf;

use serde_json::{Value, json};
use surface_engine::{EraGuess, Finding};
use surface_passes::check_report_of;
use surface_store::StoreError;

use crate::{ReportError, Source};

/// One session checked: what the document and a summary line read (the log is not kept).
pub struct Checked {
    /// The mode the surface was built in, `"surface"` or `"legacy"`.
    pub mode: &'static str,
    /// The era and why.
    pub era: EraGuess,
    /// Every finding.
    pub findings: Vec<Finding>,
}

impl Checked {
    /// Error-level findings.
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.is_error()).count()
    }
}

/// Checks `source`'s log on two cores. A mapped file truncated meanwhile is an error: what
/// the checks read after the truncation was zeros, not a finding of the log.
pub fn checked(source: &Source<'_>) -> Result<Checked, ReportError> {
    let (report, surface) = check_report_of(source.log);
    if source.log.text_lost() {
        return Err(StoreError::Shrank {
            path: PathBuf::from(source.file),
        }
        .into());
    }
    Ok(Checked {
        mode: surface.mode().as_str(),
        era: report.era,
        findings: report.findings,
    })
}

/// What the check document names of its file: the file as named, its format, the session,
/// the event count.
#[derive(Clone, Copy)]
pub struct CheckedFile<'a> {
    /// The file as named.
    pub file: &'a str,
    /// Its format.
    pub format: surface_store::Format,
    /// The session id.
    pub session: &'a str,
    /// Its events.
    pub events: usize,
}

/// The `--json` document of a check of `file`: the surface's `mode`, the era and the findings.
pub fn document(file: CheckedFile<'_>, mode: &str, era: &EraGuess, findings: &[Finding]) -> Value {
    json!({
        "file": file.file,
        "format": file.format,
        "session": file.session,
        "events": file.events,
        "mode": mode,
        "era": {
            "id": era.era.id(),
            "label": era.era.label(),
            "reason": era.reason,
            "at_least": era.at_least.id(),
            "judged_as": era.era.id(),
        },
        "findings": findings,
    })
}

impl<'a> CheckedFile<'a> {
    /// The file of `source`.
    pub fn of(source: &Source<'a>) -> Self {
        CheckedFile {
            file: source.file,
            format: source.format,
            session: &source.session.id,
            events: source.log.len(),
        }
    }
}
