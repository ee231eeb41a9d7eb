//! The loaded log: compact event records, the shared provenance array, the text arena the
//! payloads stay in, and the problems met while reading. Built from [`EventBatch`]es.

use std::borrow::Cow;

use super::event::{
    EventExtra, EventIdx, EventRecord, EventText, FLAG_PLAIN, FLAG_SEED, FLAG_SYNTHESIZED,
    FLAG_TAKES_PART, NO_EXTRA, NO_SOURCES, NO_TIME, OpSlot, SurfaceOp, TypeId,
};
use super::header::SessionHeader;
use super::packed::{PackedRow, member_json};
use super::problem::LogProblem;
use super::text_arena::TextArena;
use super::types::TypeTable;

/// The longest line [`EventLog::with_event_bytes`] copies into its reused buffer.
const LINE_COPY_MAX: usize = 64 << 10;

/// How many of those buffers a thread keeps: a reader that asks for another event's bytes
/// inside its own (the meter's message, then its chunks) takes a second.
const LINE_COPIES_KEPT: usize = 4;

thread_local! {
    /// The buffers [`EventLog::with_event_bytes`] copies lines into, free ones on top.
    static LINE_COPIES: std::cell::RefCell<Vec<Vec<u8>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An event as a store hands it to a batch.
#[derive(Clone, Debug)]
pub struct NewEvent<'a> {
    /// `seq` as written.
    pub seq: u64,
    /// `time`, if present.
    pub time: Option<i64>,
    /// `type` as written.
    pub type_name: &'a str,
    /// The decoded `surfaceOp`.
    pub op: SurfaceOp,
    /// `sourceEventSeqs`, if present.
    pub sources: Option<&'a [u64]>,
    /// 1-based line, or 0.
    pub line: u32,
    /// Where the event's JSON lives.
    pub text: EventText,
    /// True when the store's validating scanner vouches that a `Value` parse of the text
    /// needs no care ([`super::event::FLAG_PLAIN`]); false when unsure.
    pub plain: bool,
}

/// Events read by one reader (or one thread of a reader), with their own type table.
/// Batches are concatenated in file order with [`EventBatch::append`].
#[derive(Clone, Debug, Default)]
pub struct EventBatch {
    /// The records, in file order.
    pub events: Vec<EventRecord>,
    /// Type names of `events`.
    pub types: TypeTable,
    /// Shared `sourceEventSeqs` storage.
    pub sources: Vec<u64>,
    /// Replace endpoints and provenance ranges, indexed by [`EventRecord::extra`].
    pub extras: Vec<EventExtra>,
    /// Packed chunk rows, indexed by [`EventText::PackedMember`].
    pub packed_rows: Vec<PackedRow>,
    /// Problems met while reading, in file order.
    pub problems: Vec<LogProblem>,
}

impl EventBatch {
    /// Adds one event.
    pub fn push(&mut self, event: NewEvent<'_>) {
        let kind = self.types.intern(event.type_name);
        let (op, (start, end)) = match event.op {
            SurfaceOp::None => (OpSlot::None, (0, 0)),
            SurfaceOp::Append => (OpSlot::Append, (0, 0)),
            SurfaceOp::Malformed(m) => (OpSlot::Malformed(m), (0, 0)),
            SurfaceOp::Replace { start, end } => (OpSlot::Replace, (start, end)),
        };
        let extra = if op == OpSlot::Replace || event.sources.is_some() {
            let (sources_start, sources_len) = match event.sources {
                None => (self.sources.len() as u32, NO_SOURCES),
                Some(list) => {
                    let start = self.sources.len() as u32;
                    self.sources.extend_from_slice(list);
                    (start, list.len() as u32)
                }
            };
            self.extras.push(EventExtra {
                start,
                end,
                sources_start,
                sources_len,
            });
            self.extras.len() as u32 - 1
        } else {
            NO_EXTRA
        };
        let mut record = EventRecord::new(
            event.seq,
            event.time.unwrap_or(NO_TIME),
            kind,
            op,
            event.text,
            event.line,
            extra,
        );
        if event.plain {
            record.set_flags(FLAG_PLAIN);
        }
        self.events.push(record);
    }

    /// Adds a packed row and returns its index for [`EventText::PackedMember`].
    pub fn push_packed_row(&mut self, row: PackedRow) -> u32 {
        self.packed_rows.push(row);
        self.packed_rows.len() as u32 - 1
    }

