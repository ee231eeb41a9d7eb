//! `check`: findings as text or JSON; exit 1 when any is an error.

use std::io::Write as _;

use serde_json::json;

use super::load::{load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use crate::engine::{Severity, Surface, check};

/// Runs `check`.
pub fn run(input: &Input, json: bool) -> anyhow::Result<u8> {
    let loaded = load(input, false)?;
    let surface = Surface::at_end(&loaded.log);
    let findings = check(&loaded.log, &surface);
    let errors = findings.iter().filter(|f| f.is_error()).count();
    if json {
        print_json(&json!({
            "file": input.file,
            "format": loaded.format,
            "session": loaded.session.id,
            "events": loaded.log.len(),
            "mode": surface.mode().as_str(),
            "findings": findings,
        }))?;
    } else {
        let mut out = std::io::stdout().lock();
        let warnings = findings.len() - errors;
        write_context(writeln!(
            out,
            "{}: {} events ({}, {} mode), {} error{}, {} warning{}",
            input.file.display(),
            loaded.log.len(),
            loaded.format.label(),
            surface.mode().as_str(),
            errors,
            if errors == 1 { "" } else { "s" },
            warnings,
            if warnings == 1 { "" } else { "s" },
        ))?;
        for f in &findings {
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
