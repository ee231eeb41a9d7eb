//! Which harness era a log is judged by (docs/parity.md#the-era-of-a-log, docs/format.md#eras),
//! told from the header's fields and the shape of a few events, with the one-line reason shown to
//! the user.
//!
//! Evidence comes in two kinds. Most of it is a lower bound: a field or shape harnesses wrote
//! from some date on (`delegationDepth` from 2026-07-20, `compaction/*` from 08-06). The rest is
//! an upper bound: something the HEAD harness could neither write nor load (header version 1,
//! a June-shape `assistant/message`, a retired event type; `era/upper.rs`). A log is judged
//! by the **newest** era that could have written it: HEAD, unless an upper bound rules HEAD
//! out — HEAD is the harness users run, and it validates a whole log when it resumes it. The
//! lower bound is still named, so that `check` can say "mid-July or later (judged as HEAD)".
//!
//! A header field counts only when present, never by its absence: SQLite schemas before 5
//! have no `delegationDepth` column, and the same session must get the same findings in every
//! format. Detection reads the header, the type table and a few events (the last `turn/start`,
//! the last message event, the first and last `assistant/message`, found from the ends of the
//! log); only a log without other HEAD evidence has its records scanned for a prune.

use serde::Serialize;

mod kind;
mod upper;

pub use kind::Era;
use upper::upper_bound;

use super::event::{EventIdx, OpSlot, SurfaceOp};
use super::event_type::EventType;
use super::log::EventLog;
use super::turn_fields::turn_fields;

/// The era a log is judged by, the oldest era its evidence allows, and the evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EraGuess {
    /// The era whose rules judge the log: the newest era that could have written it.
    pub era: Era,
    /// The oldest era that could have written it (its newest dated field or shape). Above
    /// [`EraGuess::era`] only when the evidence conflicts (a HEAD shape beside one HEAD
    /// refuses): then the upper bound, what HEAD refuses, decides.
    pub at_least: Era,
    /// One line naming the fields or shapes that told both bounds.
    pub reason: String,
}

impl EraGuess {
    /// The bounds in words: `HEAD (2026-08)` when they meet, else e.g.
    /// `mid-July or later (judged as HEAD)` or `surface merge to mid-July (judged as mid-July)`.
    pub fn span(&self) -> String {
        let (low, high) = (self.at_least, self.era);
        if low == high {
            high.label().to_string()
        } else if low > high {
            format!(
                "{} shapes in an older log (judged as {})",
                low.name(),
                high.name()
            )
        } else if high == Era::Head {
            format!("{} or later (judged as HEAD)", low.name())
        } else {
            format!(
                "{} to {} (judged as {})",
                low.name(),
                high.name(),
                high.name()
            )
        }
    }
}

/// Detects the era of `log` (see the module documentation).
pub fn detect_era(log: &EventLog) -> EraGuess {
    let header = log.header.as_ref();
    let (at_least, lower) = head_evidence(log)
        .or_else(|| mid_july_evidence(log))
        .unwrap_or_else(|| match header.and_then(|h| h.version) {
            Some(1) => (Era::Adr, String::new()),
            Some(0) => (
                Era::SurfaceMerge,
                "header version 0 (from 2026-06-21)".to_string(),
            ),
            Some(v) => (Era::Adr, format!("header version {v} is unknown")),
            None => (
                Era::Adr,
                "no session header and no dated field or shape".to_string(),
            ),
        });
    let (era, upper) =
        upper_bound(log).unwrap_or_else(|| (Era::Head, "nothing older than HEAD".to_string()));
    let reason = if lower.is_empty() {
        upper
    } else {
        format!("{lower}; {upper}")
    };
    EraGuess {
        era,
        at_least,
        reason,
    }
}

/// Shapes only harnesses from August on wrote.
fn head_evidence(log: &EventLog) -> Option<(Era, String)> {
    if let Some(h) = log.header.as_ref() {
        if h.agent_preset.is_some() {
            return Some(bound(Era::Head, "header has agentPreset (from 2026-08-10)"));
        }
        if h.origin.is_some() {
            return Some(bound(Era::Head, "header has origin (from 2026-08-02)"));
        }
    }
    if let Some((_, name)) = log.types.iter().find(|(id, n)| {
        n.starts_with("compaction/") || log.types.kind(*id) == EventType::CompactPrune
    }) {
        return Some(bound(Era::Head, format!("{name} events (from 2026-08-06)")));
    }
    let trigger_less = last_of(log, |t| t == EventType::TurnStart).filter(|&idx| {
        let f = turn_fields(&log.event_json(idx));
        f.is_object && !f.has_trigger
    });
    if let Some(idx) = trigger_less {
        return Some(bound(
            Era::Head,
            format!(
                "turn/start without trigger at seq {} (from 2026-08-05)",
                log.event(idx).seq
            ),
        ));
    }
    last_prune(log).map(|(seq, start)| {
        bound(
            Era::Head,
            format!("tool/result at seq {seq} prunes tool/result {start} (from 2026-08-06)"),
        )
    })
}

