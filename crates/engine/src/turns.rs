//! Turn/step nesting and tool call ↔ result pairing (docs/parity.md#severity-of-each-rule-per-era,
//! docs/check.md#findings): one pass over the boundary, message and tool events that feeds both
//! `check` and the repair preview.
//!
//! The rules are the era-independent core of the upstream invariants: no `turn/start` inside an
//! open turn; `turn/end` closes the open turn with no step open; steps nest inside the open turn;
//! `assistant/message`, `tool/call` and `tool/result` that name a turn/step name the open ones.
//! Events of other types (chunks, plugin events, context) are not checked, because the eras
//! disagree on whether they may stand between turns.

use super::era::Era;
use super::event::{EventIdx, SurfaceOp};
use super::event_type::EventType;
use super::finding::{Finding, Rule, Severity};
use super::log::EventLog;
use super::message_shape::shape_problem;
use super::readable;
use super::turn_fields::{TurnFields, turn_fields_of_bytes};

/// A tool call announced by an `assistant/message` that has no result yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingCall {
    /// The call id.
    pub call_id: String,
    /// Step of the assistant message that announced it.
    pub step: Option<u64>,
    /// Seq of the matching `tool/call` event, once seen.
    pub call_seq: Option<u64>,
}

/// The turn that is still open at the end of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenTurn {
    /// Turn number (from `turn/start`'s `data.turn`).
    pub turn: Option<u64>,
    /// Open step number, if a step is open.
    pub step: Option<u64>,
    /// Whether a step is open.
    pub step_open: bool,
    /// Pending calls in registration order.
    pub pending: Vec<PendingCall>,
}

/// Result of the pass.
#[derive(Clone, Debug, Default)]
pub struct TurnScan {
    /// `turn.structure`, `tool.result-without-call` and `repair.open-turn` findings.
    pub findings: Vec<Finding>,
    /// The turn open at the end, if any.
    pub open: Option<OpenTurn>,
    /// Whether any event uses the identified-message shape (HEAD era, `data.message`).
    pub identified_messages: bool,
    /// Whether any surface event carries a message id (`data.message.id`, or `data.id` on a
    /// `user/message`): its harness marks every surface event (docs/format.md rule 5). Only
    /// computed by [`scan_checked`].
    pub message_ids: bool,
}

/// `data.turn` and `data.step` of event `idx` when each is a non-negative integer, read as the
/// turn pass reads them (the byte scanner, no JSON tree).
pub fn turn_and_step(log: &EventLog, idx: EventIdx) -> (Option<u64>, Option<u64>) {
    let fields = turn_fields_of_bytes(&log.event_bytes(idx));
    (fields.turn, fields.step)
}

/// Runs the pass over the whole log (turn structure and tool pairing only, as repair needs).
pub fn scan_turns(log: &EventLog) -> TurnScan {
    scan(log, None)
}

/// The pass `check` runs: [`scan_turns`] plus, in the same single parse of each event, the
/// `message.shape` rule on every surface event (severities for `era`) and a finding for a
/// message that cannot be read at all.
pub fn scan_checked(log: &EventLog, era: Era) -> TurnScan {
    scan(log, Some(era))
}

fn scan(log: &EventLog, shapes: Option<Era>) -> TurnScan {
    let mut walk = Walk {
        log,
        scan: TurnScan::default(),
        open: None,
        calls_in_turn: Vec::new(),
    };
    let mut last_seq = None;
    for idx in log.indices() {
        last_seq = Some(log.event(idx).seq);
        let kind = log.event_type(idx);
        let relevant = matches!(
            kind,
            EventType::TurnStart
                | EventType::TurnEnd
                | EventType::StepStart
                | EventType::StepEnd
                | EventType::AssistantMessage
                | EventType::ToolCall
                | EventType::ToolResult
        );
        let check_shape = shapes.is_some() && log.is_eligible(idx);
        if !relevant && !check_shape {
            continue;
        }
        let json = log.event_bytes(idx);
        let data = turn_fields_of_bytes(&json);
        if data.has_message {
            walk.scan.identified_messages = true;
        }
        if let Some(era) = shapes.filter(|_| check_shape) {
            walk.scan.message_ids |= data.identified;
            let name = log.type_name(idx);
            shape_findings(
                log,
                idx,
                name,
                &json,
                &data.shape,
                era,
                &mut walk.scan.findings,
            );
        }
        if relevant {
            walk.event(idx, kind, data);
        }
    }
    walk.finish(last_seq)
}

