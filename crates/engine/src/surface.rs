//! The surface engine (docs/format.md): mode detection, append, positional replace with
//! validation, delta processing, and a replay cursor with O(1) undo.
//!
//! Processing an event is deterministic, so its [`Effect`] is computed once, the first time
//! the cursor passes it, and kept. Moving the cursor over already processed events only
//! re-applies or undoes link splices (O(1) each). Moving it past the processed prefix is
//! delta processing: only the new events are examined.
//!
//! Memory: the only per-event state is the effect, packed in a `u32` (`effect_slot.rs`). The
//! events that become surface nodes (a few percent of a real log: most events are streamed
//! chunks) get dense *node numbers* in the order they are first processed; the links
//! (`prev`/`next`/order label), the shadowing replace and the node's event index are per-node
//! arrays over those numbers, and checkpoints hold node numbers. An appended event's slot
//! holds its node number, a replace's slot its index in the replace table (which holds its
//! node number). So the surface costs 4 bytes per event plus 20 per node, up to 4 more per
//! shadowed node, and the replace table (see [`Surface::heap_bytes`] and
//! `docs/performance.md`). Node numbers past 2^30 spill to a side table (`effect_slot.rs`).
//!
//! Long jumps go through checkpoints: a copy of the surface's node list, taken every
//! [`CHECKPOINT_EVERY`] list changes or every "surface length" changes, whichever is more.
//! A jump restores the nearest checkpoint at or before its target (O(surface length)) and
//! re-applies the few changes after it, so its cost does not grow with the distance or the
//! log; the checkpoints never hold more nodes than there were list changes (see
//! `docs/performance.md`).

use super::effect::{AppliedReplace, Effect, EventState, RejectReason};
use super::effect_slot::{EffectSlots, ListChange, Unpacked};
use super::event::{EventIdx, SurfaceOp};
use super::links::{Links, NIL};
use super::log::EventLog;

/// Whether the log uses surface markers at all (docs/format.md#the-surface-rule-by-rule, rule 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Some eligible event carries a `surfaceOp`: rules 2–6 apply.
    Surface,
    /// No eligible event carries a `surfaceOp`: every eligible event is a node, in log order.
    Legacy,
}

impl Mode {
    /// `"surface"` or `"legacy"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Surface => "surface",
            Mode::Legacy => "legacy",
        }
    }

    /// The mode of a whole log (docs/check.md#fine-print, item 2).
    pub fn of(log: &EventLog) -> Mode {
        Mode::of_range(log, 0, log.len())
    }

    fn of_range(log: &EventLog, from: usize, to: usize) -> Mode {
        let marked = log.events[from..to]
            .iter()
            .any(|e| log.types.is_eligible(e.kind) && e.op() != super::event::OpSlot::None);
        if marked { Mode::Surface } else { Mode::Legacy }
    }
}

/// Why a proposed replace cannot be applied at the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplaceCheck {
    /// The start node, when it is on the surface.
    pub first: Option<EventIdx>,
    /// The end node, when it is on the surface.
    pub last: Option<EventIdx>,
}

impl ReplaceCheck {
    /// The rejection, if any, on `surface` (the one the check was made on).
    pub fn problem(&self, surface: &Surface) -> Option<RejectReason> {
        match (self.first, self.last) {
            (Some(f), Some(l)) => {
                (surface.label(f) > surface.label(l)).then_some(RejectReason::OutOfOrder)
            }
            (f, l) => Some(RejectReason::EndpointsOff {
                start_off: f.is_none(),
                end_off: l.is_none(),
            }),
        }
    }
}

/// A checkpoint is taken after at least this many list changes (more when the surface is
/// longer, so that copies never outweigh the changes they skip).
pub const CHECKPOINT_EVERY: usize = 512;

/// The node list (node numbers) after the first `changes` list changes, stored in
/// `Surface::checkpoint_nodes[start..]` up to the next checkpoint's `start`.
#[derive(Clone, Copy, Debug)]
struct Checkpoint {
    changes: u32,
    start: u32,
}