/// The last prune: a `tool/result` whose replace starts at a `tool/result`
/// (docs/parity.md#evidence-that-sets-a-lower-bound: prunes arrived 2026-08-06). As
/// `(seq, start)`. Walks the records from the end, so it costs a scan of the log when there is
/// none.
fn last_prune(log: &EventLog) -> Option<(u64, u64)> {
    let tool_result = log.types.id_of(EventType::ToolResult)?;
    log.events
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, e)| e.kind == tool_result && e.op() == OpSlot::Replace)
        .find_map(|(i, e)| {
            let SurfaceOp::Replace { start, .. } = log.op(EventIdx(i as u32)) else {
                return None;
            };
            let original = log.find_seq(start)?;
            (log.event(original).kind == tool_result).then_some((e.seq, start))
        })
}

/// A bound and its evidence.
fn bound(era: Era, why: impl Into<String>) -> (Era, String) {
    (era, why.into())
}

/// Fields and shapes harnesses wrote from 2026-07-20 on.
fn mid_july_evidence(log: &EventLog) -> Option<(Era, String)> {
    if let Some(depth) = log.header.as_ref().and_then(|h| h.delegation_depth) {
        return Some(bound(
            Era::MidJuly,
            format!("header has delegationDepth {depth} (from 2026-07-20)"),
        ));
    }
    let last_message = last_of(log, |t| {
        matches!(
            t,
            EventType::UserMessage | EventType::AssistantMessage | EventType::ToolResult
        )
    });
    if let Some(idx) = last_message
        && turn_fields(&log.event_json(idx)).identified
    {
        return Some(bound(
            Era::MidJuly,
            format!(
                "identified message at seq {} (from 2026-07-28)",
                log.event(idx).seq
            ),
        ));
    }
    if !log.packed_rows.is_empty() {
        return Some(bound(Era::MidJuly, "packed chunk rows (from 2026-07-22)"));
    }
    log.types
        .iter()
        .find(|(id, _)| {
            matches!(
                log.types.kind(*id),
                EventType::SessionEndSeed | EventType::RequestContext
            )
        })
        .map(|(_, name)| bound(Era::MidJuly, format!("{name} events (from 2026-07-30)")))
}

