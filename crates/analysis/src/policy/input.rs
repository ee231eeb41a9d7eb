//! Everything the policy replay reads, gathered once per log (O(log)): the stream of surface
//! changes in log order with each node's facts, the check points
//! (docs/policy.md#the-policy-in-our-words) with the compactions the log made at each, the model
//! requests and the usage anchors. A replay with any settings then walks this stream without
//! touching the log's text again (apart from a tool result it would prune).

use std::collections::HashMap;
use std::sync::OnceLock;
use surface_engine::EventType;

use memchr::memmem;

use super::facts::tool_result_chars;
use super::inferred::Inferred;
use super::node::Node;
use super::spread::Spread;
use surface_engine::compactions::{self, OverflowWatch};
use surface_engine::meter::BaselineKind;
use surface_engine::{
    Effect, Era, EventIdx, EventLog, EventText, Meter, Surface, SurfaceOp, TypeId, detect_era,
    request_cursor, turn_fields_of_bytes,
};

/// What fires a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// The pressure check before a step (docs/policy.md#the-policy-in-our-words).
    Pressure,
    /// A `CONTEXT_WINDOW_EXCEEDED` finish inside a step (docs/policy.md#the-policy-in-our-words).
    Overflow,
    /// A `/compact` command (docs/policy.md#the-policy-in-our-words).
    Command,
}

/// A prune the log made at a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogPrune {
    /// The `compaction/prune`.
    pub event: u32,
    /// The replacing `tool/result`, when it was applied.
    pub replacement: Option<Node>,
    /// The event carrying the prune's replace op, applied or not.
    pub replace_event: Option<u32>,
    /// The seq the prune's replace op names (`start`), when it has one.
    pub target_seq: Option<u64>,
    /// Its replace op was not applied (an invalid compaction).
    pub invalid: bool,
}

/// A summary the log attempted at a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSummary {
    /// Its first event (`compaction/start`, else the summary).
    pub event: u32,
    /// The replacing summary message, when it was applied.
    pub replacement: Option<Node>,
    /// The event carrying the summary's replace op, applied or not.
    pub replace_event: Option<u32>,
    /// The replace op's `start` and `end` seqs, when one followed.
    pub range: Option<(u64, u64)>,
    /// A replace was applied (the attempt succeeded).
    pub ok: bool,
    /// A replace op followed but was not applied (an invalid compaction).
    pub invalid: bool,
}

/// The compactions the log made at one check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogCompactions {
    /// Prunes, in log order.
    pub prunes: Vec<LogPrune>,
    /// Summary attempts, in log order.
    pub summaries: Vec<LogSummary>,
}

impl LogCompactions {
    /// True when the log compacted (or tried to) at the check.
    pub fn any(&self) -> bool {
        !self.prunes.is_empty() || !self.summaries.is_empty()
    }
}

/// One check point of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckPoint {
    /// What fires it.
    pub kind: CheckKind,
    /// The replay cursor the check measures at (events before it are read): the check's first
    /// compaction event, else its `step/start`, error chunk or command.
    pub cursor: u32,
    /// The event that names the check: the `step/start` (pressure and overflow: the step's),
    /// else the command's first event.
    pub event: u32,
    /// `data.turn` / `data.step` of that step.
    pub turn: Option<u64>,
    /// See `turn`.
    pub step: Option<u64>,
    /// What the log did at this check.
    pub log: LogCompactions,
}

/// One element of the replay's stream, in log order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item {
    /// A node appended.
    Append(Node),
    /// An applied replace: `node` replaced the surface nodes `first ..= last`; `compaction`
    /// when a compaction event wrote it (a what-if leaves those out).
    Replace {
        /// The replacing node.
        node: Node,
        /// First shadowed node's event.
        first: u32,
        /// Last shadowed node's event.
        last: u32,
        /// Written by the log's compaction policy.
        compaction: bool,
    },
    /// Check point `k` (index into [`PolicyInput::checks`]).
    Check(u32),
    /// A `step/start` read (its cursor): the surface the next anchor's `S0` is.
    StepStart(u32),
    /// An `assistant/message`, a `turn/end` or a `turn/start`: the overflow recoveries in a
    /// row start again from 0 (docs/policy.md; a `turn/start` because the turn before it
    /// has ended even when its `turn/end` is missing).
    OverflowReset,
    /// A usage anchor set at `cursor − 1`: `ratio` is the provider's reported input over the
    /// meter's estimate of it (1 for an estimated anchor).
    Anchor {
        /// The cursor just after the `assistant/message`.
        cursor: u32,
        /// Reported input / the meter's estimate.
        ratio: f64,
    },
    /// A model request whose messages were fixed at this cursor.
    Request(u32),
}

