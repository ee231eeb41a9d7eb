//! One pass over the log-only events that frame a compaction: the `compaction/start` …
//! `summary` … `end` brackets (matched by `compactionId`, June's id-less `compact/*` by
//! nesting), the prunes, the replace op each one is followed by, and — for the overflow
//! trigger — whether the step a compaction ran in had failed with `CONTEXT_WINDOW_EXCEEDED`.
//! Whatever is missing or out of place becomes a `compaction.*` warning naming the event.

use crate::EventType;
use std::collections::HashMap;

use super::events::{CompactionEvent, CompactionFields, TurnField, read_fields};
use super::overflow::OverflowWatch;
use crate::{EventIdx, EventLog, Finding, Rule, SurfaceOp};

/// One summarizing compaction: the events of its bracket, as far as the log has them.
#[derive(Clone, Debug, Default)]
pub struct Bracket {
    /// `compactionId` (from whichever event had one).
    pub id: Option<String>,
    /// The `compaction/start`.
    pub start: Option<EventIdx>,
    /// Its fields.
    pub start_fields: CompactionFields,
    /// The `compaction/summary`.
    pub summary: Option<EventIdx>,
    /// Its fields.
    pub summary_fields: CompactionFields,
    /// The `compaction/end`.
    pub end: Option<EventIdx>,
    /// Its fields.
    pub end_fields: CompactionFields,
    /// The replace op directly after the summary.
    pub replace: Option<EventIdx>,
    /// The event the trigger is judged at: the start, else the summary.
    pub anchor: Option<EventIdx>,
    /// The step the anchor lies in had overflowed the context window.
    pub overflow: bool,
    /// The first compaction event after the last step boundary before it: where the check
    /// that wrote this compaction began (docs/audit.md, docs/policy.md#the-policy-in-our-words).
    pub check: Option<EventIdx>,
}

impl Bracket {
    /// `sourceCommandId` of the start, else of the summary.
    pub fn source_command_id(&self) -> Option<&str> {
        self.start_fields
            .source_command_id
            .as_deref()
            .or(self.summary_fields.source_command_id.as_deref())
    }
}

/// One tool-result prune.
#[derive(Clone, Debug)]
pub struct Prune {
    /// The `compaction/prune`.
    pub event: EventIdx,
    /// Its fields.
    pub fields: CompactionFields,
    /// The replace op directly after it.
    pub replace: Option<EventIdx>,
    /// The step it lies in had overflowed the context window.
    pub overflow: bool,
    /// Where the check that wrote it began (see [`Bracket::check`]).
    pub check: Option<EventIdx>,
}

/// What a replace op directly follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The summary of bracket `k`.
    Summary(usize),
    /// Prune `k`.
    Prune(usize),
    /// No compaction event.
    Other,
}

/// The compaction events of a log.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Every summarizing compaction, in the order its first event appears.
    pub brackets: Vec<Bracket>,
    /// Every prune, in log order.
    pub prunes: Vec<Prune>,
    /// Every replace op (applied or not), in log order, with what it follows.
    pub links: Vec<(EventIdx, Link)>,
    /// `compaction.bracket` / `compaction.malformed` warnings.
    pub warnings: Vec<Finding>,
    /// Where the overflow code occurs in the log's text, when the scan searched it ([`scan`]
    /// with `overflow`): a later pass starts its watch from them
    /// ([`OverflowWatch::from_offsets`]) instead of searching the whole text again.
    pub overflow_code_at: Option<Vec<u64>>,
}

/// What an event type means to the scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Other,
    Compaction(CompactionEvent, bool),
    /// `step/start`, `step/end`, `turn/start`, `turn/end` (boundaries of the check a
    /// compaction belongs to) and `assistant/message`: read by the overflow watch too.
    Step(EventType),
    Chunk,
}

