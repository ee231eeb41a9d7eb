//! The full figures of one session, read completely: events, turns, compactions (replace
//! ops), errors and warnings of `check`, the records the reader skipped, the latest title and
//! the last event time.

use std::path::Path;
use surface_engine::EventType;

use serde::Serialize;

use crate::{Options, ReadLimits, SessionInfo, StoreError, open};
use surface_engine::{EventLog, Finding, OpSlot, Skipped, Surface, check, skipped};

/// What reading a whole session tells about it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SessionFigures {
    /// Events (packed rows expanded).
    pub events: u64,
    /// `turn/start` events.
    pub turns: u64,
    /// Events carrying a replace op (compactions and prunes).
    pub compactions: u64,
    /// Error-level findings of `check`.
    pub errors: u64,
    /// Warnings of `check`.
    pub warnings: u64,
    /// The records the reader skipped unread (a line past the per-event limit, one that is not
    /// an event, a corrupt frame).
    pub skipped: Vec<Skipped>,
    /// The last `session/title` event's title.
    pub title: Option<String>,
    /// The last event's time, epoch milliseconds.
    pub last_event: Option<i64>,
    /// `"surface"` or `"legacy"`.
    pub mode: &'static str,
}

/// Reads `file` (the session `session` of a SQLite file) and computes its figures (the
/// default [`ReadLimits`]).
pub fn read_figures(file: &Path, session: Option<&str>) -> Result<SessionFigures, StoreError> {
    read_figures_within(file, session, &ReadLimits::default())
}

/// [`read_figures`] holding the file to `limits`.
pub fn read_figures_within(
    file: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
) -> Result<SessionFigures, StoreError> {
    read_session_figures(file, session, limits).map(|(_, figures)| figures)
}

/// [`read_figures_within`] with the session it read (id, header fields, event count).
pub fn read_session_figures(
    file: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
) -> Result<(SessionInfo, SessionFigures), StoreError> {
    let options = Options {
        session,
        limits: *limits,
        ..Options::default()
    };
    let opened = open(file, &options)?;
    let surface = Surface::at_end(&opened.log);
    let findings = check(&opened.log, &surface);
    let figures = figures_of(&opened.log, &surface, &findings);
    Ok((opened.session, figures))
}

/// The figures of a log already read and checked.
pub fn figures_of(log: &EventLog, surface: &Surface, findings: &[Finding]) -> SessionFigures {
    let turn_start = log.types.id_of(EventType::TurnStart);
    let title_type = log.types.id_of(EventType::SessionTitle);
    let mut turns = 0;
    let mut compactions = 0;
    for e in &log.events {
        if Some(e.kind) == turn_start {
            turns += 1;
        }
        if matches!(e.op(), OpSlot::Replace) {
            compactions += 1;
        }
    }
    let title = title_type.and_then(|t| {
        log.indices()
            .rev()
            .filter(|&i| log.event(i).kind == t)
            .find_map(|i| {
                log.data_value(i)
                    .get("title")
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            })
    });
    let errors = findings.iter().filter(|f| f.is_error()).count() as u64;
    SessionFigures {
        events: log.len() as u64,
        turns,
        compactions,
        errors,
        warnings: findings.len() as u64 - errors,
        skipped: skipped(log),
        title,
        last_event: log.last_time(),
        mode: surface.mode().as_str(),
    }
}
