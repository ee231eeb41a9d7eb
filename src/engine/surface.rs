//! The surface engine (viewer-spec §2): mode detection, append, positional replace with
//! validation, delta processing, and a replay cursor with O(1) undo.
//!
//! Processing an event is deterministic, so its [`Effect`] is computed once, the first time
//! the cursor passes it, and kept. Moving the cursor over already processed events only
//! re-applies or undoes link splices (O(1) each). Moving it past the processed prefix is
//! delta processing: only the new events are examined.
//!
//! Long jumps go through checkpoints: a copy of the surface's node list, taken every
//! [`CHECKPOINT_EVERY`] list changes or every "surface length" changes, whichever is more.
//! A jump restores the nearest checkpoint at or before its target (O(surface length)) and
//! re-applies the few changes after it, so its cost does not grow with the distance or the
//! log; the checkpoints never hold more nodes than there were list changes (see
//! `docs/performance.md`).

use super::effect::{AppliedReplace, Effect, EventState, RejectReason};
use super::event::{EventIdx, SurfaceOp};
use super::links::{Links, NIL};
use super::log::EventLog;

/// Whether the log uses surface markers at all (spec §2 rule 1).
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

    /// The mode of a whole log (spec §6.2).
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
    /// The rejection, if any.
    pub fn problem(&self, links: &Links) -> Option<RejectReason> {
        match (self.first, self.last) {
            (Some(f), Some(l)) => {
                (links.label(f.0) > links.label(l.0)).then_some(RejectReason::OutOfOrder)
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

/// The node list after the first `changes` list changes, stored in
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
    /// Effects of the processed prefix, indexed by event index.
    effects: Vec<Effect>,
    /// Applied replaces, indexed by [`Effect::Replaced`].
    replaces: Vec<AppliedReplace>,
    /// For each processed node: the replace that shadows it, or `NIL`.
    shadowed_by: Vec<u32>,
    /// The nodes each applied replace shadowed, in surface order, back to back (a node is
    /// shadowed at most once, so this never exceeds the log length).
    shadow_list: Vec<EventIdx>,
    /// Indices of the processed events that changed the list (appends and applied replaces),
    /// in log order: a jump applies or undoes only these, skipping the log-only majority.
    changes: Vec<u32>,
    /// Checkpoints in change order (the empty list before the first change is implicit).
    checkpoints: Vec<Checkpoint>,
    /// The checkpoints' node lists, back to back.
    checkpoint_nodes: Vec<u32>,
    /// The minimum number of list changes between checkpoints.
    checkpoint_every: usize,
    links: Links,
    /// Number of events applied (the cursor is "after the first `cursor` events").
    cursor: usize,
}

impl Surface {
    /// An empty surface for `log` with the cursor at the start. Nothing is processed yet.
    pub fn new(log: &EventLog) -> Self {
        Surface {
            mode: Mode::of(log),
            effects: Vec::new(),
            replaces: Vec::new(),
            shadowed_by: Vec::new(),
            shadow_list: Vec::new(),
            changes: Vec::new(),
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

    /// The linked list (read-only), for callers that walk it.
    pub fn links(&self) -> &Links {
        &self.links
    }

    /// The surface nodes at the cursor, in order.
    pub fn nodes(&self) -> impl Iterator<Item = EventIdx> + '_ {
        self.links.iter().map(EventIdx)
    }

    /// The node after `node` on the surface at the cursor.
    pub fn next_node(&self, node: EventIdx) -> Option<EventIdx> {
        self.links.next(node.0).map(EventIdx)
    }

    /// The first node.
    pub fn first_node(&self) -> Option<EventIdx> {
        self.links.head().map(EventIdx)
    }

    /// The processed effect of an event, if the cursor has ever passed it.
    pub fn effect(&self, idx: EventIdx) -> Option<Effect> {
        self.effects.get(idx.get()).copied()
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
        match self.effects[i] {
            Effect::LogOnly => EventState::LogOnly,
            Effect::MissingOp => EventState::MissingOp,
            Effect::Rejected(r) => EventState::Invalid(r),
            Effect::Appended | Effect::Replaced(_) => {
                let by = self.shadowed_by[i];
                if by != NIL && (by as usize) < self.cursor {
                    EventState::Shadowed { by: EventIdx(by) }
                } else {
                    EventState::OnSurface
                }
            }
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
        check.problem(&self.links)
    }

    /// The nodes from `first` through `last` at the cursor (both on the surface, in order).
    pub fn chain(&self, first: EventIdx, last: EventIdx) -> Vec<EventIdx> {
        self.links
            .chain(first.0, last.0)
            .into_iter()
            .map(EventIdx)
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
        if target > self.processed() {
            // The first build sizes the per-event arrays exactly (no slack at a million
            // events); later deltas grow them amortized, so that a delta costs O(new events).
            let n = target - self.processed();
            if self.processed() == 0 {
                self.effects.reserve_exact(n);
                self.shadowed_by.reserve_exact(n);
            } else {
                self.effects.reserve(n);
                self.shadowed_by.reserve(n);
            }
            self.links.grow_to(target);
        }
        // Over the processed prefix, only list-changing events need re-applying or undoing.
        let replayed = target.min(self.processed());
        if replayed != self.cursor {
            self.replay_to(replayed);
        }
        while self.cursor < target {
            self.step_forward(log);
        }
    }

    /// Number of list changes among the first `cursor` events.
    fn changes_before(&self, cursor: usize) -> usize {
        self.changes.partition_point(|&i| (i as usize) < cursor)
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

    /// Moves the cursor to `target` within the processed prefix: by re-applying or undoing
    /// the list changes in between, or, when that is more work, by restoring the nearest
    /// checkpoint at or before `target` and re-applying the changes after it.
    fn replay_to(&mut self, target: usize) {
        let have = self.changes_before(self.cursor);
        let want = self.changes_before(target);
        let direct = have.abs_diff(want);
        // The latest checkpoint at or before `want` (None: the empty list before change 0).
        let k = self
            .checkpoints
            .partition_point(|c| c.changes as usize <= want)
            .checked_sub(1);
        let (from, restore_len) = k.map_or((0, 0), |k| {
            (
                self.checkpoints[k].changes as usize,
                self.checkpoint_list(k).len(),
            )
        });
        if restore_len + (want - from) < direct {
            match k {
                Some(k) => {
                    let start = self.checkpoints[k].start as usize;
                    let end = start + restore_len;
                    let nodes = std::mem::take(&mut self.checkpoint_nodes);
                    self.links.restore(&nodes[start..end]);
                    self.checkpoint_nodes = nodes;
                }
                None => self.links.restore(&[]),
            }
            for c in from..want {
                self.redo(self.changes[c] as usize);
            }
        } else if want > have {
            for c in have..want {
                self.redo(self.changes[c] as usize);
            }
        } else {
            for c in (want..have).rev() {
                self.undo(self.changes[c] as usize);
            }
        }
        self.cursor = target;
    }

    /// Takes a checkpoint when enough list changes happened since the last one.
    fn maybe_checkpoint(&mut self) {
        let last = self.checkpoints.last().map_or(0, |c| c.changes as usize);
        if self.changes.len() - last < self.checkpoint_every.max(self.links.len()) {
            return;
        }
        self.checkpoints.push(Checkpoint {
            changes: self.changes.len() as u32,
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
        *self = Surface::with_checkpoint_every(log, self.checkpoint_every);
    }

    /// Applies the event at the cursor and advances it. Returns false at the end.
    pub fn step_forward(&mut self, log: &EventLog) -> bool {
        if self.cursor >= log.len() {
            return false;
        }
        let i = self.cursor;
        let mut changed = false;
        if i == self.effects.len() {
            let effect = self.process(log, EventIdx(i as u32));
            self.effects.push(effect);
            if effect.entered() {
                self.changes.push(i as u32);
                changed = true;
            }
            self.shadowed_by.push(NIL);
            if let Effect::Replaced(r) = effect {
                let rep = &self.replaces[r as usize];
                let start = rep.shadowed_start as usize;
                for k in start..start + rep.count as usize {
                    let node = self.shadow_list[k];
                    self.shadowed_by[node.get()] = i as u32;
                }
            }
        }
        self.redo(i);
        self.cursor += 1;
        if changed {
            self.maybe_checkpoint();
        }
        true
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

    fn undo(&mut self, i: usize) {
        let node = i as u32;
        match self.effects[i] {
            Effect::Appended => self.links.undo_append(node),
            Effect::Replaced(r) => {
                let rep = &self.replaces[r as usize];
                let start = rep.shadowed_start as usize;
                let chain = &self.shadow_list[start..start + rep.count as usize];
                self.links.undo_replace(chain.iter().map(|e| e.0), node);
            }
            _ => {}
        }
    }

    fn redo(&mut self, i: usize) {
        let node = i as u32;
        match self.effects[i] {
            Effect::Appended => self.links.append(node),
            Effect::Replaced(r) => {
                let rep = &self.replaces[r as usize];
                self.links
                    .replace(rep.first.0, rep.last.0, rep.count as usize, node);
            }
            _ => {}
        }
    }

    /// Decides the effect of event `idx`, with the cursor right before it at the watermark.
    fn process(&mut self, log: &EventLog, idx: EventIdx) -> Effect {
        self.links.grow_to(idx.get() + 1);
        let e = log.event(idx);
        let op = log.op(idx);
        if !e.takes_part() {
            return if op.is_present() {
                Effect::Rejected(RejectReason::SeqNotIncreasing)
            } else {
                Effect::LogOnly
            };
        }
        let eligible = log.types.is_eligible(e.kind);
        if !eligible {
            return if op.is_present() {
                Effect::Rejected(RejectReason::NotEligible)
            } else {
                Effect::LogOnly
            };
        }
        if self.mode == Mode::Legacy {
            self.links.assign_append_label(idx.0);
            return Effect::Appended;
        }
        match op {
            SurfaceOp::None => Effect::MissingOp,
            SurfaceOp::Malformed(m) => Effect::Rejected(RejectReason::Malformed(m)),
            SurfaceOp::Append => {
                self.links.assign_append_label(idx.0);
                Effect::Appended
            }
            SurfaceOp::Replace { start, end } => self.process_replace(log, idx, start, end),
        }
    }

    fn process_replace(&mut self, log: &EventLog, idx: EventIdx, start: u64, end: u64) -> Effect {
        let check = self.check_replace(log, start, end);
        if let Some(problem) = self.replace_problem(&check) {
            return Effect::Rejected(problem);
        }
        let (Some(first), Some(last)) = (check.first, check.last) else {
            return Effect::Rejected(RejectReason::EndpointsOff {
                start_off: true,
                end_off: true,
            });
        };
        let chain = self.links.chain(first.0, last.0);
        let mut cited: Vec<u64> = log.sources(idx).map(|s| s.to_vec()).unwrap_or_default();
        cited.sort_unstable();
        let missing_sources = chain
            .iter()
            .map(|&n| log.events[n as usize].seq)
            .filter(|seq| cited.binary_search(seq).is_err())
            .collect();
        self.links.assign_replace_label(idx.0, first.0);
        let shadowed_start = self.shadow_list.len() as u32;
        self.shadow_list.extend(chain.iter().map(|&n| EventIdx(n)));
        self.replaces.push(AppliedReplace {
            by: idx,
            first,
            last,
            count: chain.len() as u32,
            shadowed_start,
            missing_sources,
        });
        Effect::Replaced(self.replaces.len() as u32 - 1)
    }
}
