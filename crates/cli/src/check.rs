//! `check`: findings as text or JSON; exit 1 when any is an error. [`check_file`] is the
//! per-file check that `check DIR` (`check_dir.rs`) runs on every session it finds.

use std::io::Write;

use super::load::{load_quietly, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use surface_engine::{EraGuess, Finding, Severity};
use surface_passes::check_report_of;
use surface_store::{Format, OnTruncate, SessionInfo, StoreError};

/// Runs `check`.
pub fn run(input: &Input, json: bool) -> anyhow::Result<u8> {
    let checked = check_file(input, OnTruncate::Exit)?;
    if json {
        print_json(&checked.json())?;
    } else {
        let mut out = std::io::stdout().lock();
        checked.write_summary(&mut out)?;
        checked.write_era(&mut out)?;
        checked.write_findings(&mut out)?;
    }
    Ok(if checked.errors() > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// One session checked (the log itself is not kept).
pub struct Checked {
    /// The file as named.
    pub file: std::path::PathBuf,
    /// Detected format.
    pub format: Format,
    /// True when the log holds packed chunk rows.
    pub packed: bool,
    /// The session read.
    pub session: SessionInfo,
    /// True when the session was picked by `--session` (the summary names it).
    pub session_named: bool,
    /// Number of events.
    pub events: usize,
    /// `"surface"` or `"legacy"`.
    pub mode: &'static str,
    /// The harness era whose rules decided the severities, and why.
    pub era: EraGuess,
    /// Every finding.
    pub findings: Vec<Finding>,
}

/// Reads and checks one session. `on_truncate` says what a file truncated while it is mapped
/// does: end the process ([`OnTruncate::Exit`], one file) or be this session's error
/// ([`OnTruncate::Report`], `check DIR`: the other sessions still finish).
pub fn check_file(input: &Input, on_truncate: OnTruncate) -> anyhow::Result<Checked> {
    let loaded = load_quietly(input, false, on_truncate)?;
    let (report, surface) = check_report_of(&loaded.log);
    if loaded.log.text_lost() {
        // What the checks read after the truncation was zeros: not a finding of the log.
        return Err(StoreError::Shrank {
            path: input.file.clone(),
        }
        .into());
    }
    Ok(Checked {
        file: input.file.clone(),
        format: loaded.format,
        packed: !loaded.log.packed_rows.is_empty(),
        session: loaded.session,
        session_named: input.session.is_some(),
        events: loaded.log.len(),
        mode: surface.mode().as_str(),
        era: report.era,
        findings: report.findings,
    })
}

impl Checked {
    /// Error-level findings.
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.is_error()).count()
    }

    /// Warnings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
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

    /// The `--json` document (surface-reports builds it).
    pub fn json(&self) -> serde_json::Value {
        let file = self.file.display().to_string();
        let checked = surface_reports::check::CheckedFile {
            file: &file,
            format: self.format,
            session: &self.session.id,
            events: self.events,
        };
        surface_reports::check::document(checked, self.mode, &self.era, &self.findings)
    }

    /// The summary line.
    pub fn write_summary(&self, out: &mut impl Write) -> anyhow::Result<()> {
        let (errors, warnings) = (self.errors(), self.warnings());
        let session = if self.session_named {
            format!(" [session {}]", self.session.id)
        } else {
            String::new()
        };
        write_context(writeln!(
            out,
            "{}{session}: {} events ({}, {} mode), {} error{}, {} warning{}",
            self.file.display(),
            self.events,
            self.era_and_format(),
            self.mode,
            errors,
            if errors == 1 { "" } else { "s" },
            warnings,
            if warnings == 1 { "" } else { "s" },
        ))
    }

    /// The era line: the eras that could have written the log, whose rules decided the
    /// severities, and what told it.
    pub fn write_era(&self, out: &mut impl Write) -> anyhow::Result<()> {
        write_context(writeln!(
            out,
            "  era: {} — {}",
            self.era.span(),
            self.era.reason
        ))
    }

    /// One line per finding.
    pub fn write_findings(&self, out: &mut impl Write) -> anyhow::Result<()> {
        for f in &self.findings {
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
        Ok(())
    }
}