/// The replay's input for one log.
#[derive(Clone, Debug, Default)]
pub struct PolicyInput {
    /// The stream, in log order.
    pub(super) items: Vec<Item>,
    /// Every check point, in log order.
    pub(super) checks: Vec<CheckPoint>,
    /// `(event, price)` of every summary message the log applied.
    pub(super) summary_prices: Vec<u64>,
    /// At every agent call with usage, its reported prompt over the meter's estimate of the
    /// same request (unclamped), in log order: the what-if's observed spread.
    pub(super) prompt_ratios: Vec<f64>,
    /// When an older harness than the HEAD one whose policy is modelled wrote the log, or may
    /// have (nothing in it is newer than that era): the era in words.
    pub(super) older_era: Option<String>,
    /// Events read.
    pub(super) events: usize,
    /// The retain budget and the pruner the log's compactions bracket: independent of any
    /// setting, so inferred once, by the first replay (the threshold ratio's interval is the
    /// replay's: see [`super::infer`]).
    pub(super) inferred: OnceLock<Inferred>,
}

impl PolicyInput {
    /// Gathers the replay's input: `surface` processed to the end and `meter` built from it.
    pub fn build(log: &EventLog, surface: &Surface, meter: &Meter) -> PolicyInput {
        Self::build_with(
            log,
            surface,
            meter,
            &compactions::scan_compactions(log, false),
        )
    }

    /// [`PolicyInput::build`] with the log's compaction brackets already scanned
    /// (`compactions::scan_compactions(log, _)`: the overflow flags it may add are not read), so
    /// that a caller may scan them once for the input and the cost ledger.
    pub fn build_with(
        log: &EventLog,
        surface: &Surface,
        meter: &Meter,
        scan: &compactions::Scan,
    ) -> PolicyInput {
        Builder::new(log, surface, meter, scan).run()
    }

    /// The check points, in log order.
    pub fn checks(&self) -> &[CheckPoint] {
        &self.checks
    }

    /// The check points at which the log compacted (or tried to), in log order: their count is
    /// the log's own `fired` (a report's `actual_totals.fired`), the first is where the log
    /// first compacted.
    pub fn compacting_checks(&self) -> impl Iterator<Item = &CheckPoint> {
        self.checks.iter().filter(|c| c.log.any())
    }

    /// Events the input covers.
    pub fn events(&self) -> usize {
        self.events
    }

    /// The observed spread of the provider's prompt against the meter's estimate (`None`: no
    /// agent call with usage).
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.prompt_ratios)
    }

    /// The mean price of the log's own summary messages, if it has any.
    pub fn mean_summary_price(&self) -> Option<u64> {
        let n = self.summary_prices.len() as u64;
        (n > 0).then(|| self.summary_prices.iter().sum::<u64>() / n)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Other,
    Header,
    StepStart,
    StepEnd,
    TurnStart,
    TurnEnd,
    Chunk,
    Assistant,
    CompactionStart,
    CompactionSummary,
    CompactionPrune,
    CommandRun,
}

/// Who the compaction events read next belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// The next pressure check (events between step boundaries); the check once it exists.
    Pressure(Option<usize>),
    /// An overflow check.
    Overflow(usize),
    /// A command check.
    Command(usize),
}

struct Builder<'a> {
    log: &'a EventLog,
    surface: &'a Surface,
    meter: &'a Meter,
    out: PolicyInput,
    roles: Vec<Role>,
    /// The log's `assistant/chunk` type, if it has chunks.
    chunk: Option<TypeId>,
    /// Cache lines of an event's line the walk reads, by type: a `step/start` (its turn and
    /// step), a `tool/result` (up to its first `"text":`, when it is a node), a
    /// `command/run`; 0 for every other type.
    line_reads: Vec<usize>,
    brackets: HashMap<u32, usize>,
    prunes: HashMap<u32, usize>,
    scan: &'a compactions::Scan,
    /// The open step's overflow finishes.
    watch: OverflowWatch,
    text_key: memmem::Finder<'static>,
    header_seen: bool,
    step_event: Option<u32>,
    turn_step: (Option<u64>, Option<u64>),
    owner: Owner,
    command_id: Option<String>,
    /// `(message, reported prompt)` of the meter's anchors by message, ascending; the last of
    /// one message's wins. Read in log order: `next_anchor` is the first not yet passed.
    anchors: Vec<(u32, f64)>,
    next_anchor: usize,
    step_start_cursor: u32,
    /// The request cursor of each of the meter's steps, in their order ([`request_cursor`]).
    step_requests: Vec<u32>,
}

