//! The evidence that sets an upper bound on a log's era: something in it that the HEAD harness
//! could not have written nor loaded, so an older harness wrote it
//! (docs/parity.md#evidence-that-sets-an-upper-bound). Without such evidence a log is judged
//! by HEAD's rules, whatever its lower bound.
//!
//! Only what HEAD refuses counts here. The older shapes HEAD upgrades in memory (a `turn/start`
//! with `trigger`, a flat `user/message` or `tool/result`, a flat `assistant/message` with
//! `provenance`, `steering/message`) do not: a HEAD harness resumes such a log, validating all
//! of it by HEAD's rules. Nor does a missing header field (`delegationDepth`): SQLite schemas
//! before 5 have no column for it, and a session gets the same findings in every format.

use super::kind::Era;
use crate::EventType;
use crate::event::EventIdx;
use crate::log::EventLog;
use crate::turn_fields::{JsonKind, turn_fields};

/// Event types HEAD refuses as unknown, with the newest era that wrote each and why.
const RETIRED_TYPES: [(EventType, Era, &str); 6] = [
    (
        EventType::Usage,
        Era::Adr,
        "removed 2026-06-21, with header version 1; HEAD refuses it",
    ),
    (
        EventType::Error,
        Era::Adr,
        "removed 2026-06-21, with header version 1; HEAD refuses it",
    ),
    (
        EventType::RequestHeaderDelta,
        Era::SurfaceMerge,
        "2026-07-06 to 07-17; HEAD refuses it",
    ),
    (
        EventType::ContextMessage,
        Era::MidJuly,
        "until 2026-07-24, wrapped in <context source=…> until 07-20; HEAD refuses it",
    ),
    (
        EventType::PromptBlocked,
        Era::MidJuly,
        "2026-07-04 to 07-27; HEAD refuses it",
    ),
    (
        EventType::BashSandboxMode,
        Era::MidJuly,
        "a name HEAD never had (it has sandbox/mode) and refuses",
    ),
];

/// Types HEAD refuses whose dates are unknown: written before HEAD, so at most mid-July.
const NEVER_AT_HEAD: [EventType; 1] = [EventType::ModeSet];

/// The newest era that could have written `log` when something in it rules HEAD out, with the
/// evidence: the oldest such bound found. `None` when nothing does (see the module
/// documentation).
pub fn upper_bound(log: &EventLog) -> Option<(Era, String)> {
    let header = log.header.as_ref();
    if header.is_some_and(|h| h.version == Some(1)) {
        return Some((
            Era::Adr,
            "header version 1 (2026-06-15 to 06-21; HEAD refuses it)".to_string(),
        ));
    }
    let mut oldest: Option<(Era, String)> = None;
    let mut consider = |era: Era, why: String| {
        if oldest.as_ref().is_none_or(|(e, _)| era < *e) {
            oldest = Some((era, why));
        }
    };
    for (id, name) in log.types.iter() {
        let kind = log.types.kind(id);
        if let Some((_, era, why)) = RETIRED_TYPES.iter().find(|(t, _, _)| *t == kind) {
            consider(*era, format!("{name} events ({why})"));
        } else if NEVER_AT_HEAD.contains(&kind) {
            consider(
                Era::MidJuly,
                format!("{name} events (a type HEAD never had and refuses)"),
            );
        }
    }
    if let Some((era, why)) = june_assistant_message(log) {
        consider(era, why);
    }
    oldest
}