/// Scans `log`. With `overflow`, the steps' `assistant/chunk`s are searched for the overflow
/// failure (`check` does not need it and skips them).
pub fn scan(log: &EventLog, overflow: bool) -> Scan {
    let roles: Vec<Role> = log
        .types
        .iter()
        .map(|(id, _)| match log.types.kind(id) {
            kind @ (EventType::StepStart
            | EventType::StepEnd
            | EventType::TurnStart
            | EventType::TurnEnd
            | EventType::AssistantMessage) => Role::Step(kind),
            EventType::AssistantChunk => Role::Chunk,
            kind => CompactionEvent::of(kind).map_or(Role::Other, |(k, h)| Role::Compaction(k, h)),
        })
        .collect();
    let records_compactions = roles.iter().any(|r| matches!(r, Role::Compaction(..)));
    let mut s = Scanner {
        log,
        out: Scan::default(),
        open: HashMap::new(),
        watch: if overflow {
            OverflowWatch::over(log)
        } else {
            OverflowWatch::default()
        },
        overflowed: false,
        last_summary: None,
        last_prune: None,
        check_start: None,
    };
    for idx in log.indices() {
        let e = log.event(idx);
        let role = roles[e.kind.0 as usize];
        match role {
            Role::Other => {}
            Role::Step(kind) => {
                s.watch.event(log, idx, kind);
                if kind != EventType::AssistantMessage {
                    s.check_start = None;
                    s.overflowed = false;
                }
            }
            Role::Chunk => {
                // Most chunks cannot be an overflow finish, and the watch tells so without
                // their lines ([`OverflowWatch::chunk_may_finish`]).
                if overflow
                    && s.watch.chunk_may_finish(e)
                    && s.watch.event(log, idx, EventType::AssistantChunk)
                {
                    s.overflowed = true;
                }
            }
            Role::Compaction(kind, head) => s.compaction(idx, kind, head),
        }
        if matches!(log.op(idx), SurfaceOp::Replace { .. }) {
            s.replace(idx, records_compactions);
        }
    }
    s.finish()
}

struct Scanner<'a> {
    log: &'a EventLog,
    out: Scan,
    /// Open brackets by `compactionId` (id-less June brackets under `None`), innermost last.
    open: HashMap<Option<String>, Vec<usize>>,
    /// The open step, for the overflow trigger.
    watch: OverflowWatch,
    /// The open step's model call overflowed (before its message).
    overflowed: bool,
    last_summary: Option<(EventIdx, usize)>,
    last_prune: Option<(EventIdx, usize)>,
    /// The first compaction event since the last step boundary.
    check_start: Option<EventIdx>,
}