impl<'a> Builder<'a> {
    fn new(
        log: &'a EventLog,
        surface: &'a Surface,
        meter: &'a Meter,
        scan: &'a compactions::Scan,
    ) -> Self {
        let roles = log
            .types
            .iter()
            .map(|(id, _)| match log.types.kind(id) {
                EventType::RequestHeader => Role::Header,
                EventType::StepStart => Role::StepStart,
                EventType::StepEnd => Role::StepEnd,
                EventType::TurnStart => Role::TurnStart,
                EventType::TurnEnd => Role::TurnEnd,
                EventType::AssistantChunk => Role::Chunk,
                EventType::AssistantMessage => Role::Assistant,
                EventType::CompactionStart | EventType::CompactStart => Role::CompactionStart,
                EventType::CompactionSummary | EventType::CompactSummary => Role::CompactionSummary,
                EventType::CompactionPrune | EventType::CompactPrune => Role::CompactionPrune,
                EventType::CommandRun => Role::CommandRun,
                _ => Role::Other,
            })
            .collect();
        let line_reads = log
            .types
            .iter()
            .map(|(id, _)| match log.types.kind(id) {
                EventType::StepStart | EventType::CommandRun => 2,
                EventType::ToolResult => 5,
                _ => 0,
            })
            .collect();
        let brackets = scan
            .brackets
            .iter()
            .enumerate()
            .filter_map(|(k, b)| Some((b.anchor?.0, k)))
            .collect();
        let prunes = scan
            .prunes
            .iter()
            .enumerate()
            .map(|(k, p)| (p.event.0, k))
            .collect();
        let mut anchors: Vec<(u32, f64)> = meter
            .anchors()
            .map(|a| {
                let ratio = match (a.kind, a.usage) {
                    (BaselineKind::Usage, Some(u)) => Some(u.prompt() as f64),
                    _ => None,
                };
                (a.message.0, ratio.unwrap_or(f64::NAN))
            })
            .collect();
        anchors.sort_by_key(|&(message, _)| message);
        // Judged by the newest era that could have written it, a log with nothing dated is a
        // HEAD log; but its compactions may still be an older harness's: the lower bound says.
        let older_era = {
            let era = detect_era(log);
            (era.at_least != Era::Head).then(|| era.span())
        };
        Builder {
            log,
            surface,
            meter,
            out: PolicyInput {
                older_era,
                ..PolicyInput::default()
            },
            roles,
            chunk: log.types.id_of(EventType::AssistantChunk),
            line_reads,
            brackets,
            prunes,
            scan,
            // The scan's own search of the whole text, when it made one.
            watch: scan
                .overflow_code_at
                .clone()
                .map_or_else(|| OverflowWatch::over(log), OverflowWatch::from_offsets),
            text_key: memmem::Finder::new(br#""text":"#),
            header_seen: false,
            step_event: None,
            turn_step: (None, None),
            owner: Owner::Pressure(None),
            command_id: None,
            anchors,
            next_anchor: 0,
            step_start_cursor: 0,
            step_requests: Vec::new(),
        }
    }

    fn run(mut self) -> PolicyInput {
        let log = self.log;
        let n = self
            .surface
            .processed()
            .min(log.len())
            .min(self.meter.len());
        // Each step's request cursor, found once: the requests below and the anchors read it.
        self.step_requests = self
            .meter
            .steps()
            .iter()
            .map(|s| request_cursor(log, s, s.start.get() + 1) as u32)
            .collect();
        let mut requests: Vec<u32> = self
            .meter
            .steps()
            .iter()
            .zip(&self.step_requests)
            .filter(|(s, _)| s.start.get() < n)
            .map(|(_, &request)| request)
            .collect();
        requests.sort_unstable();
        // Every node and check is an item: reserve them at once rather than grow the vector
        // a doubling at a time.
        self.out
            .items
            .reserve(self.surface.node_count() + 3 * requests.len());
        let mut requests = requests.into_iter().peekable();
        for i in 0..n {
            // The few events whose lines the walk reads lie far apart in a long log (between
            // them, stream chunks): each would wait for memory. Ask for them a little ahead.
            if let Some(ahead) = (i + READ_AHEAD < n).then_some(EventIdx((i + READ_AHEAD) as u32)) {
                let lines = self.line_reads[self.log.event(ahead).kind.0 as usize];
                if lines > 0 {
                    self.log.prefetch_line(ahead, lines);
                }
            }
            // A stream chunk is never a node (it is not eligible) and makes a check only as an
            // overflow finish: one that cannot be is passed by. It adds no item, so a request
            // at its cursor is pushed before the next event's items all the same.
            let e = log.event(EventIdx(i as u32));
            if Some(e.kind) == self.chunk && !self.watch.chunk_may_finish(e) {
                continue;
            }
            while let Some(&r) = requests.peek()
                && r as usize <= i
            {
                self.out.items.push(Item::Request(r));
                requests.next();
            }
            self.event(EventIdx(i as u32));
        }
        for r in requests {
            self.out.items.push(Item::Request(r));
        }
        self.out.events = n;
        self.out
    }

    fn event(&mut self, idx: EventIdx) {
        let i = idx.0;
        let role = self.roles[self.log.event(idx).kind.0 as usize];
        match role {
            Role::Header => self.header_seen = true,
            Role::StepStart => {
                self.watch.event(self.log, idx, EventType::StepStart);
                self.step_start(idx);
            }
            Role::StepEnd => {
                self.watch.event(self.log, idx, EventType::StepEnd);
                self.boundary();
            }
            Role::TurnEnd => {
                self.watch.event(self.log, idx, EventType::TurnEnd);
                self.boundary();
                self.out.items.push(Item::OverflowReset);
            }
            Role::TurnStart => {
                self.watch.event(self.log, idx, EventType::TurnStart);
                self.boundary();
                self.out.items.push(Item::OverflowReset);
            }
            Role::Assistant => {
                self.watch.event(self.log, idx, EventType::AssistantMessage);
                self.out.items.push(Item::OverflowReset);
                if let Some(ratio) = self.anchor_of(i) {
                    self.anchor(idx, ratio);
                }
                if matches!(self.owner, Owner::Overflow(_)) {
                    self.owner = Owner::Pressure(None);
                }
            }
            Role::Chunk => {
                if self.watch.event(self.log, idx, EventType::AssistantChunk) {
                    let k = self.push_check(CheckKind::Overflow, i + 1, self.step_event);
                    self.owner = Owner::Overflow(k);
                }
            }
            Role::CompactionStart | Role::CompactionSummary => {
                if let Some(&k) = self.brackets.get(&i) {
                    self.bracket(idx, k);
                }
            }
            Role::CompactionPrune => {
                if let Some(&k) = self.prunes.get(&i) {
                    self.prune(idx, k);
                }
            }
            Role::CommandRun => self.command_run(idx),
            Role::Other => {}
        }
        self.effect(idx);
    }

    /// The reported prompt of the anchor at the `assistant/message` `event` (read in log
    /// order), if the meter set one there.
    fn anchor_of(&mut self, event: u32) -> Option<f64> {
        let passed = self.anchors[self.next_anchor..].partition_point(|&(e, _)| e <= event);
        self.next_anchor += passed;
        (passed > 0)
            .then(|| self.anchors[self.next_anchor - 1])
            .filter(|&(e, _)| e == event)
            .map(|(_, ratio)| ratio)
    }

    fn boundary(&mut self) {
        self.owner = Owner::Pressure(None);
        self.command_id = None;
    }

    fn step_start(&mut self, idx: EventIdx) {
        let fields = self.log.with_event_bytes(idx, turn_fields_of_bytes);
        self.turn_step = (fields.turn, fields.step);
        self.step_event = Some(idx.0);
        match self.owner {
            Owner::Pressure(Some(k)) => {
                let check = &mut self.out.checks[k];
                check.event = idx.0;
                (check.turn, check.step) = self.turn_step;
            }
            _ if self.header_seen => {
                self.push_check(CheckKind::Pressure, idx.0, Some(idx.0));
            }
            _ => {}
        }
        self.owner = Owner::Pressure(None);
        self.command_id = None;
        self.step_start_cursor = idx.0 + 1;
        self.out.items.push(Item::StepStart(idx.0 + 1));
    }

    /// A usage anchor at the `assistant/message` `idx`: the provider's reported input over the
    /// meter's estimate of the same request (header and surface when its messages were fixed).
    fn anchor(&mut self, idx: EventIdx, prompt: f64) {
        // The step in force (as `Meter::step_at` finds it), by its position.
        let in_force = self
            .meter
            .steps()
            .partition_point(|s| s.start.get() <= idx.get());
        let fixed = in_force
            .checked_sub(1)
            .map_or(self.step_start_cursor, |k| self.step_requests[k]) as usize;
        let estimate = self.meter.header_price_at(idx.get()) + self.meter.at(fixed).surface;
        let ratio = if prompt.is_nan() || estimate == 0 {
            1.0
        } else {
            let ratio = prompt / estimate as f64;
            self.out.prompt_ratios.push(ratio);
            ratio.clamp(0.1, 10.0)
        };
        self.out.items.push(Item::Anchor {
            cursor: idx.0 + 1,
            ratio,
        });
    }

    fn push_check(&mut self, kind: CheckKind, cursor: u32, step_event: Option<u32>) -> usize {
        let (turn, step) = if step_event.is_some() {
            self.turn_step
        } else {
            (None, None)
        };
        self.out.checks.push(CheckPoint {
            kind,
            cursor,
            event: step_event.unwrap_or(cursor.saturating_sub(1)),
            turn,
            step,
            log: LogCompactions::default(),
        });
        let k = self.out.checks.len() - 1;
        self.out.items.push(Item::Check(k as u32));
        k
    }

    /// The check compaction event `idx` belongs to (made when it is the first).
    fn owner_of(&mut self, idx: EventIdx, command: Option<&str>) -> usize {
        if let Some(id) = command {
            if let (Owner::Command(k), Some(current)) = (self.owner, self.command_id.as_deref())
                && current == id
            {
                return k;
            }
            let k = self.push_check(CheckKind::Command, idx.0, None);
            self.owner = Owner::Command(k);
            self.command_id = Some(id.to_string());
            return k;
        }
        match self.owner {
            Owner::Overflow(k) | Owner::Pressure(Some(k)) | Owner::Command(k) => k,
            Owner::Pressure(None) => {
                let k = self.push_check(CheckKind::Pressure, idx.0, None);
                self.owner = Owner::Pressure(Some(k));
                k
            }
        }
    }

    fn bracket(&mut self, idx: EventIdx, k: usize) {
        let b = &self.scan.brackets[k];
        let command = b.source_command_id().map(str::to_string);
        let replacement = b
            .replace
            .filter(|r| matches!(self.surface.effect(*r), Some(Effect::Replaced(_))));
        let range = b.replace.and_then(|r| match self.log.op(r) {
            SurfaceOp::Replace { start, end } => Some((start, end)),
            _ => None,
        });
        let summary = LogSummary {
            event: idx.0,
            replacement: replacement.map(|r| self.node(r)),
            replace_event: b.replace.map(|r| r.0),
            range,
            ok: replacement.is_some(),
            invalid: b.replace.is_some() && replacement.is_none(),
        };
        let owner = self.owner_of(idx, command.as_deref());
        self.out.checks[owner].log.summaries.push(summary);
    }

    fn prune(&mut self, idx: EventIdx, k: usize) {
        let p = &self.scan.prunes[k];
        let command = p.fields.source_command_id.clone();
        let replacement = p
            .replace
            .filter(|r| matches!(self.surface.effect(*r), Some(Effect::Replaced(_))));
        let target_seq = p
            .replace
            .and_then(|r| match self.log.op(r) {
                SurfaceOp::Replace { start, .. } => Some(start),
                _ => None,
            })
            .or_else(|| p.fields.shadowed_seqs.as_ref()?.first().copied());
        let prune = LogPrune {
            event: idx.0,
            replacement: replacement.map(|r| self.node(r)),
            replace_event: p.replace.map(|r| r.0),
            target_seq,
            invalid: p.replace.is_some() && replacement.is_none(),
        };
        let owner = self.owner_of(idx, command.as_deref());
        self.out.checks[owner].log.prunes.push(prune);
    }

    fn command_run(&mut self, idx: EventIdx) {
        let data = self.log.data_value(idx);
        if data.get("name").and_then(|n| n.as_str()) != Some("compact") {
            return;
        }
        let id = data
            .get("commandId")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        let k = self.push_check(CheckKind::Command, idx.0 + 1, None);
        self.out.checks[k].event = idx.0;
        self.owner = Owner::Command(k);
        self.command_id = Some(id);
    }

    /// The event's surface effect, as a stream item.
    fn effect(&mut self, idx: EventIdx) {
        match self.surface.effect(idx) {
            Some(Effect::Appended) => {
                let node = self.node(idx);
                self.out.items.push(Item::Append(node));
            }
            Some(Effect::Replaced(_)) => {
                let Some(rep) = self.surface.replace_of(idx) else {
                    return;
                };
                let (first, last) = (rep.first.0, rep.last.0);
                let node = self.node(idx);
                let compaction = self.written_by_compaction(idx);
                if compaction && self.log.event_type(idx) != EventType::ToolResult {
                    self.out.summary_prices.push(u64::from(node.price));
                }
                self.out.items.push(Item::Replace {
                    node,
                    first,
                    last,
                    compaction,
                });
            }
            _ => {}
        }
    }

    fn written_by_compaction(&self, idx: EventIdx) -> bool {
        let Some(prev) = idx.0.checked_sub(1) else {
            return false;
        };
        matches!(
            self.roles[self.log.event(EventIdx(prev)).kind.0 as usize],
            Role::CompactionSummary | Role::CompactionPrune
        )
    }

    /// An upper bound of a tool result's code points: the bytes of its line from the first
    /// `"text":` key on (every code point of a text block takes at least one byte there; a
    /// raw `"text":` cannot occur inside a string, where the quotes are escaped), else the
    /// whole line's.
    fn chars_bound(&self, idx: EventIdx, len: u32) -> u32 {
        let from = self.log.find_in_line(idx, &self.text_key).unwrap_or(0);
        len.saturating_sub(from as u32)
    }

    fn node(&self, idx: EventIdx) -> Node {
        let log = self.log;
        let kind = log.event_type(idx);
        let result = kind == EventType::ToolResult;
        // A small result keeps a bound (the exact count is read only when a replay's threshold
        // is below it); a large one, whose count decides prunes at the usual thresholds, is
        // read once here.
        let (chars, chars_exact) = match log.event(idx).text() {
            _ if !result => (0, true),
            EventText::Line { len, .. } if u64::from(len) <= EXACT_ABOVE => {
                (self.chars_bound(idx, len), false)
            }
            _ => (
                tool_result_chars(log, idx).min(u64::from(u32::MAX)) as u32,
                true,
            ),
        };
        Node {
            event: idx.0,
            seq: log.event(idx).seq,
            price: self.meter.price(idx).min(u64::from(u32::MAX)) as u32,
            // Counted by the meter as it priced the message.
            calls: self.meter.tool_calls(idx),
            result,
            chars,
            chars_exact,
        }
    }
}

/// How many events ahead the walk asks for the lines it will read (a `step/start`, a tool
/// result): enough for memory to answer while the events between are walked.
const READ_AHEAD: usize = 48;

/// Tool results whose JSON line is longer than this many bytes have their code points counted
/// when the input is built; shorter ones keep the length as an upper bound.
const EXACT_ABOVE: u64 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    fn point(cursor: u32, step: u64, log: LogCompactions) -> CheckPoint {
        CheckPoint {
            kind: CheckKind::Pressure,
            cursor,
            event: cursor,
            turn: Some(1),
            step: Some(step),
            log,
        }
    }

    #[test]
    fn compacting_checks_are_those_where_the_log_compacted_or_tried_to() {
        let prune = LogCompactions {
            prunes: vec![LogPrune {
                event: 7,
                replacement: None,
                replace_event: None,
                target_seq: Some(5),
                invalid: false,
            }],
            summaries: Vec::new(),
        };
        let failed = LogCompactions {
            prunes: Vec::new(),
            summaries: vec![LogSummary {
                event: 20,
                replacement: None,
                replace_event: None,
                range: None,
                ok: false,
                invalid: false,
            }],
        };
        let input = PolicyInput {
            checks: vec![
                point(3, 1, LogCompactions::default()),
                point(8, 2, prune),
                point(12, 3, LogCompactions::default()),
                point(21, 4, failed),
            ],
            ..PolicyInput::default()
        };
        let steps: Vec<Option<u64>> = input.compacting_checks().map(|c| c.step).collect();
        assert_eq!(steps, [Some(2), Some(4)]);
        assert_eq!(PolicyInput::default().compacting_checks().count(), 0);
    }
}