    /// Appends `other` (which follows `self` in file order), remapping its ids.
    pub fn append(&mut self, mut other: EventBatch) {
        let remap = self.append_tables(&mut other, 0);
        self.events
            .extend(other.events.iter().map(|&e| remap.record(e)));
    }

    /// Moves every table of `other` but its records to the end of `self`'s, and returns how
    /// its records must be remapped to follow `self`'s (see [`BatchRemap::record`]); their
    /// lines move by `line_base` (saturating at `u32::MAX`), and so do the lines of its
    /// problems. The records are left
    /// for the caller to append (the JSONL reader copies them on two threads).
    pub fn append_tables(&mut self, other: &mut EventBatch, line_base: u32) -> BatchRemap {
        let remap = BatchRemap {
            type_map: other
                .types
                .iter()
                .map(|(_, name)| self.types.intern(name))
                .collect(),
            extras_base: self.extras.len() as u32,
            rows_base: self.packed_rows.len() as u32,
            line_base,
        };
        let sources_base = self.sources.len() as u32;
        self.sources.extend_from_slice(&other.sources);
        self.extras.extend(other.extras.iter().map(|&x| EventExtra {
            sources_start: x.sources_start + sources_base,
            ..x
        }));
        self.packed_rows.append(&mut other.packed_rows);
        self.problems.extend(other.problems.drain(..).map(|mut p| {
            if let Some(l) = &mut p.line {
                *l = l.saturating_add(line_base);
            }
            p
        }));
        other.sources = Vec::new();
        other.extras = Vec::new();
        remap
    }
}

/// How the records of a batch change when it is appended to another (see
/// [`EventBatch::append_tables`]).
#[derive(Clone, Debug)]
pub struct BatchRemap {
    type_map: Vec<TypeId>,
    extras_base: u32,
    rows_base: u32,
    line_base: u32,
}

impl BatchRemap {
    /// The record as it reads in the joined batch.
    #[inline]
    pub fn record(&self, mut e: EventRecord) -> EventRecord {
        e.kind = self.type_map[e.kind.0 as usize];
        e.shift_extra(self.extras_base);
        // Saturating: a reader numbers at most `u32::MAX` lines and says so with a finding
        // (`line.count-overflow`) when a file has more.
        e.line = e.line.saturating_add(self.line_base);
        if let EventText::PackedMember { row, member } = e.text() {
            e.set_text(EventText::PackedMember {
                row: row + self.rows_base,
                member,
            });
        }
        e
    }
}

/// A fully read session log. Immutable once built, apart from [`EventLog::extend`] (live
/// follow appends) and [`EventLog::push_synthesized`] (repair preview).
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    /// The session header, when the file has one.
    pub header: Option<SessionHeader>,
    /// The text arena: every event's JSON lives here (or is rebuilt from a packed row in it).
    /// Owned bytes, or a file's bytes shared read-only (the CLI maps large JSONL files).
    ///
    /// Visible only inside the engine, so that no other crate can form a view over bytes that
    /// may change (ARCHITECTURE.md, "The contract of mapped bytes"): outside it, every accessor
    /// hands out a private copy when [`TextArena::may_change`] is true. The engine's own
    /// whole-log passes read it as plain bytes only (a substring search, a prefetch hint).
    pub(crate) text: TextArena,
    /// All events, in log order.
    pub events: Vec<EventRecord>,
    /// Type names.
    pub types: TypeTable,
    /// Shared provenance storage.
    pub sources: Vec<u64>,
    /// Replace endpoints and provenance ranges, indexed by [`EventRecord::extra`].
    pub extras: Vec<EventExtra>,
    /// Packed chunk rows.
    pub packed_rows: Vec<PackedRow>,
    /// JSON of events synthesized by repair (not from the file).
    pub synthesized: Vec<String>,
    /// Reading problems (bad lines, rows, frames, header).
    pub problems: Vec<LogProblem>,
    /// The greatest seq seen so far among events that take part (rule 6).
    max_seq: Option<u64>,
    /// Indices of the events that take part (rule 6), kept only once some event does not:
    /// then seqs are no longer increasing in log order and lookups search this instead.
    participants: Option<Vec<u32>>,
}

impl EventLog {
    /// Builds a log from its header, its text arena (a `Vec<u8>` or a [`TextArena`]) and the
    /// batch read from it.
    pub fn new(
        header: Option<SessionHeader>,
        text: impl Into<TextArena>,
        mut batch: EventBatch,
    ) -> Self {
        // Move the batch's vectors in (no copy), trimmed to size: at a million events every
        // spare slot of the record vector costs 40 bytes.
        batch.events.shrink_to_fit();
        batch.sources.shrink_to_fit();
        let mut log = EventLog {
            header,
            text: text.into(),
            events: Vec::new(),
            types: batch.types,
            sources: batch.sources,
            extras: batch.extras,
            packed_rows: batch.packed_rows,
            synthesized: Vec::new(),
            problems: batch.problems,
            max_seq: None,
            participants: None,
        };
        log.events = batch.events;
        log.mark_new_events(0);
        log
    }