/// The surface of one log at a replay cursor.
#[derive(Clone, Debug)]
pub struct Surface {
    mode: Mode,
    /// Effects of the processed prefix, indexed by event index: 4 bytes each.
    effects: EffectSlots,
    /// Applied replaces, indexed by [`Effect::Replaced`].
    replaces: Vec<AppliedReplace>,
    /// Node number → its event index. Node numbers go, in log order, to exactly the events
    /// that change the list (appends and applied replaces), so this is also the list of list
    /// changes (change `k` is node `k`): a jump applies or undoes only these, skipping the
    /// log-only majority.
    node_event: Vec<u32>,
    /// Node number → the event index of the replace that shadows it, or `NIL`.
    shadowed_by: Vec<u32>,
    /// The nodes each applied replace shadowed, in surface order, back to back (a node is
    /// shadowed at most once, so this never exceeds the log length).
    shadow_list: Vec<EventIdx>,
    /// Checkpoints in change order (the empty list before the first change is implicit).
    checkpoints: Vec<Checkpoint>,
    /// The checkpoints' node lists (node numbers), back to back.
    checkpoint_nodes: Vec<u32>,
    /// The minimum number of list changes between checkpoints.
    checkpoint_every: usize,
    links: Links,
    /// Number of events applied (the cursor is "after the first `cursor` events").
    cursor: usize,
}

/// The node number of processed event `i`, if it became a node (a free function so that
/// callers can hold other fields mutably).
#[inline]
fn node_in(effects: &EffectSlots, replaces: &[AppliedReplace], i: usize) -> Option<u32> {
    match effects.list_change(i) {
        ListChange::Appended(node) => Some(node),
        ListChange::Replaced(replace) => replaces.get(replace as usize).map(|r| r.node),
        ListChange::None => None,
    }
}

impl Surface {
    /// An empty surface for `log` with the cursor at the start. Nothing is processed yet.
    pub fn new(log: &EventLog) -> Self {
        Surface {
            mode: Mode::of(log),
            effects: EffectSlots::default(),
            replaces: Vec::new(),
            node_event: Vec::new(),
            shadowed_by: Vec::new(),
            shadow_list: Vec::new(),
            checkpoints: Vec::new(),
            checkpoint_nodes: Vec::new(),
            checkpoint_every: CHECKPOINT_EVERY,
            links: Links::new(),
            cursor: 0,
        }
    }

    /// An empty surface like [`Surface::new`] whose checkpoints are taken at least every
    /// `every` list changes (at least 1) instead of [`CHECKPOINT_EVERY`]: for tests that
    /// exercise checkpoints on short logs, and for tuning.
    pub fn with_checkpoint_every(log: &EventLog, every: usize) -> Self {
        Surface {
            checkpoint_every: every.max(1),
            ..Surface::new(log)
        }
    }

    /// An empty surface whose effect slots spill numbers from `limit` on (instead of from
    /// 2^30), so that tests reach the side table on small logs.
    #[cfg(test)]
    fn with_spill_limit(log: &EventLog, every: usize, limit: u32) -> Self {
        Surface {
            effects: EffectSlots::with_limit(limit),
            ..Surface::with_checkpoint_every(log, every)
        }
    }

    /// The surface at the end of `log` (processes every event).
    pub fn at_end(log: &EventLog) -> Self {
        let mut s = Surface::new(log);
        s.seek(log, log.len());
        s
    }

    /// The surface at `seq` ("after every event with seq ≤ SEQ"), or at the end for `None`.
    pub fn at_seq(log: &EventLog, seq: Option<u64>) -> Self {
        let mut s = Surface::new(log);
        s.seek(log, seq.map_or(log.len(), |q| log.cursor_for_seq(q)));
        s
    }

    /// The log's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The cursor: the number of events applied.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// How many events have been processed (the delta-processing watermark).
    pub fn processed(&self) -> usize {
        self.effects.len()
    }

    /// Number of surface nodes at the cursor.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True when the surface at the cursor is empty.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The event of node number `node`.
    pub(crate) fn event_of(&self, node: u32) -> EventIdx {
        EventIdx(self.node_event[node as usize])
    }

    /// The node number of a processed event, if it became a node.
    fn node_of(&self, idx: EventIdx) -> Option<u32> {
        node_in(&self.effects, &self.replaces, idx.get())
    }

