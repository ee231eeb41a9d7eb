//! The harness's own token meter (docs/meter.md): message prices, the header in force, the
//! usage anchor, and the measurement the compaction policy compares with its threshold —
//! computed once per log into compact per-event arrays, so that the figure at any replay
//! cursor is a lookup (O(1) per step, forward or back) and live-follow appends cost O(new).
//!
//! The meter reads each event's surface effect from a [`Surface`] processed to the end; it
//! never re-implements the surface rules.

mod anchor;
mod blocks;
mod chunk_line;
mod chunks;
mod findings;
mod header;
mod js_json;
mod price;
mod raw;
pub mod scan;
mod stream;
mod tool_calls;
mod utf16;
mod window;

pub use anchor::{BaselineKind, DeltaKind, Piece, Usage, piece_of_chunk};
pub use blocks::Known;
pub use chunks::{
    RowDeltas, chunk_piece, chunk_piece_fast, chunk_piece_reference, chunk_piece_with,
};
pub use findings::meter_findings;
pub use header::{CONFIG_KEYS, HeaderProblem, RequestHeader};
pub use js_json::{stringified_len as js_stringified_len, stringify as js_stringify};
pub use price::{OVERHEAD, block_price, blocks_price, message_price, text_message_price};
pub use raw::{
    NodeFacts, context_window_of, node_facts, node_price, node_price_fast, node_price_reference,
    usage_of,
};
pub use stream::{Assembler, streamed_price};
pub use tool_calls::tool_call_blocks;
pub use utf16::{ceil4, utf16_len};
pub use window::{BadWindow, context_window as context_window_of_value};

use serde::Serialize;

use super::effect::Effect;
use super::event::{EventIdx, TypeId};
use super::log::EventLog;
use super::surface::{Mode, Surface};
use crate::EventType;
use surface_scan::prefetch::prefetch;

/// The harness's default threshold ratio: compaction pressure starts at 80 % of the window.
pub const DEFAULT_THRESHOLD_RATIO: f64 = 0.8;

/// `⌊window × ratio⌋`.
pub fn threshold(window: u64, ratio: f64) -> u64 {
    (window as f64 * ratio).floor().max(0.0) as u64
}

/// The meter after some event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Figure {
    /// The measurement: what the compaction policy compares with its threshold.
    pub total: u64,
    /// The sum of the node prices on the surface.
    pub surface: u64,
    /// Where the baseline comes from.
    pub baseline_kind: BaselineKind,
    /// The anchor's baseline when the anchor is in use, else the total.
    pub baseline: u64,
}

/// The usage anchor set at an `assistant/message` (docs/meter.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The `assistant/message` that set it.
    pub message: EventIdx,
    /// The header in force then (index into [`Meter::headers`]).
    pub header: Option<u32>,
    /// `S0 + A`: surface tokens at the step's start plus the streamed message's price.
    pub surface: u64,
    /// `P` or `E`, whichever the rule picked.
    pub baseline: u64,
    /// `Usage` when the provider's figure was taken, else `Estimated`.
    pub kind: BaselineKind,
    /// The provider's reported usage, when the message had a readable one.
    pub usage: Option<Usage>,
}

/// A model call: one `step/start` and what the meter saw of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelStep {
    /// The `step/start` event.
    pub start: EventIdx,
    /// The first `assistant/chunk` read while the step was open.
    pub first_chunk: Option<EventIdx>,
    /// The first `assistant/message` read while the step was open.
    pub message: Option<EventIdx>,
}

/// What the meter reads from the events of one range of the log: the message price of each
/// surface-eligible event, its usage, and an `assistant/message`'s streamed price. Reading a
/// range depends on no other event's state, so a caller may read disjoint ranges on several
/// threads and hand the parts, in log order, to [`Meter::build_priced`].
#[derive(Clone, Debug, Default)]
pub struct Prices {
    range: std::ops::Range<usize>,
    /// `(event, facts)` of the surface-eligible events of the range, in log order.
    facts: Vec<(u32, NodeFacts)>,
    /// The events of the range the fold must look at, in log order: every event the meter
    /// reacts to, except stream chunks after the first of a run. The figure after any other
    /// event is the figure before it, so the fold copies it without reading the event.
    marks: Vec<u32>,
}

