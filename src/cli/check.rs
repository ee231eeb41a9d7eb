//! `check`: findings as text or JSON; exit 1 when any is an error.

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::json;

use super::load::{load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use crate::engine::{EraGuess, Finding, Mode, Severity, Surface, check_report};
use crate::store::Format;

/// The result of checking one file, ready to print or to aggregate.
#[derive(Clone, Debug)]
pub struct FileCheck {
    /// The file checked.
    pub file: PathBuf,
    /// Its detected format.
    pub format: Format,
    /// True when the log holds packed chunk rows.
    pub packed: bool,
    /// The session read.
    pub session: String,
    /// Number of events (packed rows expanded).
    pub events: usize,
    /// Surface or legacy mode.
    pub mode: Mode,
    /// The harness era whose rules decided the severities, and why.
    pub era: EraGuess,
    /// Every finding, in file order.
    pub findings: Vec<Finding>,
}

impl FileCheck {
    /// Number of error-level findings.
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.is_error()).count()
    }

    /// `HEAD (2026-08), JSONL packed`: the era and the storage format.
    pub fn era_and_format(&self) -> String {
        format!(
            "{}, {}{}",
            self.era.era.label(),
            self.format.label(),
            if self.packed { " packed" } else { "" }
        )
    }

    /// The one JSON document of `check --json`.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "file": self.file,
            "format": self.format,
            "session": self.session,
            "events": self.events,
            "mode": self.mode.as_str(),
            "era": {
                "id": self.era.era.id(),
                "label": self.era.era.label(),
                "reason": self.era.reason,
            },
            "findings": self.findings,
        })
    }
}

/// Reads `input` and checks it: the per-file work of `check`, for any caller.
pub fn check_file(input: &Input) -> anyhow::Result<FileCheck> {
    let loaded = load(input, false)?;
    let surface = Surface::at_end(&loaded.log);
    let report = check_report(&loaded.log, &surface);
    Ok(FileCheck {
        file: input.file.clone(),
        format: loaded.format,
        packed: !loaded.log.packed_rows.is_empty(),
        session: loaded.session.id,
        events: loaded.log.len(),
        mode: surface.mode(),
        era: report.era,
        findings: report.findings,
    })
}

/// Runs `check`.
pub fn run(input: &Input, json: bool) -> anyhow::Result<u8> {
    let checked = check_file(input)?;
    let errors = checked.errors();
    if json {
        print_json(&checked.to_json())?;
    } else {
        let mut out = std::io::stdout().lock();
        let warnings = checked.findings.len() - errors;
        write_context(writeln!(
            out,
            "{}: {} events ({}, {} mode), {} error{}, {} warning{}",
            checked.file.display(),
            checked.events,
            checked.era_and_format(),
            checked.mode.as_str(),
            errors,
            if errors == 1 { "" } else { "s" },
            warnings,
            if warnings == 1 { "" } else { "s" },
        ))?;
        write_context(writeln!(
            out,
            "  era: {} — {}",
            checked.era.era.label(),
            checked.era.reason
        ))?;
        for f in &checked.findings {
            let mut place = Vec::new();
            if let Some(s) = f.seq {
                place.push(format!("seq {s}"));
            }
            if let Some(l) = f.line {
                place.push(format!("line {l}"));
            }
            if let Some(o) = f.offset {
                place.push(format!("offset {o}"));
            }
            let severity = match f.severity {
                Severity::Error => "error  ",
                Severity::Warning => "warning",
            };
            write_context(writeln!(
                out,
                "  {severity} {:<38} {:<18} {}",
                f.rule,
                place.join(", "),
                f.message
            ))?;
        }
    }
    Ok(if errors > 0 { EXIT_FINDINGS } else { EXIT_OK })
}