    /// The order label of a node (labels increase along the surface; 0 for a non-node).
    fn label(&self, idx: EventIdx) -> u32 {
        self.node_of(idx).map_or(0, |n| self.links.label(n))
    }

    /// The surface nodes at the cursor, in order.
    pub fn nodes(&self) -> impl Iterator<Item = EventIdx> + '_ {
        self.links.iter().map(|n| self.event_of(n))
    }

    /// The node after `node` on the surface at the cursor (only meaningful while `node` is
    /// on the surface).
    pub fn next_node(&self, node: EventIdx) -> Option<EventIdx> {
        let n = self.node_of(node)?;
        self.links.next(n).map(|m| self.event_of(m))
    }

    /// The node before `node` on the surface at the cursor (only meaningful while `node` is
    /// on the surface).
    pub fn prev_node(&self, node: EventIdx) -> Option<EventIdx> {
        let n = self.node_of(node)?;
        self.links.prev(n).map(|m| self.event_of(m))
    }

    /// The first node.
    pub fn first_node(&self) -> Option<EventIdx> {
        self.links.head().map(|n| self.event_of(n))
    }

    /// The last node.
    pub fn last_node(&self) -> Option<EventIdx> {
        self.links.tail().map(|n| self.event_of(n))
    }

    /// The processed effect of an event, if the cursor has ever passed it.
    pub fn effect(&self, idx: EventIdx) -> Option<Effect> {
        self.effects.get(idx.get()).map(Unpacked::effect)
    }

    /// Number of events that ever became nodes over the processed prefix (on the surface at
    /// the cursor or not).
    pub fn node_count(&self) -> usize {
        self.node_event.len()
    }

    /// Heap bytes the surface holds, by capacity: 4 per processed event plus the per-node
    /// arrays, the replace table, shadow lists and checkpoints.
    pub fn heap_bytes(&self) -> usize {
        let replaces = self.replaces.capacity() * std::mem::size_of::<AppliedReplace>()
            + self
                .replaces
                .iter()
                .map(|r| r.missing_sources.capacity() * 8)
                .sum::<usize>();
        self.effects.heap_bytes()
            + replaces
            + (self.node_event.capacity()
                + self.shadowed_by.capacity()
                + self.shadow_list.capacity())
                * 4
            + self.links.heap_bytes()
            + self.checkpoint_bytes()
    }

    /// Every applied replace (over the processed prefix).
    pub fn applied_replaces(&self) -> &[AppliedReplace] {
        &self.replaces
    }

    /// The applied replace behind an event, if it is one.
    pub fn replace_of(&self, idx: EventIdx) -> Option<&AppliedReplace> {
        match self.effect(idx)? {
            Effect::Replaced(r) => self.replaces.get(r as usize),
            _ => None,
        }
    }

    /// The nodes an applied replace shadowed, in surface order, wherever the cursor is.
    pub fn shadowed_nodes(&self, rep: &AppliedReplace) -> &[EventIdx] {
        let start = rep.shadowed_start as usize;
        self.shadow_list
            .get(start..start + rep.count as usize)
            .unwrap_or(&[])
    }

    /// The state of an event at the cursor, in O(1).
    pub fn state(&self, idx: EventIdx) -> EventState {
        let i = idx.get();
        if i >= self.cursor {
            return EventState::NotReached;
        }
        let node = match self.effects.list_change(i) {
            ListChange::Appended(node) => node,
            ListChange::Replaced(replace) => self.replaces[replace as usize].node,
            ListChange::None => {
                return match self.effects.get(i) {
                    Some(Unpacked::MissingOp) => EventState::MissingOp,
                    Some(Unpacked::Rejected(r)) => EventState::Invalid(r),
                    _ => EventState::LogOnly,
                };
            }
        };
        let by = self.shadowed_by[node as usize];
        if by != NIL && (by as usize) < self.cursor {
            EventState::Shadowed { by: EventIdx(by) }
        } else {
            EventState::OnSurface
        }
    }

    /// True when `idx` is a node of the surface at the cursor.
    pub fn is_on_surface(&self, idx: EventIdx) -> bool {
        self.state(idx) == EventState::OnSurface
    }

    /// Checks a replace of `start..=end` (by seq) against the surface at the cursor.
    pub fn check_replace(&self, log: &EventLog, start: u64, end: u64) -> ReplaceCheck {
        let on = |seq: u64| log.find_seq(seq).filter(|&i| self.is_on_surface(i));
        ReplaceCheck {
            first: on(start),
            last: on(end),
        }
    }

    /// The order problem of a checked replace, if any.
    pub fn replace_problem(&self, check: &ReplaceCheck) -> Option<RejectReason> {
        check.problem(self)
    }

    /// The nodes from `first` through `last` at the cursor (both on the surface, in order).
    pub fn chain(&self, first: EventIdx, last: EventIdx) -> Vec<EventIdx> {
        let (Some(f), Some(l)) = (self.node_of(first), self.node_of(last)) else {
            return vec![first];
        };
        self.links
            .chain(f, l)
            .into_iter()
            .map(|n| self.event_of(n))
            .collect()
    }

    // --- Cursor movement --------------------------------------------------------------

    /// Moves the cursor to `target` (clamped to the log length): forward by applying
    /// (processing events never seen before), backward by O(1) undo per event.
    pub fn seek(&mut self, log: &EventLog, target: usize) {
        let target = target.min(log.len());
        if self.mode == Mode::Legacy
            && self.processed() < target
            && Mode::of_range(log, self.processed(), target) == Mode::Surface
        {
            // New events turned a legacy log into a surface log: a wholesale change.
            self.rebuild(log);
        }
        let first_build = self.processed() == 0 && target > 0;
        if target > self.processed() {
            // The first build sizes the per-event slots exactly (no slack at a million
            // events); later deltas grow them amortized, so that a delta costs O(new events).
            let n = target - self.processed();
            if first_build {
                self.effects.reserve_exact(n);
            } else {
                self.effects.reserve(n);
            }
        }
        // Over the processed prefix, only list-changing events need re-applying or undoing.
        let replayed = target.min(self.processed());
        if replayed != self.cursor {
            self.replay_to(replayed);
        }
        while self.cursor < target {
            self.step_forward(log);
        }
        if first_build {
            self.fit_node_arrays();
        }
    }

    /// Gives the per-node arrays back their growth slack (after the first build: its node
    /// count is only known at the end). O(nodes); later deltas grow them amortized again.
    fn fit_node_arrays(&mut self) {
        self.links.shrink_to_fit();
        self.node_event.shrink_to_fit();
        self.shadowed_by.shrink_to_fit();
        self.shadow_list.shrink_to_fit();
        self.replaces.shrink_to_fit();
        self.checkpoints.shrink_to_fit();
        self.checkpoint_nodes.shrink_to_fit();
    }

    /// Runs `change` on the node list with the processed history it reads (the list taken out
    /// for the while: a few words moved, nothing copied).
    fn change_links(&mut self, change: impl FnOnce(&Jumps<'_>, &mut Links)) {
        let mut links = std::mem::take(&mut self.links);
        change(&self.jumps(), &mut links);
        self.links = links;
    }

    /// The processed history a jump reads (for the surface's own cursor and a
    /// [`crate::Revisit`]).
    pub(crate) fn jumps(&self) -> Jumps<'_> {
        Jumps {
            effects: &self.effects,
            replaces: &self.replaces,
            node_event: &self.node_event,
            shadow_list: &self.shadow_list,
            checkpoints: &self.checkpoints,
            checkpoint_nodes: &self.checkpoint_nodes,
        }
    }

    /// The node list at the cursor (for a [`crate::Revisit`] to start from).
    pub(crate) fn links(&self) -> &Links {
        &self.links
    }

    /// Moves the cursor to `target` within the processed prefix (see [`Jumps::move_list`]).
    fn replay_to(&mut self, target: usize) {
        let from = self.cursor;
        self.change_links(|jumps, links| jumps.move_list(links, from, target));
        self.cursor = target;
    }

    /// Takes a checkpoint when enough list changes happened since the last one.
    fn maybe_checkpoint(&mut self) {
        let last = self.checkpoints.last().map_or(0, |c| c.changes as usize);
        if self.node_event.len() - last < self.checkpoint_every.max(self.links.len()) {
            return;
        }
        self.checkpoints.push(Checkpoint {
            changes: self.node_event.len() as u32,
            start: self.checkpoint_nodes.len() as u32,
        });
        self.checkpoint_nodes.extend(self.links.iter());
    }

    /// Bytes held by checkpoints (for the memory figures in `docs/performance.md`).
    pub fn checkpoint_bytes(&self) -> usize {
        self.checkpoints.capacity() * std::mem::size_of::<Checkpoint>()
            + self.checkpoint_nodes.capacity() * 4
    }

    /// Moves the cursor to "after every event with seq ≤ `seq`".
    pub fn seek_seq(&mut self, log: &EventLog, seq: u64) {
        self.seek(log, log.cursor_for_seq(seq));
    }

    /// Brings the surface up to date with events appended to `log` since it was last read,
    /// processing only those (delta processing). The cursor stays where it was unless it
    /// was at the end, in which case it follows the end.
    pub fn catch_up(&mut self, log: &EventLog) {
        let follow = self.cursor == self.processed();
        let keep = self.cursor;
        self.seek(log, log.len());
        if !follow {
            self.seek(log, keep);
        }
    }

    /// Forgets everything and starts over at cursor 0 (after a wholesale log change).
    pub fn rebuild(&mut self, log: &EventLog) {
        *self = Surface {
            effects: EffectSlots::with_limit(self.effects.limit()),
            ..Surface::with_checkpoint_every(log, self.checkpoint_every)
        };
    }

    /// Applies the event at the cursor and advances it. Returns false at the end.
    pub fn step_forward(&mut self, log: &EventLog) -> bool {
        if self.cursor >= log.len() {
            return false;
        }
        let i = self.cursor;
        if i == self.effects.len() {
            self.process_next(log);
        } else {
            self.redo(i);
            self.cursor += 1;
        }
        true
    }

    /// Processes the event at the cursor, the first time the cursor passes it (kept out of
    /// line: replay over the processed prefix is the hot path), applies it and advances.
    #[inline(never)]
    fn process_next(&mut self, log: &EventLog) {
        let i = self.cursor;
        // Numbers a node (a list change) when the event becomes one.
        let effect = self.process(log, EventIdx(i as u32));
        self.effects.push(effect);
        self.redo(i);
        self.cursor += 1;
        if effect.effect().entered() {
            self.maybe_checkpoint();
        }
    }

    /// Undoes the event before the cursor and moves it back. Returns false at the start.
    pub fn step_back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.cursor -= 1;
        self.undo(self.cursor);
        true
    }

    /// Undoes event `i` (the one right before the cursor).
    #[inline]
    fn undo(&mut self, i: usize) {
        match self.effects.list_change(i) {
            ListChange::None => {}
            ListChange::Appended(node) => self.links.undo_append(node),
            ListChange::Replaced(replace) => self.unapply_replace(replace as usize),
        }
    }

    /// Re-applies event `i` (the one at the cursor).
    #[inline]
    fn redo(&mut self, i: usize) {
        match self.effects.list_change(i) {
            ListChange::None => {}
            ListChange::Appended(node) => self.links.append(node),
            ListChange::Replaced(replace) => self.apply_replace(replace as usize),
        }
    }

    /// Splices applied replace `r` into the list (out of line: the step loop stays small).
    #[inline(never)]
    fn apply_replace(&mut self, r: usize) {
        self.change_links(|jumps, links| jumps.apply_replace(links, r));
    }

    /// Splices the nodes applied replace `r` shadowed back in place of its node (out of line,
    /// as above).
    #[inline(never)]
    fn unapply_replace(&mut self, r: usize) {
        self.change_links(|jumps, links| jumps.unapply_replace(links, r));
    }

    /// Numbers a new node for event `idx`.
    fn add_node(&mut self, idx: EventIdx) -> u32 {
        let node = self.links.add_node();
        self.node_event.push(idx.0);
        self.shadowed_by.push(NIL);
        node
    }

    /// Decides the effect of event `idx`, with the cursor right before it at the watermark;
    /// numbers a node when it becomes one.
    fn process(&mut self, log: &EventLog, idx: EventIdx) -> Unpacked {
        let e = log.event(idx);
        let op = log.op(idx);
        if !e.takes_part() {
            return if op.is_present() {
                Unpacked::Rejected(RejectReason::SeqNotIncreasing)
            } else {
                Unpacked::LogOnly
            };
        }
        let eligible = log.types.is_eligible(e.kind);
        if !eligible {
            return if op.is_present() {
                Unpacked::Rejected(RejectReason::NotEligible)
            } else {
                Unpacked::LogOnly
            };
        }
        if self.mode == Mode::Legacy {
            return self.process_append(idx);
        }
        match op {
            SurfaceOp::None => Unpacked::MissingOp,
            SurfaceOp::Malformed(m) => Unpacked::Rejected(RejectReason::Malformed(m)),
            SurfaceOp::Append => self.process_append(idx),
            SurfaceOp::Replace { start, end } => self.process_replace(log, idx, start, end),
        }
    }

    fn process_append(&mut self, idx: EventIdx) -> Unpacked {
        let node = self.add_node(idx);
        self.links.assign_append_label(node);
        Unpacked::Appended { node }
    }

    fn process_replace(&mut self, log: &EventLog, idx: EventIdx, start: u64, end: u64) -> Unpacked {
        let check = self.check_replace(log, start, end);
        if let Some(problem) = self.replace_problem(&check) {
            return Unpacked::Rejected(problem);
        }
        // No problem: both endpoints are on the surface, so both are nodes.
        let endpoints = check.first.zip(check.last).and_then(|(first, last)| {
            Some((first, last, self.node_of(first)?, self.node_of(last)?))
        });
        let Some((first, last, first_node, last_node)) = endpoints else {
            return Unpacked::Rejected(RejectReason::EndpointsOff {
                start_off: true,
                end_off: true,
            });
        };
        let chain = self.links.chain(first_node, last_node);
        let mut cited: Vec<u64> = log.sources(idx).map(|s| s.to_vec()).unwrap_or_default();
        cited.sort_unstable();
        let missing_sources = chain
            .iter()
            .map(|&n| log.events[self.node_event[n as usize] as usize].seq)
            .filter(|seq| cited.binary_search(seq).is_err())
            .collect();
        let node = self.add_node(idx);
        self.links.assign_replace_label(node, first_node);
        let shadowed_start = self.shadow_list.len() as u32;
        for &n in &chain {
            self.shadowed_by[n as usize] = idx.0;
            self.shadow_list.push(EventIdx(self.node_event[n as usize]));
        }
        self.replaces.push(AppliedReplace {
            by: idx,
            first,
            last,
            count: chain.len() as u32,
            shadowed_start,
            missing_sources,
            node,
            first_node,
            last_node,
        });
        Unpacked::Replaced {
            replace: self.replaces.len() as u32 - 1,
        }
    }
}