impl Prices {
    /// Reads the events `range` of `log`.
    pub fn read(log: &EventLog, range: std::ops::Range<usize>) -> Prices {
        let range = range.start.min(log.len())..range.end.min(log.len());
        let kinds = Kinds::of(log);
        let (mut facts, mut marks) = (Vec::new(), Vec::new());
        let mut eligible = Vec::new();
        // Inside a run of stream chunks only the first matters: the others change no figure
        // and the first already marked its step (only a marked event can open another).
        let mut in_chunks = false;
        // A stretch at a time, so that the records of its messages are still in cache when
        // they are priced.
        for start in range.clone().step_by(STRETCH) {
            eligible.clear();
            for i in start..(start + STRETCH).min(range.end) {
                let idx = EventIdx(i as u32);
                let kind = log.event(idx).kind;
                if kinds.is_inert(kind) {
                    continue;
                }
                if Some(kind) == kinds.chunk {
                    if !in_chunks {
                        marks.push(idx.0);
                    }
                    in_chunks = true;
                    continue;
                }
                in_chunks = false;
                marks.push(idx.0);
                if log.types.is_eligible(kind) {
                    eligible.push(idx.0);
                }
            }
            // Messages lie scattered over the log: ask for the text of the ones a few steps
            // ahead while this one is read.
            facts.extend(eligible.iter().enumerate().map(|(k, &e)| {
                if let Some(&ahead) = eligible.get(k + PREFETCH_AHEAD) {
                    prefetch(log.line_text(EventIdx(ahead)), PREFETCH_LINES);
                }
                (e, node_facts(log, EventIdx(e)))
            }));
        }
        Prices {
            range,
            facts,
            marks,
        }
    }

    /// The events read.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.range.clone()
    }
}

/// Events [`Prices::read`] classifies before it prices their messages (their records, 40
/// bytes each, stay in the core's cache in between).
const STRETCH: usize = 2048;

/// How many messages ahead [`Prices::read`] asks for a message's text, and how many cache
/// lines of it.
const PREFETCH_AHEAD: usize = 4;
const PREFETCH_LINES: usize = 16;

/// The meter after one event, packed: 16 bytes, one cache line holds four.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    /// The total (saturating at `u32::MAX`).
    total: u32,
    /// The surface tokens (saturating).
    surface: u32,
    /// The baseline (saturating): the anchor's when it is in use, else the total.
    baseline: u32,
    /// Baseline kind and whether the anchor is in use.
    flags: u8,
}

/// Flag bits of a per-event figure: the baseline kind (two bits) and whether the anchor is in
/// use.
const KIND_MASK: u8 = 0b11;
const ANCHORED: u8 = 0b100;

/// Interned ids of the types the meter reacts to.
#[derive(Clone, Debug, Default)]
struct Kinds {
    header: Option<TypeId>,
    context: Option<TypeId>,
    step_start: Option<TypeId>,
    step_end: Option<TypeId>,
    turn_end: Option<TypeId>,
    chunk: Option<TypeId>,
    assistant: Option<TypeId>,
    /// Per type id: the meter ignores events of this type (not a message, not one of the
    /// above), so the figure after one is the figure before it.
    inert: Vec<bool>,
}

impl Kinds {
    /// True when the meter ignores events of type `kind`.
    fn is_inert(&self, kind: TypeId) -> bool {
        self.inert.get(kind.0 as usize) == Some(&true)
    }

    /// True for the types whose line the fold reads: request headers and contexts.
    fn reads_line(&self, kind: TypeId) -> bool {
        Some(kind) == self.context || Some(kind) == self.header
    }

    fn of(log: &EventLog) -> Self {
        let t = |kind| log.types.id_of(kind);
        let mut kinds = Kinds {
            header: t(EventType::RequestHeader),
            context: t(EventType::RequestContext),
            step_start: t(EventType::StepStart),
            step_end: t(EventType::StepEnd),
            turn_end: t(EventType::TurnEnd),
            chunk: t(EventType::AssistantChunk),
            assistant: t(EventType::AssistantMessage),
            inert: Vec::new(),
        };
        let active = [
            kinds.header,
            kinds.context,
            kinds.step_start,
            kinds.step_end,
            kinds.turn_end,
            kinds.chunk,
            kinds.assistant,
        ];
        kinds.inert = log
            .types
            .iter()
            .map(|(id, _)| !log.types.is_eligible(id) && !active.contains(&Some(id)))
            .collect();
        kinds
    }
}

