//! Which harness era wrote a log (upstream-format §0.2, §1.4, §2.4), told from the header's
//! fields and the shape of a few events, with the one-line reason shown to the user.
//!
//! The header `version` has been 0 since 2026-06-21 while the shapes kept changing, so apart
//! from version 1 (the ADR era) the newest evidence wins: a log a mid-July harness started and
//! a HEAD harness resumed ends in HEAD's shapes, and HEAD validated the whole log when it
//! loaded it. A header field counts only when present, never by its absence: SQLite schemas
//! before 5 have no `delegationDepth` column, and the same session must get the same findings
//! in every format. Detection reads the header, the type table and at most two events (the
//! last `turn/start` and the last message event, found from the end of the log), so it is
//! cheap enough to run on every load.

use std::fmt;

use serde::Serialize;

use super::event::EventIdx;
use super::finding::Severity;
use super::log::EventLog;
use super::turn_fields::turn_fields;

/// A harness era, oldest first (the order is used to ask "at least this era").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// E1, the ADR and the master before the surface merge (header `version` 1).
    Adr,
    /// E2, surface merged (2026-06-26): markers required, flat payloads.
    SurfaceMerge,
    /// E3, mid-July (2026-07-20): `delegationDepth`, packed rows, identified messages.
    MidJuly,
    /// E4, HEAD (2026-08-20): every rule of upstream-format §3.4 at load.
    Head,
}