    /// Appends events read later (live follow). `batch` text offsets refer to the log's text
    /// (grown with [`EventLog::append_text`] before).
    pub fn extend(&mut self, batch: EventBatch) {
        let first_new = self.events.len();
        let mut own = EventBatch {
            events: std::mem::take(&mut self.events),
            types: std::mem::take(&mut self.types),
            sources: std::mem::take(&mut self.sources),
            extras: std::mem::take(&mut self.extras),
            packed_rows: std::mem::take(&mut self.packed_rows),
            problems: std::mem::take(&mut self.problems),
        };
        own.append(batch);
        self.events = own.events;
        self.types = own.types;
        self.sources = own.sources;
        self.extras = own.extras;
        self.packed_rows = own.packed_rows;
        self.problems = own.problems;
        self.mark_new_events(first_new);
    }

    /// Sets the flags of events `first_new..` (rule 6 participation, fork seed).
    fn mark_new_events(&mut self, first_new: usize) {
        let seed_len = self
            .header
            .as_ref()
            .and_then(|h| h.seed_length)
            .unwrap_or(0);
        for i in first_new..self.events.len() {
            let e = &mut self.events[i];
            if (i as u64) < seed_len {
                e.set_flags(FLAG_SEED);
            }
            if self.max_seq.is_none_or(|m| e.seq > m) {
                e.set_flags(FLAG_TAKES_PART);
                self.max_seq = Some(e.seq);
                if let Some(p) = &mut self.participants {
                    p.push(i as u32);
                }
            } else if self.participants.is_none() {
                // The first event that takes no part: from now on index the ones that do.
                self.participants = Some((0..i as u32).collect());
            }
        }
    }

