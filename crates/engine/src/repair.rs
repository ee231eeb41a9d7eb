//! Repair preview (docs/format.md rule 10, docs/parity.md): the closers the harness would
//! synthesize for a log that ends inside an open turn. They are shown, marked as synthesized,
//! and never written to the file.
//!
//! Shape: when the log uses identified messages (HEAD era, `data.message`), the closers use the
//! HEAD shape with `TOOL_OUTCOME_UNKNOWN` (a `tool/call` was seen) or `TOOL_NOT_STARTED`;
//! otherwise the E1/E2 flat shape with `InterruptedError`.

use super::event_type::EventType;
use serde_json::{Value, json};

use super::event::{EventText, SurfaceOp};
use super::log::{EventLog, NewEvent};
use super::turns::{TurnScan, scan_turns};

/// One synthesized closer.
#[derive(Clone, Debug, PartialEq)]
pub struct Closer {
    /// Seq it would get.
    pub seq: u64,
    /// Time it would get (the last real event's time).
    pub time: Option<i64>,
    /// Event type.
    pub kind: EventType,
    /// Payload.
    pub data: Value,
    /// Provenance (the orphaned `tool/call`), when known.
    pub sources: Option<Vec<u64>>,
    /// `append` for tool results, none for boundaries.
    pub op: SurfaceOp,
}

impl Closer {
    /// The event as one JSON line, in the harness's key order, with `"synthesized": true`
    /// so that it can never be mistaken for a logged event.
    pub fn to_json(&self) -> String {
        let mut v = json!({"type": self.kind.spelled(), "seq": self.seq});
        if let Some(t) = self.time {
            v["time"] = json!(t);
        }
        v["data"] = self.data.clone();
        if let Some(s) = &self.sources {
            v["sourceEventSeqs"] = json!(s);
        }
        if self.op == SurfaceOp::Append {
            v["surfaceOp"] = json!("append");
        }
        v["synthesized"] = json!(true);
        v.to_string()
    }
}

/// The closers for `log` (empty for a balanced or empty log).
pub fn closers(log: &EventLog) -> Vec<Closer> {
    closers_from_scan(log, &scan_turns(log))
}

/// The closers from an existing turn scan.
pub fn closers_from_scan(log: &EventLog, scan: &TurnScan) -> Vec<Closer> {
    let Some(open) = &scan.open else {
        return Vec::new();
    };
    let base = log.next_seq();
    let time = log.last_time();
    let turn = open.turn.map_or(Value::Null, |t| json!(t));
    let mut out: Vec<Closer> = Vec::new();
    let mut next = |kind, data, sources, op| {
        let seq = base + out.len() as u64;
        out.push(Closer {
            seq,
            time,
            kind,
            data,
            sources,
            op,
        });
    };
    for (k, call) in open.pending.iter().enumerate() {
        let seq = base + k as u64;
        let step = call.step.or(open.step).map_or(Value::Null, |s| json!(s));
        let sources = call.call_seq.map(|s| vec![s]);
        let data = if scan.identified_messages {
            let (text, name, code) = match call.call_seq {
                Some(_) => (
                    "The tool call was started, but the session was interrupted before its result was recorded; its outcome is unknown. Retry only idempotent work.",
                    "ToolOutcomeUnknownError",
                    "TOOL_OUTCOME_UNKNOWN",
                ),
                None => (
                    "The tool call was not started because the session was interrupted. It may be retried.",
                    "ToolNotStartedError",
                    "TOOL_NOT_STARTED",
                ),
            };
            json!({
                "turn": turn, "step": step,
                "message": {
                    "id": format!("interrupted-tool-result-{}-{}", call.call_id, seq),
                    "role": "user",
                    "source": {"kind": "tool", "callId": call.call_id},
                    "content": [{"type": "tool-result", "toolCallId": call.call_id, "isError": true,
                                 "content": [{"type": "text", "text": text}]}],
                },
                "error": {"name": name, "code": code},
            })
        } else {
            json!({
                "turn": turn, "step": step, "callId": call.call_id,
                "content": [{"type": "text", "text": "Tool call interrupted by a crash; no result was recorded."}],
                "isError": true,
                "error": {"name": "InterruptedError", "code": "interrupted"},
            })
        };
        next(EventType::ToolResult, data, sources, SurfaceOp::Append);
    }
    if open.step_open {
        let step = open.step.map_or(Value::Null, |s| json!(s));
        next(
            EventType::StepEnd,
            json!({"turn": turn, "step": step}),
            None,
            SurfaceOp::None,
        );
    }
    next(
        EventType::TurnEnd,
        json!({"turn": turn, "reason": {"kind": "interrupted"}}),
        None,
        SurfaceOp::None,
    );
    out
}

/// Appends the closers to `log` in memory, flagged as synthesized.
pub fn apply_closers(log: &mut EventLog, closers: &[Closer]) {
    for c in closers {
        let event = NewEvent {
            seq: c.seq,
            time: c.time,
            type_name: c.kind.spelled(),
            op: c.op,
            sources: c.sources.as_deref(),
            line: 0,
            text: EventText::Synthesized(0),
            plain: false,
        };
        log.push_synthesized(event, c.to_json());
    }
}