/// The pass's state between events: the findings so far, the open turn and the calls made in
/// it.
struct Walk<'a> {
    log: &'a EventLog,
    scan: TurnScan,
    open: Option<OpenTurn>,
    calls_in_turn: Vec<String>,
}

/// A `turn.structure` finding at event `idx`.
fn structure(log: &EventLog, idx: EventIdx, msg: String) -> Finding {
    Finding::new(
        Rule::TurnStructure,
        Some(log.event(idx).seq),
        line_of(log, idx),
        msg,
    )
}

impl Walk<'_> {
    /// One boundary, message or tool event.
    fn event(&mut self, idx: EventIdx, kind: EventType, data: TurnFields) {
        match kind {
            EventType::TurnStart => self.turn_start(idx, data.turn),
            EventType::TurnEnd => self.turn_end(idx, data.turn),
            EventType::StepStart => self.step_start(idx, data.turn, data.step),
            EventType::StepEnd => self.step_end(idx, data.step),
            _ => self.in_turn(idx, kind, data),
        }
    }

    fn turn_start(&mut self, idx: EventIdx, turn: Option<u64>) {
        if let Some(t) = &self.open {
            let msg = format!("turn/start while turn {} is open", show(t.turn));
            self.scan.findings.push(structure(self.log, idx, msg));
        }
        self.open = Some(OpenTurn {
            turn,
            step: None,
            step_open: false,
            pending: Vec::new(),
        });
        self.calls_in_turn.clear();
    }

    fn turn_end(&mut self, idx: EventIdx, turn: Option<u64>) {
        let log = self.log;
        let findings = &mut self.scan.findings;
        let mut fail = |msg: String| findings.push(structure(log, idx, msg));
        match &self.open {
            None => fail("turn/end with no open turn".into()),
            Some(t) => {
                if turn.is_some() && turn != t.turn {
                    fail(format!(
                        "turn/end names turn {} but turn {} is open",
                        show(turn),
                        show(t.turn)
                    ));
                }
                if t.step_open {
                    fail(format!("turn/end while step {} is open", show(t.step)));
                }
            }
        }
        self.open = None;
        self.calls_in_turn.clear();
    }

    fn step_start(&mut self, idx: EventIdx, turn: Option<u64>, step: Option<u64>) {
        let log = self.log;
        let findings = &mut self.scan.findings;
        let mut fail = |msg: String| findings.push(structure(log, idx, msg));
        match &mut self.open {
            None => fail("step/start outside any open turn".into()),
            Some(t) => {
                if t.step_open {
                    fail(format!("step/start while step {} is open", show(t.step)));
                }
                if turn.is_some() && turn != t.turn {
                    fail(format!(
                        "step/start names turn {} but turn {} is open",
                        show(turn),
                        show(t.turn)
                    ));
                }
                t.step = step;
                t.step_open = true;
            }
        }
    }

    fn step_end(&mut self, idx: EventIdx, step: Option<u64>) {
        let log = self.log;
        let findings = &mut self.scan.findings;
        let mut fail = |msg: String| findings.push(structure(log, idx, msg));
        match &mut self.open {
            None => fail("step/end outside any open turn".into()),
            Some(t) => {
                if !t.step_open {
                    fail("step/end with no open step".into());
                } else if step.is_some() && step != t.step {
                    fail(format!(
                        "step/end names step {} but step {} is open",
                        show(step),
                        show(t.step)
                    ));
                }
                t.step_open = false;
                // HEAD clears pending calls at step end (docs/parity.md).
                t.pending.clear();
            }
        }
    }

    /// An `assistant/message`, `tool/call` or `tool/result`: it must stand in the open turn
    /// (and name it and its open step, unless it is a replace), and pairs the turn's calls with
    /// their results.
    fn in_turn(&mut self, idx: EventIdx, kind: EventType, data: TurnFields) {
        let log = self.log;
        let name = log.type_name(idx);
        let replaces = matches!(log.op(idx), SurfaceOp::Replace { .. });
        let findings = &mut self.scan.findings;
        let Some(t) = &mut self.open else {
            if !replaces {
                findings.push(structure(log, idx, format!("{name} outside any open turn")));
            }
            return;
        };
        if !replaces && let Some(msg) = misnamed(name, data.turn, data.step, t) {
            findings.push(structure(log, idx, msg));
        }
        let seq = log.event(idx).seq;
        match kind {
            EventType::AssistantMessage => {
                t.pending
                    .extend(data.tool_call_ids.into_iter().map(|call_id| PendingCall {
                        call_id,
                        step: data.step,
                        call_seq: None,
                    }))
            }
            EventType::ToolCall => {
                if let Some(id) = data.call_id {
                    if let Some(p) = t.pending.iter_mut().find(|p| p.call_id == id) {
                        p.call_seq = Some(seq);
                    }
                    self.calls_in_turn.push(id);
                }
            }
            _ => {
                // tool/result
                let id = data.call_id.or(data.message_call_id);
                let not_started = data.error_code.as_deref() == Some("TOOL_NOT_STARTED");
                if let Some(id) = &id {
                    let called = self.calls_in_turn.iter().any(|c| c == id);
                    if !called && !not_started && !replaces {
                        findings.push(Finding::new(
                            Rule::ResultWithoutCall,
                            Some(seq),
                            line_of(log, idx),
                            format!(
                                "tool/result for call {id:?} has no earlier tool/call in the turn"
                            ),
                        ));
                    }
                    t.pending.retain(|p| &p.call_id != id);
                }
            }
        }
    }

    /// The scan, with a finding for a turn still open at the end of the log.
    fn finish(mut self, last_seq: Option<u64>) -> TurnScan {
        if let Some(t) = &self.open {
            self.scan.findings.push(Finding::new(
                Rule::OpenTurn,
                last_seq,
                None,
                format!(
                    "the log ends inside open turn {}{}",
                    show(t.turn),
                    if t.pending.is_empty() {
                        String::new()
                    } else {
                        format!(" with {} pending tool call(s)", t.pending.len())
                    }
                ),
            ));
        }
        self.scan.open = self.open;
        self.scan
    }
}