/// The last event (in log order) whose type satisfies `pred`, searched from the end. Only the
/// record array is walked; the usual log ends within a turn of such an event.
fn last_of(log: &EventLog, pred: impl Fn(EventType) -> bool) -> Option<EventIdx> {
    let wanted: Vec<_> = log
        .types
        .iter()
        .filter(|(id, _)| pred(log.types.kind(*id)))
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
    use crate::finding::Severity;
    use crate::{EventBatch, EventText, NewEvent, SessionHeader, SurfaceOp};

    fn log_with(header: Option<SessionHeader>, events: &[(&str, &str)]) -> EventLog {
        let with_ops: Vec<_> = events
            .iter()
            .map(|&(t, d)| (t, d, SurfaceOp::None))
            .collect();
        log_with_ops(header, &with_ops)
    }

    fn log_with_ops(header: Option<SessionHeader>, events: &[(&str, &str, SurfaceOp)]) -> EventLog {
        let mut text = Vec::new();
        let mut batch = EventBatch::default();
        for (seq, &(type_name, data, op)) in events.iter().enumerate() {
            let json = format!(r#"{{"type":"{type_name}","seq":{seq},"data":{data}}}"#);
            let start = text.len() as u64;
            text.extend_from_slice(json.as_bytes());
            batch.push(NewEvent {
                seq: seq as u64,
                time: None,
                type_name,
                op,
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

    /// `(at_least, judged_as)` of a log.
    fn bounds(h: Option<SessionHeader>, ev: &[(&str, &str)]) -> (Era, Era) {
        let g = detect_era(&log_with(h, ev));
        (g.at_least, g.era)
    }

    fn depth() -> SessionHeader {
        SessionHeader {
            delegation_depth: Some(0),
            ..header(0)
        }
    }

    #[test]
    fn lower_bounds_from_header_and_shapes() {
        use Era::*;
        assert_eq!(bounds(Some(header(1)), &[E2_START]), (Adr, Adr));
        assert_eq!(bounds(Some(header(0)), &[E2_START]), (SurfaceMerge, Head));
        assert_eq!(bounds(Some(depth()), &[E2_START]), (MidJuly, Head));
        let trigger_less = [("turn/start", r#"{"turn":1}"#)];
        assert_eq!(bounds(Some(depth()), &trigger_less), (Head, Head));
        assert_eq!(bounds(Some(header(0)), &trigger_less), (Head, Head));
        let origin = SessionHeader {
            origin: Some("subagent".into()),
            ..depth()
        };
        assert_eq!(bounds(Some(origin), &[E2_START]), (Head, Head));
        let identified = [
            E2_START,
            (
                "user/message",
                r#"{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"}"#,
            ),
        ];
        assert_eq!(bounds(Some(header(0)), &identified), (MidJuly, Head));
        assert_eq!(
            bounds(None, &[E2_START, ("compaction/start", r#"{"turn":1}"#)]),
            (Head, Head)
        );
        assert_eq!(bounds(None, &[E2_START]), (Adr, Head));
        assert_eq!(bounds(Some(header(7)), &[E2_START]), (Adr, Head));
    }

    #[test]
    fn an_upper_bound_decides_the_era() {
        use Era::*;
        let june = (
            "assistant/message",
            r#"{"turn":1,"step":1,"content":[{"type":"text","text":"hi"}]}"#,
        );
        assert_eq!(
            bounds(Some(header(0)), &[E2_START, june]),
            (SurfaceMerge, SurfaceMerge)
        );
        assert_eq!(
            bounds(Some(depth()), &[E2_START, ("context/message", "{}")]),
            (MidJuly, MidJuly)
        );
        // Conflicting evidence: what HEAD refuses rules HEAD out.
        let g = detect_era(&log_with(
            Some(depth()),
            &[
                ("turn/start", r#"{"turn":1}"#),
                ("request/header-delta", "{}"),
            ],
        ));
        assert_eq!((g.at_least, g.era), (Head, SurfaceMerge));
        assert_eq!(
            g.span(),
            "HEAD shapes in an older log (judged as surface merge)"
        );
    }

    #[test]
    fn reason_names_both_bounds() {
        let g = detect_era(&log_with(Some(depth()), &[E2_START]));
        assert_eq!(g.span(), "mid-July or later (judged as HEAD)");
        assert_eq!(
            g.reason,
            "header has delegationDepth 0 (from 2026-07-20); nothing older than HEAD"
        );
        // An old log resumed by a HEAD harness: the last turn/start has no trigger.
        let g = detect_era(&log_with(
            Some(depth()),
            &[
                E2_START,
                ("turn/end", r#"{"turn":1}"#),
                ("turn/start", r#"{"turn":2}"#),
            ],
        ));
        assert_eq!(g.span(), "HEAD (2026-08)");
        assert!(g.reason.contains("seq 2"), "{}", g.reason);
        let g = detect_era(&log_with(Some(header(0)), &[("context/message", "{}")]));
        assert_eq!(g.span(), "surface merge to mid-July (judged as mid-July)");
        assert!(g.reason.starts_with("header version 0"), "{}", g.reason);
        assert!(
            g.reason.contains("; context/message events"),
            "{}",
            g.reason
        );
        let g = detect_era(&log_with(Some(header(1)), &[]));
        assert_eq!(g.span(), "ADR (2026-06)");
        assert!(g.reason.starts_with("header version 1"), "{}", g.reason);
    }

    #[test]
    fn a_prune_dates_a_log_to_august() {
        let result = r#"{"turn":1,"step":1,"callId":"c","content":[],"isError":false}"#;
        let user = r#"{"content":[],"source":{"kind":"user"}}"#;
        let replace = SurfaceOp::Replace { start: 0, end: 0 };
        let at_least = |first: &str, data| {
            let log = log_with_ops(
                Some(header(0)),
                &[
                    (first, data, SurfaceOp::Append),
                    ("tool/result", result, replace),
                ],
            );
            detect_era(&log)
        };
        let g = at_least("tool/result", result);
        assert_eq!((g.at_least, g.era), (Era::Head, Era::Head));
        assert!(g.reason.contains("prunes tool/result 0"), "{}", g.reason);
        // A tool/result replacing a user/message is no prune a harness wrote: no evidence.
        assert_eq!(at_least("user/message", user).at_least, Era::SurfaceMerge);
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