/// What a jump over the processed prefix reads: everything the surface learned the first time
/// its cursor passed each event. A jump moves only a node list ([`Links`]), so the surface's
/// own cursor and a [`crate::Revisit`] share this code.
pub(crate) struct Jumps<'s> {
    effects: &'s EffectSlots,
    replaces: &'s [AppliedReplace],
    node_event: &'s [u32],
    shadow_list: &'s [EventIdx],
    checkpoints: &'s [Checkpoint],
    checkpoint_nodes: &'s [u32],
}

impl Jumps<'_> {
    /// Number of list changes among the first `cursor` events.
    fn changes_before(&self, cursor: usize) -> usize {
        self.node_event.partition_point(|&i| (i as usize) < cursor)
    }

    /// The node list of checkpoint `k`.
    fn checkpoint_list(&self, k: usize) -> &[u32] {
        let start = self.checkpoints[k].start as usize;
        let end = self
            .checkpoints
            .get(k + 1)
            .map_or(self.checkpoint_nodes.len(), |c| c.start as usize);
        &self.checkpoint_nodes[start..end]
    }

    /// Moves `links`, the list at cursor `from`, to the list at `target` (both within the
    /// processed prefix): by re-applying or undoing the list changes in between, or, when that
    /// is more work, by restoring the nearest checkpoint at or before `target` and re-applying
    /// the changes after it.
    pub(crate) fn move_list(&self, links: &mut Links, from: usize, target: usize) {
        let have = self.changes_before(from);
        let want = self.changes_before(target);
        let direct = have.abs_diff(want);
        // The latest checkpoint at or before `want` (None: the empty list before change 0).
        let k = self
            .checkpoints
            .partition_point(|c| c.changes as usize <= want)
            .checked_sub(1);
        let (restored, restore_len) = k.map_or((0, 0), |k| {
            (
                self.checkpoints[k].changes as usize,
                self.checkpoint_list(k).len(),
            )
        });
        if restore_len + (want - restored) < direct {
            links.restore(k.map_or(&[], |k| self.checkpoint_list(k)));
            self.redo_changes(links, restored, want);
        } else if want > have {
            self.redo_changes(links, have, want);
        } else {
            self.undo_changes(links, want, have);
        }
    }

    /// Re-applies list changes `from..to`. Change `c` is node `c`: the node of the next
    /// applied replace (replaces are in node order) or else an append, so a jump reads
    /// neither the event indices nor the effect slots.
    fn redo_changes(&self, links: &mut Links, from: usize, to: usize) {
        let mut r = self.replaces.partition_point(|x| (x.node as usize) < from);
        for c in from..to {
            if self.replaces.get(r).is_some_and(|x| x.node as usize == c) {
                self.apply_replace(links, r);
                r += 1;
            } else {
                links.append(c as u32);
            }
        }
    }

    /// Undoes list changes `from..to`, last first (see [`Jumps::redo_changes`]).
    fn undo_changes(&self, links: &mut Links, from: usize, to: usize) {
        let mut r = self.replaces.partition_point(|x| (x.node as usize) < to);
        for c in (from..to).rev() {
            if r > 0 && self.replaces[r - 1].node as usize == c {
                r -= 1;
                self.unapply_replace(links, r);
            } else {
                links.undo_append(c as u32);
            }
        }
    }

    /// Splices applied replace `r` into the list.
    fn apply_replace(&self, links: &mut Links, r: usize) {
        let rep = &self.replaces[r];
        links.replace(rep.first_node, rep.last_node, rep.count as usize, rep.node);
    }

    /// Splices the nodes applied replace `r` shadowed back in place of its node.
    fn unapply_replace(&self, links: &mut Links, r: usize) {
        let rep = &self.replaces[r];
        let start = rep.shadowed_start as usize;
        let chain = &self.shadow_list[start..start + rep.count as usize];
        // Shadowed events are nodes by construction.
        let nodes = chain
            .iter()
            .filter_map(|e| node_in(self.effects, self.replaces, e.get()));
        links.undo_replace(nodes, rep.node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log of `n` events where one in `node_every` is a message (an append, or every fifth
    /// one a replace of the three messages before it) and the rest are streamed chunks.
    fn mixed_log(n: u64, node_every: u64) -> EventLog {
        use crate::{EventBatch, EventText, NewEvent};
        let mut batch = EventBatch::default();
        let mut messages: Vec<u64> = Vec::new();
        for seq in 0..n {
            let chunk = seq % node_every != node_every - 1;
            let op = if chunk {
                SurfaceOp::None
            } else if messages.len() >= 3 && messages.len() % 5 == 4 {
                let (start, end) = (messages[messages.len() - 3], messages[messages.len() - 1]);
                SurfaceOp::Replace { start, end }
            } else {
                SurfaceOp::Append
            };
            if !chunk {
                messages.push(seq);
            }
            batch.push(NewEvent {
                seq,
                time: Some(seq as i64),
                type_name: if chunk {
                    "assistant/chunk"
                } else {
                    "user/message"
                },
                op,
                sources: (!chunk).then_some(&[][..]),
                line: seq as u32 + 2,
                text: EventText::Synthesized(0),
                plain: false,
            });
        }
        EventLog::new(None, Vec::new(), batch)
    }

    /// Everything a reader can ask of the surface at its cursor.
    fn view(log: &EventLog, s: &Surface) -> Vec<String> {
        let mut out = vec![format!(
            "{:?} {:?} {}",
            s.first_node(),
            s.last_node(),
            s.len()
        )];
        out.push(format!("{:?}", s.nodes().collect::<Vec<_>>()));
        for idx in log.indices() {
            out.push(format!(
                "{:?} {:?} {:?} {:?} {:?}",
                s.state(idx),
                s.effect(idx),
                s.next_node(idx).filter(|_| s.is_on_surface(idx)),
                s.prev_node(idx).filter(|_| s.is_on_surface(idx)),
                s.replace_of(idx).map(|r| s.shadowed_nodes(r).to_vec()),
            ));
        }
        out
    }

    #[test]
    fn the_surface_costs_four_bytes_per_event_plus_a_small_cost_per_node() {
        // One event in 25 is a message (4 %, as in real logs), a fifth of them replaces.
        let log = mixed_log(100_000, 25);
        let s = Surface::at_end(&log);
        let (events, nodes) = (log.len(), s.node_count());
        assert!(s.applied_replaces().len() > 100);
        assert!(nodes > 3_000 && nodes < 4_100, "{nodes} nodes");
        // The per-event part is exact: the first build reserves exactly.
        assert_eq!(s.effects.heap_bytes(), 4 * events);
        // Everything else is per node (20 bytes, and up to 4 in the shadow lists: the first
        // build fits the arrays to their length), per replace or in checkpoints; per-event
        // links, effects or shadow marks (24 bytes per event before) break this bound by far.
        let per_node_budget = 24 * nodes + 96 * s.applied_replaces().len() + s.checkpoint_bytes();
        assert!(
            s.heap_bytes() <= 4 * events + per_node_budget,
            "{} bytes for {events} events and {nodes} nodes",
            s.heap_bytes()
        );
        assert!(
            s.heap_bytes() <= 5 * events + 64 * nodes,
            "{:.2} bytes per event",
            s.heap_bytes() as f64 / events as f64
        );
        // Seeking around allocates nothing per event.
        let mut s = s;
        let before = s.heap_bytes();
        s.seek(&log, 0);
        s.seek(&log, events / 2);
        s.seek(&log, events);
        assert_eq!(s.heap_bytes(), before);
    }

    #[test]
    fn spilled_numbers_give_the_same_surface_at_every_cursor() {
        let log = mixed_log(400, 3);
        let mut packed = Surface::with_checkpoint_every(&log, 2);
        let mut spilled = Surface::with_spill_limit(&log, 2, 3);
        packed.seek(&log, log.len());
        spilled.seek(&log, log.len());
        assert!(spilled.applied_replaces().len() > 3);
        assert!(spilled.effects.spilled_len() > 100);
        assert_eq!(packed.effects.spilled_len(), 0);
        for n in (0..=log.len()).rev() {
            packed.seek(&log, n);
            spilled.seek(&log, n);
            assert!(view(&log, &spilled) == view(&log, &packed), "cursor {n}");
        }
        for n in [log.len(), 7, log.len() / 2, 0, log.len() - 1] {
            spilled.seek(&log, n);
            // A fresh surface processed to the end, then moved to `n` by one jump.
            let mut fresh = Surface::at_end(&log);
            fresh.seek(&log, n);
            assert!(view(&log, &spilled) == view(&log, &fresh), "jump to {n}");
        }
    }

    #[test]
    fn non_nodes_have_no_neighbours_and_nodes_walk_both_ways() {
        let log = mixed_log(60, 3);
        let s = Surface::at_end(&log);
        let nodes: Vec<EventIdx> = s.nodes().collect();
        assert!(nodes.len() > 3);
        assert_eq!(s.first_node(), nodes.first().copied());
        assert_eq!(s.last_node(), nodes.last().copied());
        for w in nodes.windows(2) {
            assert_eq!(s.next_node(w[0]), Some(w[1]));
            assert_eq!(s.prev_node(w[1]), Some(w[0]));
        }
        assert_eq!(s.chain(nodes[0], nodes[nodes.len() - 1]), nodes);
        let chunk = EventIdx(0);
        assert_eq!(s.effect(chunk), Some(Effect::LogOnly));
        assert_eq!((s.next_node(chunk), s.prev_node(chunk)), (None, None));
    }
}