impl Scanner<'_> {
    fn warn(&mut self, idx: EventIdx, rule: Rule, message: String) {
        let e = self.log.event(idx);
        self.out.warnings.push(Finding::new(
            rule,
            Some(e.seq),
            (e.line > 0).then_some(e.line),
            message,
        ));
    }

    /// The open step's model call overflowed and its message has not come yet.
    fn step_overflowed(&self) -> bool {
        self.overflowed && self.watch.in_step()
    }

    /// Whether a compaction event at `idx` lies in a step that overflowed (a start whose
    /// `turn` is null ran outside any step).
    fn overflowed_at(&self, turn: TurnField) -> bool {
        turn != TurnField::Null && self.step_overflowed()
    }

    fn compaction(&mut self, idx: EventIdx, kind: CompactionEvent, head: bool) {
        let fields = read_fields(kind, head, &self.log.data_value(idx));
        if !fields.problems.is_empty() {
            let message = format!(
                "{}: {}; the audit shows null for it",
                self.log.type_name(idx),
                fields.problems.join("; ")
            );
            self.warn(idx, Rule::CompactionMalformed, message);
        }
        let key = fields.compaction_id.clone();
        let check = Some(*self.check_start.get_or_insert(idx));
        match kind {
            CompactionEvent::Start => {
                let overflow = self.overflowed_at(fields.turn);
                self.out.brackets.push(Bracket {
                    id: key.clone(),
                    start: Some(idx),
                    start_fields: fields,
                    anchor: Some(idx),
                    overflow,
                    check,
                    ..Bracket::default()
                });
                let k = self.out.brackets.len() - 1;
                self.open.entry(key).or_default().push(k);
            }
            CompactionEvent::Summary => {
                let open = self
                    .open
                    .get(&key)
                    .and_then(|stack| stack.last().copied())
                    .filter(|&k| self.out.brackets[k].summary.is_none());
                let k = match open {
                    Some(k) => k,
                    None => {
                        let message = format!(
                            "{} has no open compaction/start{}",
                            self.log.type_name(idx),
                            id_note(key.as_deref())
                        );
                        self.warn(idx, Rule::CompactionBracket, message);
                        let overflow = self.overflowed_at(fields.turn);
                        self.out.brackets.push(Bracket {
                            id: key.clone(),
                            anchor: Some(idx),
                            overflow,
                            check,
                            ..Bracket::default()
                        });
                        let k = self.out.brackets.len() - 1;
                        self.open.entry(key).or_default().push(k);
                        k
                    }
                };
                let b = &mut self.out.brackets[k];
                b.summary = Some(idx);
                b.summary_fields = fields;
                self.last_summary = Some((idx, k));
            }
            CompactionEvent::End => {
                let k = self.open.get_mut(&key).and_then(Vec::pop);
                match k {
                    Some(k) => {
                        let b = &mut self.out.brackets[k];
                        b.end = Some(idx);
                        b.end_fields = fields;
                    }
                    None => {
                        let message = format!(
                            "{} has no compaction/start{}",
                            self.log.type_name(idx),
                            id_note(key.as_deref())
                        );
                        self.warn(idx, Rule::CompactionBracket, message);
                        self.out.brackets.push(Bracket {
                            id: key,
                            end: Some(idx),
                            end_fields: fields,
                            ..Bracket::default()
                        });
                    }
                }
            }
            CompactionEvent::Prune => {
                let overflow = self.step_overflowed();
                self.out.prunes.push(Prune {
                    event: idx,
                    fields,
                    replace: None,
                    overflow,
                    check,
                });
                self.last_prune = Some((idx, self.out.prunes.len() - 1));
            }
        }
    }

    fn replace(&mut self, idx: EventIdx, records_compactions: bool) {
        let prev = idx.get().checked_sub(1).map(|p| EventIdx(p as u32));
        let link = match (prev, self.last_summary, self.last_prune) {
            (Some(p), Some((s, k)), _) if s == p && self.out.brackets[k].replace.is_none() => {
                self.out.brackets[k].replace = Some(idx);
                Link::Summary(k)
            }
            (Some(p), _, Some((s, k))) if s == p && self.out.prunes[k].replace.is_none() => {
                self.out.prunes[k].replace = Some(idx);
                Link::Prune(k)
            }
            _ => {
                if records_compactions {
                    self.warn(
                        idx,
                        Rule::CompactionBracket,
                        "replace op is not directly preceded by a compaction/summary or compaction/prune; the audit lists it as \"other\"".to_string(),
                    );
                }
                Link::Other
            }
        };
        self.out.links.push((idx, link));
    }

    fn finish(mut self) -> Scan {
        self.out.overflow_code_at = self.watch.code_offsets().map(<[u64]>::to_vec);
        let mut late = Vec::new();
        for b in &self.out.brackets {
            if let (Some(start), None) = (b.start, b.end) {
                late.push((
                    start,
                    format!(
                        "{} has no compaction/end{}",
                        self.log.type_name(start),
                        id_note(b.id.as_deref())
                    ),
                ));
            }
            if let (Some(summary), None) = (b.summary, b.replace) {
                late.push((
                    summary,
                    format!(
                        "{} is not directly followed by its replace op",
                        self.log.type_name(summary)
                    ),
                ));
            }
        }
        for p in &self.out.prunes {
            if p.replace.is_none() {
                late.push((
                    p.event,
                    format!(
                        "{} is not directly followed by its replace op",
                        self.log.type_name(p.event)
                    ),
                ));
            }
        }
        for (idx, message) in late {
            self.warn(idx, Rule::CompactionBracket, message);
        }
        self.out
    }
}

fn id_note(id: Option<&str>) -> String {
    id.map_or_else(String::new, |id| format!(" (compactionId {id})"))
}