/// An `assistant/message` in the June shape: flat (`data.content`, no `data.message`) and
/// without `provenance` (added 2026-07-17). HEAD cannot upgrade it (docs/parity.md), so
/// no harness from HEAD on loaded a log holding one. The last such message dates the newest
/// writer to the surface merge; the first one, when the last is newer, to mid-July at most (a
/// later harness resumed a June log). Only these two are read, to keep detection cheap.
fn june_assistant_message(log: &EventLog) -> Option<(Era, String)> {
    let kind = log.types.id_of(EventType::AssistantMessage)?;
    let is_june = |idx: EventIdx| {
        let shape = turn_fields(&log.event_json(idx)).shape;
        shape.data == JsonKind::Object
            && shape.message == JsonKind::Missing
            && shape.content == JsonKind::Array
            && !shape.provenance
    };
    let mut assistants = log.indices().filter(|&i| log.event(i).kind == kind);
    let first = assistants.next()?;
    let last = log
        .indices()
        .rev()
        .find(|&i| log.event(i).kind == kind)
        .unwrap_or(first);
    let june = |idx: EventIdx| {
        format!(
            "assistant/message at seq {} in the June shape (flat, no provenance: before \
             2026-07-17; HEAD cannot upgrade it)",
            log.event(idx).seq
        )
    };
    if is_june(last) {
        Some((Era::SurfaceMerge, june(last)))
    } else if last != first && is_june(first) {
        Some((Era::MidJuly, june(first)))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventBatch, EventText, NewEvent, SessionHeader, SurfaceOp};

    fn log_with(version: i64, events: &[(&str, &str)]) -> EventLog {
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
        let header = SessionHeader {
            id: "s".into(),
            version: Some(version),
            delegation_depth: Some(0),
            ..Default::default()
        };
        EventLog::new(Some(header), text, batch)
    }

    const JUNE_ASSISTANT: (&str, &str) = (
        "assistant/message",
        r#"{"turn":1,"step":1,"content":[{"type":"text","text":"hi"}]}"#,
    );
    const JULY_ASSISTANT: (&str, &str) = (
        "assistant/message",
        r#"{"turn":1,"step":1,"content":[],"provenance":{"provider":"p","model":"m"}}"#,
    );

    fn bound(version: i64, events: &[(&str, &str)]) -> Option<Era> {
        upper_bound(&log_with(version, events)).map(|(era, _)| era)
    }

    #[test]
    fn what_head_refuses_bounds_the_era() {
        assert_eq!(bound(1, &[]), Some(Era::Adr));
        assert_eq!(bound(0, &[("usage", "{}")]), Some(Era::Adr));
        assert_eq!(
            bound(0, &[("request/header-delta", "{}")]),
            Some(Era::SurfaceMerge)
        );
        assert_eq!(bound(0, &[("context/message", "{}")]), Some(Era::MidJuly));
        assert_eq!(bound(0, &[("mode/set", "{}")]), Some(Era::MidJuly));
        assert_eq!(bound(0, &[JUNE_ASSISTANT]), Some(Era::SurfaceMerge));
        // The oldest bound wins, and its reason is the one given.
        let (era, why) = upper_bound(&log_with(
            0,
            &[("context/message", "{}"), ("request/header-delta", "{}")],
        ))
        .unwrap();
        assert_eq!(era, Era::SurfaceMerge);
        assert!(why.starts_with("request/header-delta"), "{why}");
    }

    #[test]
    fn shapes_head_upgrades_set_no_bound() {
        let upgraded = [
            (
                "turn/start",
                r#"{"turn":1,"trigger":{"kind":"continuation"}}"#,
            ),
            ("user/message", r#"{"content":[],"source":{"kind":"user"}}"#),
            (
                "tool/result",
                r#"{"callId":"c","content":[],"isError":false}"#,
            ),
            ("steering/message", r#"{"turn":1,"content":[]}"#),
            JULY_ASSISTANT,
        ];
        assert_eq!(bound(0, &upgraded), None);
        // A June log resumed by a later harness: HEAD could not have loaded it.
        assert_eq!(
            bound(0, &[JUNE_ASSISTANT, JULY_ASSISTANT, JULY_ASSISTANT]),
            Some(Era::MidJuly)
        );
        assert_eq!(
            bound(0, &[JULY_ASSISTANT, JUNE_ASSISTANT]),
            Some(Era::SurfaceMerge)
        );
        // A malformed message is not a June shape: it is a shape finding.
        assert_eq!(bound(0, &[("assistant/message", r#"{"turn":1}"#)]), None);
    }
}