impl Era {
    /// Stable id for JSON output (`adr`, `surface-merge`, `mid-july`, `head`).
    pub fn id(self) -> &'static str {
        match self {
            Era::Adr => "adr",
            Era::SurfaceMerge => "surface-merge",
            Era::MidJuly => "mid-july",
            Era::Head => "head",
        }
    }

    /// Human label with the era's month, e.g. `HEAD (2026-08)`.
    pub fn label(self) -> &'static str {
        match self {
            Era::Adr => "ADR (2026-06)",
            Era::SurfaceMerge => "surface merge (2026-06)",
            Era::MidJuly => "mid-July (2026-07)",
            Era::Head => "HEAD (2026-08)",
        }
    }

    /// The severity of a rule whose harnesses refuse a log from `first` on: an error in that
    /// era and later ones, a warning in older eras whose harness was more lenient
    /// (viewer-spec §6.17).
    pub fn severity_from(self, first: Era) -> Severity {
        if self >= first {
            Severity::Error
        } else {
            Severity::Warning
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The detected era and the evidence that decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EraGuess {
    /// The era.
    pub era: Era,
    /// One line naming the header field or event shape that told it.
    pub reason: String,
}

impl EraGuess {
    fn new(era: Era, reason: impl Into<String>) -> Self {
        EraGuess {
            era,
            reason: reason.into(),
        }
    }
}

/// Detects the era of `log` (see the module documentation).
pub fn detect_era(log: &EventLog) -> EraGuess {
    let header = log.header.as_ref();
    if header.is_some_and(|h| h.version == Some(1)) {
        return EraGuess::new(Era::Adr, "header version 1 (2026-06-15 to 06-21)");
    }
    if let Some(guess) = head_evidence(log).or_else(|| mid_july_evidence(log)) {
        return guess;
    }
    match header.and_then(|h| h.version) {
        Some(0) => EraGuess::new(
            Era::SurfaceMerge,
            "header version 0 and no later field or shape (2026-06-21 to 07-20)",
        ),
        Some(v) => EraGuess::new(
            Era::Head,
            format!("header version {v} is unknown; HEAD's rules apply"),
        ),
        None => EraGuess::new(
            Era::Head,
            "no session header and no dated event shape; HEAD's rules apply",
        ),
    }
}

/// Shapes only harnesses from August on wrote.
fn head_evidence(log: &EventLog) -> Option<EraGuess> {
    if let Some(h) = log.header.as_ref() {
        if h.agent_preset.is_some() {
            return Some(EraGuess::new(
                Era::Head,
                "header has agentPreset (from 2026-08-10)",
            ));
        }
        if h.origin.is_some() {
            return Some(EraGuess::new(
                Era::Head,
                "header has origin (from 2026-08-02)",
            ));
        }
    }
    if let Some(name) = log
        .types
        .iter()
        .map(|(_, n)| n)
        .find(|n| n.starts_with("compaction/") || *n == "compact/prune")
    {
        return Some(EraGuess::new(
            Era::Head,
            format!("{name} events (from 2026-08-06)"),
        ));
    }
    let idx = last_of(log, |t| t == "turn/start")?;
    let f = turn_fields(&log.event_json(idx));
    (f.is_object && !f.has_trigger).then(|| {
        EraGuess::new(
            Era::Head,
            format!(
                "turn/start without trigger at seq {} (from 2026-08-05)",
                log.event(idx).seq
            ),
        )
    })
}

/// Fields and shapes harnesses wrote from 2026-07-20 on.
fn mid_july_evidence(log: &EventLog) -> Option<EraGuess> {
    if let Some(depth) = log.header.as_ref().and_then(|h| h.delegation_depth) {
        return Some(EraGuess::new(
            Era::MidJuly,
            format!("header has delegationDepth {depth} (from 2026-07-20)"),
        ));
    }
    let last_message = last_of(log, |t| {
        matches!(t, "user/message" | "assistant/message" | "tool/result")
    });
    if let Some(idx) = last_message
        && turn_fields(&log.event_json(idx)).identified
    {
        return Some(EraGuess::new(
            Era::MidJuly,
            format!(
                "identified message at seq {} (from 2026-07-28)",
                log.event(idx).seq
            ),
        ));
    }
    if !log.packed_rows.is_empty() {
        return Some(EraGuess::new(
            Era::MidJuly,
            "packed chunk rows (from 2026-07-22)",
        ));
    }
    log.types
        .iter()
        .map(|(_, n)| n)
        .find(|n| matches!(*n, "session/end-seed" | "request/context"))
        .map(|name| EraGuess::new(Era::MidJuly, format!("{name} events (from 2026-07-30)")))
}

/// The last event (in log order) whose type satisfies `pred`, searched from the end. Only the
/// record array is walked; the usual log ends within a turn of such an event.
fn last_of(log: &EventLog, pred: impl Fn(&str) -> bool) -> Option<EventIdx> {
    let wanted: Vec<_> = log
        .types
        .iter()
        .filter(|(_, n)| pred(n))
        .map(|(id, _)| id)
        .collect();
    if wanted.is_empty() {
        return None;
    }
    log.indices()
        .rev()
        .find(|&i| wanted.contains(&log.event(i).kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventBatch, EventText, NewEvent, SessionHeader, SurfaceOp};

    fn log_with(header: Option<SessionHeader>, events: &[(&str, &str)]) -> EventLog {
        let mut text = Vec::new();
        let mut batch = EventBatch::default();
        for (seq, (type_name, data)) in events.iter().enumerate() {
            let json = format!(r#"{{"type":"{type_name}","seq":{seq},"data":{data}}}"#);
            let start = text.len() as u64;
            text.extend_from_slice(json.as_bytes());
            batch.push(NewEvent {
                seq: seq as u64,
                time: None,
                type_name,
                op: SurfaceOp::None,
                sources: None,
                line: 0,
                text: EventText::Line {
                    start,
                    len: json.len() as u32,
                },
                plain: false,
            });
        }
        EventLog::new(header, text, batch)
    }

    fn header(version: i64) -> SessionHeader {
        SessionHeader {
            id: "s".into(),
            version: Some(version),
            ..Default::default()
        }
    }

    const E2_START: (&str, &str) = (
        "turn/start",
        r#"{"turn":1,"trigger":{"kind":"continuation"}}"#,
    );

    #[test]
    fn eras_from_header_and_shapes() {
        let e = |h, ev: &[(&str, &str)]| detect_era(&log_with(h, ev)).era;
        assert_eq!(e(Some(header(1)), &[E2_START]), Era::Adr);
        assert_eq!(e(Some(header(0)), &[E2_START]), Era::SurfaceMerge);
        let depth = SessionHeader {
            delegation_depth: Some(0),
            ..header(0)
        };
        assert_eq!(e(Some(depth.clone()), &[E2_START]), Era::MidJuly);
        assert_eq!(
            e(Some(depth.clone()), &[("turn/start", r#"{"turn":1}"#)]),
            Era::Head
        );
        let origin = SessionHeader {
            origin: Some("subagent".into()),
            ..depth
        };
        assert_eq!(e(Some(origin), &[E2_START]), Era::Head);
        let identified = [
            E2_START,
            (
                "user/message",
                r#"{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"}"#,
            ),
        ];
        assert_eq!(e(Some(header(0)), &identified), Era::MidJuly);
        assert_eq!(
            e(Some(header(0)), &[("turn/start", r#"{"turn":1}"#)]),
            Era::Head
        );
        assert_eq!(
            e(None, &[E2_START, ("compaction/start", r#"{"turn":1}"#)]),
            Era::Head
        );
        assert_eq!(e(None, &[E2_START]), Era::Head);
    }

    #[test]
    fn newest_evidence_wins_and_reason_names_it() {
        // An old log resumed by a HEAD harness: the last turn/start has no trigger.
        let depth = SessionHeader {
            delegation_depth: Some(0),
            ..header(0)
        };
        let g = detect_era(&log_with(
            Some(depth),
            &[
                E2_START,
                ("turn/end", r#"{"turn":1}"#),
                ("turn/start", r#"{"turn":2}"#),
            ],
        ));
        assert_eq!(g.era, Era::Head);
        assert!(g.reason.contains("seq 2"), "{}", g.reason);
    }

    #[test]
    fn severity_by_era() {
        assert_eq!(Era::Head.severity_from(Era::Head), Severity::Error);
        assert_eq!(Era::MidJuly.severity_from(Era::Head), Severity::Warning);
        assert_eq!(
            Era::MidJuly.severity_from(Era::SurfaceMerge),
            Severity::Error
        );
        assert_eq!(Era::Adr.severity_from(Era::SurfaceMerge), Severity::Warning);
    }
}