/// What the meter carries from one event to the next.
#[derive(Clone, Debug, Default)]
struct Running {
    surface: u64,
    nodes: u64,
    header: Option<u32>,
    /// The price of `header`.
    header_price: u64,
    anchor: Option<Anchor>,
    /// The anchor's header equals the header in force.
    anchor_matches: bool,
    /// Surface tokens when the open step's `step/start` was read, and the step's index.
    open_step: Option<(u64, usize)>,
}

/// The meter over a whole log: per-event figures plus the few things that change rarely
/// (headers, windows, anchors, model steps) as change lists.
#[derive(Clone, Debug)]
pub struct Meter {
    mode: Mode,
    /// `(event, price)` of every surface-eligible event, in log order.
    prices: Vec<(u32, u32)>,
    /// `(event, tool-call blocks)` of every `assistant/message` that makes a call, in log
    /// order.
    calls: Vec<(u32, u16)>,
    /// The figure after each event.
    rows: Vec<Row>,
    /// Every distinct header read, in order.
    headers: Vec<RequestHeader>,
    /// `(event, header)`: from just after `event` on, `header` is in force (changes only).
    header_changes: Vec<(u32, Option<u32>)>,
    /// `(event, window)`: from just after `event` on, the context window is `window` (changes
    /// only).
    window_changes: Vec<(u32, u64)>,
    /// `(event, anchor)`: from just after `event` on, `anchor` is the anchor.
    anchors: Vec<(u32, Anchor)>,
    /// Every `step/start`, in log order.
    steps: Vec<ModelStep>,
    run: Running,
}