/// Why an event inside turn `t` is out of place: it names another turn, or a step that is not
/// the open one.
fn misnamed(name: &str, turn: Option<u64>, step: Option<u64>, t: &OpenTurn) -> Option<String> {
    if turn.is_some() && turn != t.turn {
        Some(format!(
            "{name} names turn {} but turn {} is open",
            show(turn),
            show(t.turn)
        ))
    } else if step.is_some() && (!t.step_open || step != t.step) {
        Some(format!(
            "{name} names step {} but the open step is {}",
            show(step),
            if t.step_open {
                show(t.step)
            } else {
                "none".into()
            }
        ))
    } else {
        None
    }
}

/// `message.shape` findings of one surface event: unreadable text (an error in every era: the
/// viewer cannot show the message), lone surrogates (a warning: shown as U+FFFD), and the
/// era's shape rules (errors on logs judged as HEAD, warnings on older ones).
fn shape_findings(
    log: &EventLog,
    idx: EventIdx,
    name: &str,
    json: &[u8],
    shape: &super::turn_fields::MessageShape,
    era: Era,
    out: &mut Vec<Finding>,
) {
    let seq = Some(log.event(idx).seq);
    let line = line_of(log, idx);
    // The store's scanner already vouched for plain text: nothing to find there.
    let read = if log.event(idx).is_plain() {
        readable::ReadScan::default()
    } else {
        readable::scan(json)
    };
    if let Some(u) = read.unreadable {
        out.push(Finding::new(
            Rule::MessageShape,
            seq,
            line,
            format!(
                "{name} cannot be read as a message: {}; the viewer shows it without content",
                u.describe()
            ),
        ));
        return;
    }
    if let Some(&at) = read.lone_surrogates.first() {
        out.push(
            Finding::new(
                Rule::MessageShape,
                seq,
                line,
                format!(
                    "{name} holds {} lone UTF-16 surrogate escape(s) (the first at byte {at}), \
                     half of a character cut in two; shown as U+FFFD",
                    read.lone_surrogates.len()
                ),
            )
            .with_severity(Severity::Warning),
        );
    }
    if let Some(problem) = shape_problem(name, shape, era) {
        out.push(
            Finding::new(Rule::MessageShape, seq, line, problem)
                .with_severity(era.severity_from(Era::Head)),
        );
    }
}

fn line_of(log: &EventLog, idx: EventIdx) -> Option<u32> {
    let l = log.event(idx).line;
    (l > 0).then_some(l)
}

fn show(n: Option<u64>) -> String {
    n.map_or_else(|| "?".to_string(), |n| n.to_string())
}