    /// Appends a synthesized event (a repair closer) with its JSON text.
    pub fn push_synthesized(&mut self, mut event: NewEvent<'_>, json: String) {
        self.synthesized.push(json);
        event.text = EventText::Synthesized(self.synthesized.len() as u32 - 1);
        let mut batch = EventBatch::default();
        batch.push(event);
        self.extend(batch);
        if let Some(last) = self.events.last_mut() {
            last.set_flags(FLAG_SYNTHESIZED);
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when the log has no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The length of the text arena in bytes (the offset the next appended text starts at).
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// True when the text is shared read-only bytes (a mapped file), not owned by the log.
    pub fn text_is_shared(&self) -> bool {
        self.text.is_shared()
    }

    /// True when the text may change under the reader (a mapped file another program can
    /// write); every accessor then hands out a copy (see [`TextArena::may_change`]).
    pub fn text_may_change(&self) -> bool {
        self.text.may_change()
    }

    /// True once the text's file was truncated under its mapping (its bytes now read as
    /// zeros; see [`TextArena::lost`]).
    pub fn text_lost(&self) -> bool {
        self.text.lost()
    }

    /// Appends `more` to the text (copying shared bytes into an owned buffer first, once) and
    /// returns the offset it starts at: new lines for [`EventLog::extend`] (live follow).
    pub fn append_text(&mut self, more: &[u8]) -> usize {
        let base = self.text.len();
        self.text.extend_from_slice(more);
        base
    }

    /// The whole text, when nobody else can change it (owned bytes, or shared bytes that never
    /// change): what a reader parses after [`EventLog::append_text`]. `None` for a mapped
    /// file, whose bytes are only ever handed out as copies.
    pub fn stable_text(&self) -> Option<&[u8]> {
        (!self.text.may_change()).then_some(&self.text[..])
    }

    /// The record at `idx`.
    pub fn event(&self, idx: EventIdx) -> &EventRecord {
        &self.events[idx.get()]
    }

    /// The type name of the event at `idx`.
    pub fn type_name(&self, idx: EventIdx) -> &str {
        self.types.name(self.events[idx.get()].kind)
    }

    /// The known type of the event at `idx` ([`crate::EventType::Other`] for any other name).
    pub fn event_type(&self, idx: EventIdx) -> crate::EventType {
        self.types.kind(self.events[idx.get()].kind)
    }

    /// True when the event at `idx` has a surface-eligible type.
    pub fn is_eligible(&self, idx: EventIdx) -> bool {
        self.types.is_eligible(self.events[idx.get()].kind)
    }

    /// The decoded `surfaceOp` of the event at `idx`.
    pub fn op(&self, idx: EventIdx) -> SurfaceOp {
        let e = &self.events[idx.get()];
        match e.op() {
            OpSlot::None => SurfaceOp::None,
            OpSlot::Append => SurfaceOp::Append,
            OpSlot::Malformed(m) => SurfaceOp::Malformed(m),
            OpSlot::Replace => {
                let x = self.extra(e).unwrap_or_default();
                SurfaceOp::Replace {
                    start: x.start,
                    end: x.end,
                }
            }
        }
    }

    /// The replace endpoints and provenance range of a record, when it has either.
    fn extra(&self, e: &EventRecord) -> Option<EventExtra> {
        self.extras.get(e.extra() as usize).copied()
    }

    /// The `sourceEventSeqs` of the event at `idx`, if present.
    pub fn sources(&self, idx: EventIdx) -> Option<&[u64]> {
        let x = self.extra(&self.events[idx.get()])?;
        if !x.has_sources() {
            return None;
        }
        let start = x.sources_start as usize;
        self.sources.get(start..start + x.sources_len as usize)
    }

    /// The whole text arena, for a search over every line at once (the overflow watch's).
    /// Crate-private for the reason [`EventLog::line_text`] is.
    pub(crate) fn whole_text(&self) -> &[u8] {
        &self.text
    }

    /// The bytes of an event kept as a line of the text arena; empty for any other event.
    /// Crate-private: they may be a mapped file's bytes, which only plain-byte readers inside
    /// the engine may see; other crates get [`EventLog::event_bytes`] (a copy when they may
    /// change).
    pub(crate) fn line_text(&self, idx: EventIdx) -> &[u8] {
        match self.events[idx.get()].text() {
            EventText::Line { start, len } => {
                let start = start as usize;
                self.text.get(start..start + len as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// Asks the CPU for the first `lines` cache lines of the event's line (a hint for a pass
    /// that visits events far apart; nothing for an event that is not a line). Hands out no
    /// byte, so other crates may call it over a mapping.
    #[inline]
    pub fn prefetch_line(&self, idx: EventIdx, lines: usize) {
        surface_scan::prefetch::prefetch(self.line_text(idx), lines);
    }

    /// Where `finder`'s needle first occurs in the event's line (a plain byte search: an
    /// offset, no view of the bytes); `None` when it does not, or the event is not a line.
    pub fn find_in_line(
        &self,
        idx: EventIdx,
        finder: &memchr::memmem::Finder<'_>,
    ) -> Option<usize> {
        finder.find(self.line_text(idx))
    }

    /// Whether the event `idx` of this log and the event `other_idx` of `other` are lines of
    /// the same bytes (a plain byte comparison; a line that changes under it gives a wrong
    /// answer, never a view). `false` when either is not a line.
    pub fn same_line_bytes(&self, idx: EventIdx, other: &EventLog, other_idx: EventIdx) -> bool {
        let is_line = |log: &EventLog, i: EventIdx| {
            matches!(log.events[i.get()].text(), EventText::Line { .. })
        };
        is_line(self, idx)
            && is_line(other, other_idx)
            && self.line_text(idx) == other.line_text(other_idx)
    }

    /// The bytes of an event kept as a line when nobody else can change them (see
    /// [`TextArena::stable_bytes`]): a line of an arena that cannot change. `None` for any
    /// other event, or a line that may change.
    fn stable_line(&self, idx: EventIdx) -> Option<&[u8]> {
        match self.events[idx.get()].text() {
            EventText::Line { start, len } => {
                let start = start as usize;
                self.text.stable_bytes(start..start + len as usize)
            }
            _ => None,
        }
    }

    /// The event's JSON bytes: borrowed from the text arena for a line (no UTF-8 check: the
    /// store kept only UTF-8 lines), rebuilt otherwise (see [`EventLog::event_json`]). When
    /// the line may change under the reader (a mapped file another program can write), it is
    /// copied first, so that what a reader
    /// validates stays as it validated it.
    pub fn event_bytes(&self, idx: EventIdx) -> Cow<'_, [u8]> {
        if let Some(line) = self.stable_line(idx) {
            return Cow::Borrowed(line);
        }
        match self.events[idx.get()].text() {
            EventText::Line { .. } => Cow::Owned(self.line_text(idx).to_vec()),
            _ => match self.event_json(idx) {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            },
        }
    }

    /// Runs `read` over the event's bytes as [`EventLog::event_bytes`] gives them, but a line
    /// of an arena that may change is copied into a buffer this thread reuses, not a fresh
    /// allocation: the meter reads a million short chunk lines this way, and each message
    /// around them.
    pub fn with_event_bytes<T>(&self, idx: EventIdx, read: impl FnOnce(&[u8]) -> T) -> T {
        if let Some(line) = self.stable_line(idx) {
            return read(line);
        }
        if matches!(self.events[idx.get()].text(), EventText::Line { .. }) {
            let line = self.line_text(idx);
            if line.len() > LINE_COPY_MAX {
                // Not kept: the buffer would hold its size for the thread's life.
                return read(&self.event_bytes(idx));
            }
            // A free buffer is taken out for the read, so `read` may ask for another event's
            // bytes (it gets the next buffer); it goes back afterwards.
            let mut copy = LINE_COPIES
                .with(|free| free.borrow_mut().pop())
                .unwrap_or_default();
            copy.clear();
            copy.extend_from_slice(line);
            let out = read(&copy);
            LINE_COPIES.with(|free| {
                let mut free = free.borrow_mut();
                if free.len() < LINE_COPIES_KEPT {
                    free.push(copy);
                }
            });
            return out;
        }
        read(&self.event_bytes(idx))
    }

    /// Runs `read` over the event's JSON text as [`EventLog::event_json`] gives it, a line of an
    /// arena that may change copied into the thread's reused buffer
    /// ([`EventLog::with_event_bytes`]) rather than a fresh `String`: the audit reads every
    /// tool call and result this way.
    pub fn with_event_json<T>(&self, idx: EventIdx, read: impl FnOnce(&str) -> T) -> T {
        if !matches!(self.events[idx.get()].text(), EventText::Line { .. }) {
            return read(&self.event_json(idx));
        }
        self.with_event_bytes(idx, |bytes| match std::str::from_utf8(bytes) {
            Ok(text) => read(text),
            Err(_) => read(&String::from_utf8_lossy(bytes)),
        })
    }

    /// The whole event as JSON text (`{"type":…,"seq":…,"data":…}`), rebuilt for packed members.
    /// Text is only ever borrowed from bytes nobody else can change: a line of an arena that
    /// may change (a mapped file) is copied before it is checked as UTF-8.
    pub fn event_json(&self, idx: EventIdx) -> Cow<'_, str> {
        let e = &self.events[idx.get()];
        match e.text() {
            EventText::Line { .. } => {
                let Some(bytes) = self.stable_line(idx) else {
                    return Cow::Owned(text_of(self.line_text(idx).to_vec()));
                };
                // The store keeps only lines that are UTF-8, so the quick check always passes
                // on a log it read; the lossy copy is for text built any other way.
                match std::str::from_utf8(bytes) {
                    Ok(text) => Cow::Borrowed(text),
                    Err(_) => String::from_utf8_lossy(bytes),
                }
            }
            EventText::PackedMember { row, member } => match self.packed_rows.get(row as usize) {
                Some(r) => Cow::Owned(member_json(r, &self.text, member, e.seq, e.time)),
                None => Cow::Borrowed("{}"),
            },
            EventText::Synthesized(i) => self
                .synthesized
                .get(i as usize)
                .map_or(Cow::Borrowed("{}"), |s| Cow::Borrowed(s.as_str())),
        }
    }

    /// The `data` bytes of packed row `row`: borrowed, or copied when the arena may change
    /// under the reader (see [`EventLog::event_bytes`]). `None` when there is no such row.
    pub fn packed_row_bytes(&self, row: u32) -> Option<Cow<'_, [u8]>> {
        self.packed_row_head(row, usize::MAX)
    }

    /// At most the first `max_len` bytes of packed row `row`'s `data`, borrowed or copied as
    /// [`EventLog::packed_row_bytes`] gives them: for a reader that needs only the row's first
    /// fields, so that a long row is not copied whole to read its head.
    pub fn packed_row_head(&self, row: u32, max_len: usize) -> Option<Cow<'_, [u8]>> {
        let r = self.packed_rows.get(row as usize)?;
        let start = r.start as usize;
        let len = (r.len as usize).min(max_len);
        let bytes = self.text.get(start..start + len)?;
        Some(if self.text.may_change() {
            Cow::Owned(bytes.to_vec())
        } else {
            Cow::Borrowed(bytes)
        })
    }

    /// The event parsed as a JSON value. `None` only when its text is not JSON.
    pub fn event_value(&self, idx: EventIdx) -> Option<serde_json::Value> {
        serde_json::from_str(&self.event_json(idx)).ok()
    }

    /// The event's `data` parsed as a JSON value (`Null` when missing).
    pub fn data_value(&self, idx: EventIdx) -> serde_json::Value {
        match self.event_value(idx) {
            Some(serde_json::Value::Object(mut map)) => {
                map.remove("data").unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::Value::Null,
        }
    }

    /// The event with `seq` among those that take part (rule 6): O(1) where seqs run without
    /// gaps from the first event's (the usual log: the guess `seq - first seq` hits), else by
    /// binary search, O(log n).
    pub fn find_seq(&self, seq: u64) -> Option<EventIdx> {
        match &self.participants {
            None => {
                let guess = self.events.first().and_then(|first| {
                    let i = usize::try_from(seq.checked_sub(first.seq)?).ok()?;
                    (self.events.get(i)?.seq == seq).then_some(i)
                });
                guess
                    .or_else(|| self.events.binary_search_by_key(&seq, |e| e.seq).ok())
                    .map(|i| EventIdx(i as u32))
            }
            Some(p) => p
                .binary_search_by_key(&seq, |&i| self.events[i as usize].seq)
                .ok()
                .map(|k| EventIdx(p[k])),
        }
    }

    /// The replay position "after every event with seq ≤ `seq`": the number of leading
    /// events (in log order) to apply. Events whose seq does not increase ride along with the
    /// events before them. O(log n).
    pub fn cursor_for_seq(&self, seq: u64) -> usize {
        match &self.participants {
            None => self.events.partition_point(|e| e.seq <= seq),
            Some(p) => {
                // The first participant past `seq` bounds the cursor; without one, the end.
                let k = p.partition_point(|&i| self.events[i as usize].seq <= seq);
                p.get(k).map_or(self.events.len(), |&i| i as usize)
            }
        }
    }

    /// [`EventLog::cursor_for_seq`], searched outward from cursor `near` (steps that double
    /// each time, then a binary search between the last two): O(log d) for an answer `d`
    /// events away, where a model call looks up the chunks it cites just after its start.
    pub fn cursor_for_seq_near(&self, seq: u64, near: usize) -> usize {
        if self.participants.is_some() {
            return self.cursor_for_seq(seq);
        }
        let events = &self.events;
        let n = events.len();
        let before = |i: usize| events[i].seq <= seq;
        let near = near.min(n);
        // The cursor `c` is the first index whose seq is past `seq`: find `lo <= c <= hi`.
        let (lo, hi) = if near < n && before(near) {
            let (mut lo, mut step) = (near + 1, 1);
            loop {
                let probe = lo + step - 1;
                if probe >= n {
                    break (lo, n);
                }
                if !before(probe) {
                    break (lo, probe);
                }
                lo = probe + 1;
                step *= 2;
            }
        } else {
            let (mut hi, mut step) = (near, 1);
            loop {
                if hi < step {
                    break (0, hi);
                }
                let probe = hi - step;
                if before(probe) {
                    break (probe + 1, hi);
                }
                hi = probe;
                step *= 2;
            }
        };
        lo + events[lo..hi].partition_point(|e| e.seq <= seq)
    }

    /// The seq a new event appended at the end should get: one past the greatest seq.
    pub fn next_seq(&self) -> u64 {
        self.max_seq.map_or(0, |m| m.saturating_add(1))
    }

    /// The greatest seq that takes part, if any.
    pub fn max_seq(&self) -> Option<u64> {
        self.max_seq
    }

    /// The last event's `time`, if any event has one (used for synthesized events: the engine
    /// has no clock).
    pub fn last_time(&self) -> Option<i64> {
        self.events.iter().rev().find_map(|e| e.time())
    }

    /// Indices of all events, in log order.
    pub fn indices(&self) -> impl DoubleEndedIterator<Item = EventIdx> + ExactSizeIterator {
        (0..self.events.len() as u32).map(EventIdx)
    }
}

/// Owned bytes as text: kept as they are when UTF-8, else with U+FFFD for what is not.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ev(seq: u64) -> NewEvent<'static> {
        NewEvent {
            seq,
            time: Some(1),
            type_name: "turn/start",
            op: SurfaceOp::None,
            sources: None,
            line: 0,
            text: EventText::Synthesized(0),
            plain: false,
        }
    }

    fn log_of(seqs: &[u64]) -> EventLog {
        let mut batch = EventBatch::default();
        for &s in seqs {
            batch.push(ev(s));
        }
        EventLog::new(None, Vec::new(), batch)
    }

    #[test]
    fn takes_part_uses_running_max() {
        let log = log_of(&[0, 1, 5, 3, 4, 6]);
        let parts: Vec<bool> = log.events.iter().map(|e| e.takes_part()).collect();
        assert_eq!(parts, [true, true, true, false, false, true]);
    }

    #[test]
    fn cursor_for_seq_handles_gaps_and_non_increasing() {
        let log = log_of(&[0, 1, 5, 3, 4, 6]);
        assert_eq!(log.cursor_for_seq(0), 1);
        assert_eq!(log.cursor_for_seq(2), 2);
        assert_eq!(log.cursor_for_seq(5), 5);
        assert_eq!(log.cursor_for_seq(100), 6);
        assert_eq!(log.find_seq(5), Some(EventIdx(2)));
        assert_eq!(log.find_seq(3), None);
        assert_eq!(log.next_seq(), 7);
    }

    #[test]
    fn the_near_search_finds_the_binary_searchs_cursor_from_anywhere() {
        let increasing = log_of(&[0, 2, 3, 3, 7, 8, 9, 15, 16, 30, 31, 32, 40]);
        let gaps = log_of(&[0, 1, 5, 3, 4, 6]);
        for log in [&increasing, &gaps, &log_of(&[]), &log_of(&[4])] {
            for seq in 0..45 {
                for near in 0..=log.len() + 3 {
                    assert_eq!(
                        log.cursor_for_seq_near(seq, near),
                        log.cursor_for_seq(seq),
                        "seq {seq} from {near}"
                    );
                }
            }
        }
    }

    /// Bytes that say they may change under the reader, as a mapped file's do.
    struct Changeable(Vec<u8>);

    impl AsRef<[u8]> for Changeable {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl crate::SharedText for Changeable {
        fn may_change(&self) -> bool {
            true
        }
    }

    /// A log of one line event and one packed row (two members) over `arena`, plus a
    /// synthesized event.
    fn lent_log(arena: TextArena) -> EventLog {
        let line = br#"{"type":"user/message","seq":0,"time":1,"data":{"content":"hi"}}"#;
        let row = br#"{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["a","b"]}"#;
        assert_eq!(arena.get(..line.len()), Some(&line[..]));
        assert_eq!(arena.get(line.len() + 1..), Some(&row[..]));
        let mut batch = EventBatch::default();
        batch.push(NewEvent {
            type_name: "user/message",
            text: EventText::Line {
                start: 0,
                len: line.len() as u32,
            },
            line: 1,
            ..ev(0)
        });
        let r = batch.push_packed_row(PackedRow {
            kind: crate::ChunkKind::Text,
            start: line.len() as u64 + 1,
            len: row.len() as u32,
        });
        for member in 0..2 {
            batch.push(NewEvent {
                type_name: "assistant/chunk",
                text: EventText::PackedMember { row: r, member },
                line: 2,
                ..ev(1 + u64::from(member))
            });
        }
        let mut log = EventLog::new(None, arena, batch);
        log.push_synthesized(ev(3), "{\"type\":\"turn/end\"}".to_string());
        log
    }

    fn lent_bytes() -> Vec<u8> {
        let mut bytes =
            br#"{"type":"user/message","seq":0,"time":1,"data":{"content":"hi"}}"#.to_vec();
        bytes.push(b'\n');
        bytes.extend_from_slice(br#"{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["a","b"]}"#);
        bytes
    }

    /// Every byte range the public accessors hand out for every event, as (start, len)
    /// addresses, with what each accessor is called.
    fn lent_ranges(log: &EventLog) -> Vec<(&'static str, usize, usize)> {
        let mut out = Vec::new();
        let mut note = |what, bytes: &[u8]| out.push((what, bytes.as_ptr() as usize, bytes.len()));
        for idx in log.indices() {
            note("event_bytes", &log.event_bytes(idx));
            let same = log.with_event_bytes(idx, |bytes| {
                note("with_event_bytes", bytes);
                bytes == &*log.event_bytes(idx)
            });
            assert!(same, "with_event_bytes reads event {idx}'s bytes");
            note("event_json", log.event_json(idx).as_bytes());
            note("type_name", log.type_name(idx).as_bytes());
        }
        for row in 0..log.packed_rows.len() as u32 {
            note("packed_row_bytes", &log.packed_row_bytes(row).unwrap());
            note("packed_row_head", &log.packed_row_head(row, 8).unwrap());
        }
        if let Some(text) = log.stable_text() {
            note("stable_text", text);
        }
        out
    }

    /// The cfg(test) check of the contract of mapped bytes: over an arena that may change,
    /// no public accessor lends a byte of it — every view (a `&str`, a `&[u8]`) it hands out
    /// is a private copy or lives elsewhere (the type table, the synthesized events). Over an
    /// arena that cannot change the same accessors do lend it (so the check can fail).
    #[test]
    fn no_accessor_lends_bytes_that_may_change() {
        let changeable = TextArena::shared(Arc::new(Changeable(lent_bytes())));
        let log = lent_log(changeable.clone());
        assert!(log.text_may_change());
        let arena = changeable.as_ptr() as usize..changeable.as_ptr() as usize + changeable.len();
        let ranges = lent_ranges(&log);
        assert!(ranges.len() >= 12, "every accessor was driven");
        for (what, start, len) in ranges {
            let overlaps = len > 0 && start < arena.end && start + len > arena.start;
            assert!(!overlaps, "{what} lent bytes of an arena that may change");
        }
        assert!(log.stable_text().is_none());
        // Within the engine, plain-byte readers still see the line (no copy).
        assert_eq!(log.line_text(EventIdx(0)).as_ptr() as usize, arena.start);

        let owned = TextArena::from(lent_bytes());
        let owned_range = owned.as_ptr() as usize..owned.as_ptr() as usize + owned.len();
        let log = lent_log(owned);
        let lent = lent_ranges(&log)
            .into_iter()
            .filter(|&(_, start, _)| owned_range.contains(&start))
            .map(|(what, _, _)| what)
            .collect::<Vec<_>>();
        for what in [
            "event_bytes",
            "with_event_bytes",
            "event_json",
            "packed_row_bytes",
            "stable_text",
        ] {
            assert!(
                lent.contains(&what),
                "{what} borrows stable bytes: {lent:?}"
            );
        }
    }

    /// A reader that asks for another line inside its own gets a buffer of its own: the
    /// outer bytes are not overwritten, at any depth, and the buffers are reused after.
    #[test]
    fn nested_line_reads_get_their_own_buffers() {
        let log = lent_log(TextArena::shared(Arc::new(Changeable(lent_bytes()))));
        let line = log.event_bytes(EventIdx(0)).into_owned();
        for depth in [0, 1, 2, LINE_COPIES_KEPT + 2] {
            nested_read(&log, &line, depth);
        }
        assert_eq!(
            nested_read(&log, &line, 1),
            nested_read(&log, &line, 1),
            "a free buffer is taken again"
        );
    }

    /// Reads event 0 inside itself `depth` times, checking every copy; the outer copy's address.
    fn nested_read(log: &EventLog, line: &[u8], depth: usize) -> usize {
        log.with_event_bytes(EventIdx(0), |outer| {
            assert_eq!(outer, line);
            let inner = match depth {
                0 => 0,
                _ => nested_read(log, line, depth - 1),
            };
            assert_eq!(outer, line, "the outer copy survives the inner read");
            assert_ne!(inner, outer.as_ptr() as usize);
            outer.as_ptr() as usize
        })
    }

    #[test]
    fn appended_text_starts_at_the_old_end_and_is_stable() {
        let mut log = EventLog::new(
            None,
            TextArena::shared(Arc::new(Changeable(lent_bytes()))),
            EventBatch::default(),
        );
        let len = log.text_len();
        assert!(log.text_is_shared() && log.stable_text().is_none());
        assert_eq!(log.append_text(b"more\n"), len);
        assert!(!log.text_is_shared() && !log.text_may_change());
        assert_eq!(log.stable_text().map(<[u8]>::len), Some(len + 5));
        assert!(log.stable_text().unwrap().ends_with(b"more\n"));
    }

    #[test]
    fn batches_append_with_remapping() {
        let mut a = EventBatch::default();
        a.push(ev(0));
        let mut b = EventBatch::default();
        b.push(NewEvent {
            type_name: "user/message",
            op: SurfaceOp::Replace { start: 0, end: 0 },
            sources: Some(&[0]),
            ..ev(1)
        });
        a.append(b);
        let log = EventLog::new(None, Vec::new(), a);
        assert_eq!(log.type_name(EventIdx(1)), "user/message");
        assert_eq!(log.op(EventIdx(1)), SurfaceOp::Replace { start: 0, end: 0 });
        assert_eq!(log.sources(EventIdx(1)), Some(&[0u64][..]));
        assert_eq!(log.sources(EventIdx(0)), None);
    }
}