fn saturate(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Meter {
    fn empty(mode: Mode) -> Self {
        Meter {
            mode,
            prices: Vec::new(),
            calls: Vec::new(),
            rows: Vec::new(),
            headers: Vec::new(),
            header_changes: Vec::new(),
            window_changes: Vec::new(),
            anchors: Vec::new(),
            steps: Vec::new(),
            run: Running::default(),
        }
    }

    /// The meter after every event `surface` has processed (pass a surface processed to the
    /// end, e.g. [`Surface::at_end`]; its cursor does not matter).
    pub fn build(log: &EventLog, surface: &Surface) -> Self {
        let n = Self::measurable(log, surface);
        Meter::build_priced(log, surface, [Prices::read(log, 0..n)])
    }

    /// [`Meter::build`] from prices read beforehand, e.g. range by range on several threads:
    /// `parts` in log order; an event no part covers is read here.
    pub fn build_priced(
        log: &EventLog,
        surface: &Surface,
        parts: impl IntoIterator<Item = Prices>,
    ) -> Self {
        let mut meter = Meter::empty(surface.mode());
        let n = Self::measurable(log, surface);
        meter.reserve_exact(n);
        let kinds = Kinds::of(log);
        for part in parts {
            // Events before the part that no part covered are read here.
            for i in meter.len()..part.range.start.min(n) {
                meter.process(log, surface, &kinds, EventIdx(i as u32), None);
            }
            let end = part.range.end.min(n);
            let mut facts = part.facts.into_iter().peekable();
            for (k, i) in part.marks.iter().map(|&m| m as usize).enumerate() {
                if i >= end {
                    break;
                }
                // The fold reads a few of these events (contexts, headers): ask for them early.
                if let Some(&ahead) = part.marks.get(k + PREFETCH_AHEAD)
                    && kinds.reads_line(log.event(EventIdx(ahead)).kind)
                {
                    prefetch(log.line_text(EventIdx(ahead)), 1);
                }
                if i < meter.len() {
                    continue;
                }
                meter.repeat_to(log, surface, &kinds, i);
                while facts.next_if(|&(e, _)| (e as usize) < i).is_some() {}
                let read = facts.next_if(|&(e, _)| e as usize == i).map(|(_, f)| f);
                meter.process(log, surface, &kinds, EventIdx(i as u32), read);
            }
            meter.repeat_to(log, surface, &kinds, end);
        }
        for i in meter.len()..n {
            meter.process(log, surface, &kinds, EventIdx(i as u32), None);
        }
        meter
    }

    /// How many events the meter can measure: those `surface` has processed.
    fn measurable(log: &EventLog, surface: &Surface) -> usize {
        surface.processed().min(log.len())
    }

    /// Takes in events appended to `log` (live follow) once `surface` has processed them
    /// ([`Surface::catch_up`]): O(new events). A surface that was rebuilt (a legacy log turned
    /// into a surface log) rebuilds the meter.
    pub fn catch_up(&mut self, log: &EventLog, surface: &Surface) {
        let n = Self::measurable(log, surface);
        if surface.mode() != self.mode || n < self.len() {
            *self = Meter::build(log, surface);
            return;
        }
        let kinds = Kinds::of(log);
        for i in self.len()..n {
            self.process(log, surface, &kinds, EventIdx(i as u32), None);
        }
    }

    fn reserve_exact(&mut self, n: usize) {
        self.rows.reserve_exact(n);
    }

    /// Number of events measured.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True before any event was measured.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Bytes the per-event figures and the price list hold on the heap (the change lists are
    /// a few entries per model step and left out).
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>()
            + self.prices.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.calls.capacity() * std::mem::size_of::<(u32, u16)>()
    }

    // --- Reading ------------------------------------------------------------------------

    /// The figure after the first `cursor` events (cursor 0: nothing read yet). O(1).
    #[inline]
    pub fn at(&self, cursor: usize) -> Figure {
        let Some(row) = cursor
            .min(self.len())
            .checked_sub(1)
            .and_then(|i| self.rows.get(i))
        else {
            return Figure::default();
        };
        let total = u64::from(row.total);
        let baseline_kind = match row.flags & KIND_MASK {
            0 => BaselineKind::None,
            1 => BaselineKind::Estimated,
            _ => BaselineKind::Usage,
        };
        Figure {
            total,
            surface: u64::from(row.surface),
            baseline_kind,
            baseline: u64::from(row.baseline),
        }
    }

    /// The total after event `i` (for a curve over the whole log; 0 past the end).
    pub fn total_after(&self, i: usize) -> u32 {
        self.rows.get(i).map_or(0, |r| r.total)
    }

    /// The message price of an eligible event (0 for events that are not messages). O(log n).
    pub fn price(&self, idx: EventIdx) -> u64 {
        self.prices
            .binary_search_by_key(&idx.0, |&(e, _)| e)
            .map_or(0, |k| u64::from(self.prices[k].1))
    }

    /// The `tool-call` blocks of the `assistant/message` at `idx` (docs/policy.md's
    /// pairing count; 0 for any other event). O(log calls).
    pub fn tool_calls(&self, idx: EventIdx) -> u16 {
        self.calls
            .binary_search_by_key(&idx.0, |&(e, _)| e)
            .map_or(0, |k| self.calls[k].1)
    }

    /// Every distinct request header read.
    pub fn headers(&self) -> &[RequestHeader] {
        &self.headers
    }

    /// The header in force after the first `cursor` events.
    pub fn header_at(&self, cursor: usize) -> Option<&RequestHeader> {
        let k = self
            .header_changes
            .partition_point(|&(e, _)| (e as usize) < cursor);
        let id = self.header_changes.get(k.checked_sub(1)?)?.1?;
        self.headers.get(id as usize)
    }

    /// The header price after the first `cursor` events (0 without a header).
    pub fn header_price_at(&self, cursor: usize) -> u64 {
        self.header_at(cursor).map_or(0, RequestHeader::price)
    }

    /// The context window in force after the first `cursor` events.
    pub fn window_at(&self, cursor: usize) -> Option<u64> {
        let k = self
            .window_changes
            .partition_point(|&(e, _)| (e as usize) < cursor);
        Some(self.window_changes.get(k.checked_sub(1)?)?.1)
    }

    /// Every window change: `(event, window)`, in log order.
    pub fn window_changes(&self) -> &[(u32, u64)] {
        &self.window_changes
    }

    /// The threshold in force after the first `cursor` events, at `ratio`.
    pub fn threshold_at(&self, cursor: usize, ratio: f64) -> Option<u64> {
        self.window_at(cursor).map(|w| threshold(w, ratio))
    }

    /// The anchor set last among the first `cursor` events.
    pub fn anchor_at(&self, cursor: usize) -> Option<&Anchor> {
        let k = self
            .anchors
            .partition_point(|&(e, _)| (e as usize) < cursor);
        Some(&self.anchors.get(k.checked_sub(1)?)?.1)
    }

    /// Every anchor, in log order.
    pub fn anchors(&self) -> impl Iterator<Item = &Anchor> {
        self.anchors.iter().map(|(_, a)| a)
    }

    /// The anchors set by events at indices `events` (two binary searches: the anchors are in
    /// log order), for views that show part of a long log.
    pub fn anchors_in(&self, events: std::ops::Range<usize>) -> impl Iterator<Item = &Anchor> {
        let at = |i: usize| self.anchors.partition_point(|(e, _)| (*e as usize) < i);
        let (from, to) = (at(events.start), at(events.end.max(events.start)));
        self.anchors[from..to].iter().map(|(_, a)| a)
    }

    /// Every model step (`step/start`), in log order.
    pub fn steps(&self) -> &[ModelStep] {
        &self.steps
    }

    /// The last model step whose `step/start` is among the first `cursor` events.
    pub fn step_at(&self, cursor: usize) -> Option<&ModelStep> {
        let k = self.steps.partition_point(|s| s.start.get() < cursor);
        self.steps.get(k.checked_sub(1)?)
    }

    /// Index of the model step `step` in [`Meter::steps`].
    pub fn step_position(&self, step: &ModelStep) -> Option<usize> {
        self.steps
            .binary_search_by_key(&step.start, |s| s.start)
            .ok()
    }

    /// What the total would be after the first `cursor` events if the surface tokens were
    /// `surface` instead (a proposed replace), under the same header and anchor.
    pub fn total_with_surface(&self, cursor: usize, surface: u64) -> u64 {
        let Some(row) = cursor
            .min(self.len())
            .checked_sub(1)
            .and_then(|i| self.rows.get(i))
        else {
            return surface;
        };
        if row.flags & ANCHORED != 0
            && let Some(a) = self.anchor_at(cursor)
        {
            return (a.baseline + surface).saturating_sub(a.surface);
        }
        self.header_price_at(cursor) + surface
    }

    // --- Building -----------------------------------------------------------------------

    /// Measures the events up to `end` that [`Prices`] did not mark: each leaves the figure as
    /// it was (the first event of the log, with no figure before it, is measured).
    fn repeat_to(&mut self, log: &EventLog, surface: &Surface, kinds: &Kinds, end: usize) {
        if self.rows.is_empty() && end > 0 {
            self.process(log, surface, kinds, EventIdx(0), None);
        }
        if let Some(&last) = self.rows.last()
            && self.rows.len() < end
        {
            self.rows.resize(end, last);
        }
    }

    /// Measures event `idx`; `read` is what [`Prices`] read of it (read here when `None`).
    fn process(
        &mut self,
        log: &EventLog,
        surface: &Surface,
        kinds: &Kinds,
        idx: EventIdx,
        read: Option<NodeFacts>,
    ) {
        let kind = log.event(idx).kind;
        if kinds.is_inert(kind)
            && let Some(&last) = self.rows.last()
        {
            self.rows.push(last);
            return;
        }
        if Some(kind) == kinds.chunk
            && let Some(&last) = self.rows.last()
        {
            // A stream chunk changes no figure; it only marks its step's first chunk.
            if let Some((_, k)) = self.run.open_step {
                let step = &mut self.steps[k];
                step.first_chunk = step.first_chunk.or(Some(idx));
            }
            self.rows.push(last);
            return;
        }
        let kind = Some(kind);
        let facts = match read {
            Some(f) => f,
            None if log.is_eligible(idx) => node_facts(log, idx),
            None => NodeFacts::default(),
        };
        let price = facts.price;
        if log.is_eligible(idx) {
            self.prices.push((idx.0, saturate(price)));
            if facts.calls > 0 {
                self.calls.push((idx.0, facts.calls));
            }
        }
        match surface.effect(idx) {
            Some(Effect::Appended) => {
                self.run.surface += price;
                self.run.nodes += 1;
            }
            Some(Effect::Replaced(_)) => {
                if let Some(rep) = surface.replace_of(idx) {
                    let left: u64 = surface
                        .shadowed_nodes(rep)
                        .iter()
                        .map(|&n| self.price(n))
                        .sum();
                    self.run.surface = self.run.surface.saturating_sub(left) + price;
                    self.run.nodes = self.run.nodes.saturating_sub(u64::from(rep.count)) + 1;
                }
            }
            _ => {}
        }
        if kind == kinds.header {
            self.read_header(log, idx);
        } else if kind == kinds.context {
            if let Ok(Some(window)) = raw::context_window_of(log, idx)
                && self.window_changes.last().map(|w| w.1) != Some(window)
            {
                self.window_changes.push((idx.0, window));
            }
        } else if kind == kinds.step_start {
            self.steps.push(ModelStep {
                start: idx,
                first_chunk: None,
                message: None,
            });
            self.run.open_step = Some((self.run.surface, self.steps.len() - 1));
        } else if kind == kinds.step_end || kind == kinds.turn_end {
            self.run.open_step = None;
        } else if kind == kinds.chunk {
            if let Some((_, k)) = self.run.open_step {
                let step = &mut self.steps[k];
                step.first_chunk = step.first_chunk.or(Some(idx));
            }
        } else if kind == kinds.assistant
            && let Some((s0, k)) = self.run.open_step
        {
            let step = &mut self.steps[k];
            step.message = step.message.or(Some(idx));
            self.set_anchor(idx, s0, &facts);
        }
        self.measure(idx);
    }

    fn read_header(&mut self, log: &EventLog, idx: EventIdx) {
        let (header, _) = RequestHeader::from_data(&log.data_value(idx));
        let id = header.map(|h| {
            match self.headers.last() {
                Some(last) if *last == h => {}
                _ => self.headers.push(h),
            }
            self.headers.len() as u32 - 1
        });
        if self.header_changes.last().map(|h| h.1) != Some(id) {
            self.header_changes.push((idx.0, id));
        }
        self.run.header = id;
        self.run.header_price = id
            .and_then(|h| self.headers.get(h as usize))
            .map_or(0, RequestHeader::price);
        self.run.anchor_matches = self
            .run
            .anchor
            .is_some_and(|a| self.same_request(a.header, id));
    }

    fn same_request(&self, a: Option<u32>, b: Option<u32>) -> bool {
        let get = |id: Option<u32>| id.and_then(|i| self.headers.get(i as usize));
        match (get(a), get(b)) {
            (None, None) => true,
            (Some(x), Some(y)) => x.same_request(y),
            _ => false,
        }
    }

    fn set_anchor(&mut self, idx: EventIdx, s0: u64, facts: &NodeFacts) {
        let header = self.run.header;
        let header_price = self.run.header_price;
        // The streamed message is priced when the message has usage and a header is in
        // force; else (and without cited chunks) the message's own price.
        let streamed = match (header, facts.streamed) {
            (Some(_), Some(a)) => a,
            _ => facts.price,
        };
        let usage = facts.usage;
        let estimate = header_price + s0 + streamed;
        let (baseline, kind) = match usage {
            Some(u) if header.is_some() && u.total() >= estimate => {
                (u.total(), BaselineKind::Usage)
            }
            _ => (estimate, BaselineKind::Estimated),
        };
        let anchor = Anchor {
            message: idx,
            header,
            surface: s0 + streamed,
            baseline,
            kind,
            usage,
        };
        self.anchors.push((idx.0, anchor));
        self.run.anchor = Some(anchor);
        self.run.anchor_matches = true;
    }

    fn measure(&mut self, idx: EventIdx) {
        let run = &self.run;
        let (total, flags) = match run.anchor {
            Some(a) if run.anchor_matches => (
                (a.baseline + run.surface).saturating_sub(a.surface),
                a.kind as u8 | ANCHORED,
            ),
            _ if run.header.is_none() && run.nodes == 0 => (0, BaselineKind::None as u8),
            _ => (
                run.header_price + run.surface,
                BaselineKind::Estimated as u8,
            ),
        };
        debug_assert_eq!(self.rows.len(), idx.get());
        let baseline = match run.anchor {
            Some(a) if flags & ANCHORED != 0 => a.baseline,
            _ => total,
        };
        self.rows.push(Row {
            total: saturate(total),
            surface: saturate(run.surface),
            baseline: saturate(baseline),
            flags,
        });
    }
}
