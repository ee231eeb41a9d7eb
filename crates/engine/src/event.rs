//! The compact per-event record the whole engine works on, and the surface-eligible types.

use std::fmt;

/// Index of an event in log order (after packed rows are expanded). Not a seq.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventIdx(pub u32);

impl EventIdx {
    /// The index as a `usize`, for slicing.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for EventIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// An interned event type name (see [`crate::TypeTable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);

/// Why a `surfaceOp` value is not one of the two well-formed ops
/// (docs/format.md#the-surface-rule-by-rule, rule 4; docs/check.md#fine-print, item 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MalformedOp {
    /// A string other than `"append"` (e.g. `"prepend"`).
    UnknownString,
    /// An object whose `op` is missing or is not `"replace"`.
    UnknownObjectOp,
    /// `start` missing or not a non-negative integer.
    BadStart,
    /// `end` missing or not a non-negative integer.
    BadEnd,
    /// Neither a string nor an object (a number, an array, a boolean).
    WrongJsonType,
    /// A well-formed replace object with a key besides `op`, `start` and `end` (the HEAD
    /// harness accepts exactly those three; older harnesses ignored the rest).
    ExtraKeys,
}

impl MalformedOp {
    /// Every kind, in the order of [`MalformedOp::code`] (the packed forms of records and
    /// effects keep the code).
    pub const ALL: [MalformedOp; 6] = [
        MalformedOp::UnknownString,
        MalformedOp::UnknownObjectOp,
        MalformedOp::BadStart,
        MalformedOp::BadEnd,
        MalformedOp::WrongJsonType,
        MalformedOp::ExtraKeys,
    ];

    /// The kind's position in [`MalformedOp::ALL`] (an exhaustive match: a new kind fails to
    /// compile until it has a code).
    pub fn code(self) -> u8 {
        match self {
            MalformedOp::UnknownString => 0,
            MalformedOp::UnknownObjectOp => 1,
            MalformedOp::BadStart => 2,
            MalformedOp::BadEnd => 3,
            MalformedOp::WrongJsonType => 4,
            MalformedOp::ExtraKeys => 5,
        }
    }

    /// A human sentence naming the problem.
    pub fn describe(self) -> &'static str {
        match self {
            MalformedOp::UnknownString => "surfaceOp string is not \"append\"",
            MalformedOp::UnknownObjectOp => "surfaceOp object does not have \"op\":\"replace\"",
            MalformedOp::BadStart => "replace start is missing or not a non-negative integer",
            MalformedOp::BadEnd => "replace end is missing or not a non-negative integer",
            MalformedOp::WrongJsonType => "surfaceOp is neither \"append\" nor a replace object",
            MalformedOp::ExtraKeys => {
                "surfaceOp object has a key besides \"op\", \"start\" and \"end\""
            }
        }
    }
}

/// The `surfaceOp` of an event, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SurfaceOp {
    /// No `surfaceOp` (absent or null).
    #[default]
    None,
    /// `"append"`.
    Append,
    /// `{"op":"replace","start":S,"end":E}`.
    Replace {
        /// Seq of the first shadowed node.
        start: u64,
        /// Seq of the last shadowed node (inclusive).
        end: u64,
    },
    /// Present but not well-formed.
    Malformed(MalformedOp),
}

impl SurfaceOp {
    /// True when the event carries a (possibly malformed) op.
    pub fn is_present(self) -> bool {
        !matches!(self, SurfaceOp::None)
    }
}

/// The in-record form of a [`SurfaceOp`]: replace endpoints are kept in
/// [`crate::EventLog`]'s side table of extras so that every record stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OpSlot {
    /// No op.
    #[default]
    None,
    /// `"append"`.
    Append,
    /// A replace; its endpoints are in the log's extras (see [`EventRecord::extra`]).
    Replace,
    /// A malformed op.
    Malformed(MalformedOp),
}

impl OpSlot {
    /// The 4-bit code kept in a record: 0 none, 1 append, 2 replace, 3.. malformed.
    fn code(self) -> u64 {
        match self {
            OpSlot::None => 0,
            OpSlot::Append => 1,
            OpSlot::Replace => 2,
            OpSlot::Malformed(m) => 3 + u64::from(m.code()),
        }
    }

    fn from_code(code: u64) -> OpSlot {
        match code {
            0 => OpSlot::None,
            1 => OpSlot::Append,
            2 => OpSlot::Replace,
            c => MalformedOp::ALL
                .get(c as usize - 3)
                .map_or(OpSlot::None, |&m| OpSlot::Malformed(m)),
        }
    }
}

/// Flag bit: the event's seq is greater than every earlier event's seq
/// (docs/format.md#the-surface-rule-by-rule, rule 6).
pub const FLAG_TAKES_PART: u8 = 1;
/// Flag bit: the event is a repair closer synthesized by the viewer, not read from the file.
pub const FLAG_SYNTHESIZED: u8 = 2;
/// Flag bit: the event belongs to the seed a forked session inherited from its parent.
pub const FLAG_SEED: u8 = 4;
/// Flag bit: the store's validating scanner saw nothing in the event's text that a `Value`
/// parse refuses or repairs (see `store::Envelope::plain`), so checks may skip looking.
pub const FLAG_PLAIN: u8 = 8;

/// Where an event's JSON text lives in the log's text arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventText {
    /// The whole event object is `text[start..start+len]` (a JSONL line, or a line the store
    /// wrote).
    Line {
        /// Byte offset into the log's text arena (below 2^54).
        start: u64,
        /// Byte length.
        len: u32,
    },
    /// Member `member` of packed chunk row `row` (see [`crate::PackedRow`]); rebuilt on demand.
    PackedMember {
        /// Index into [`crate::EventLog::packed_rows`].
        row: u32,
        /// 0-based member index inside the row.
        member: u32,
    },
    /// Synthesized by repair preview; its JSON is in [`crate::EventLog::synthesized`].
    Synthesized(u32),
}

/// Sentinel for "this event has no `time`".
pub const NO_TIME: i64 = i64::MIN;

/// Sentinel for [`EventRecord::extra`]: the event has neither replace endpoints nor
/// `sourceEventSeqs`.
pub const NO_EXTRA: u32 = u32::MAX;

/// Replace endpoints and `sourceEventSeqs` of one event: kept beside the records, because
/// few events have either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EventExtra {
    /// Seq of the first shadowed node (a replace op; 0 otherwise).
    pub start: u64,
    /// Seq of the last shadowed node (a replace op; 0 otherwise).
    pub end: u64,
    /// Start of `sourceEventSeqs` in [`crate::EventLog::sources`].
    pub sources_start: u32,
    /// Length of `sourceEventSeqs`, or [`NO_SOURCES`] when absent.
    pub sources_len: u32,
}

impl EventExtra {
    /// True when the event has a `sourceEventSeqs` list (possibly empty).
    pub fn has_sources(&self) -> bool {
        self.sources_len != NO_SOURCES
    }
}

// The packed word of a record, from the top bit down: the text's form (2 bits), the flags
// (4 bits), the op code (4 bits), then the text's offset, packed row or synthesized index
// (54 bits: 16 PiB of text).
const TEXT_FORM_SHIFT: u32 = 62;
const FLAGS_SHIFT: u32 = 58;
const FLAGS_MASK: u64 = 0xF;
const OP_SHIFT: u32 = 54;
const PAYLOAD_MASK: u64 = (1 << OP_SHIFT) - 1;
const FORM_LINE: u64 = 0;
const FORM_PACKED: u64 = 1;
const FORM_SYNTHESIZED: u64 = 2;

/// One event of the log: a 40-byte record. The payload stays in the text arena and is parsed
/// only when something needs it; replace endpoints and provenance live in the log's extras.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRecord {
    /// The event's `seq` as written.
    pub seq: u64,
    /// `time` in epoch milliseconds, or [`NO_TIME`].
    pub time: i64,
    /// Text form, flags, op code and text offset (see the constants above).
    word: u64,
    /// The line's byte length, or the packed member's index.
    text_len: u32,
    /// Interned `type`.
    pub kind: TypeId,
    /// 1-based line in the file (JSONL), or 0 where lines do not apply (SQLite rows).
    pub line: u32,
    /// Index into the log's extras, or [`NO_EXTRA`].
    extra: u32,
}

/// Sentinel for `sources_len`: the event has no `sourceEventSeqs`.
pub const NO_SOURCES: u32 = u32::MAX;

impl EventRecord {
    /// A record with no flags set.
    pub fn new(
        seq: u64,
        time: i64,
        kind: TypeId,
        op: OpSlot,
        text: EventText,
        line: u32,
        extra: u32,
    ) -> Self {
        let mut record = EventRecord {
            seq,
            time,
            word: op.code() << OP_SHIFT,
            text_len: 0,
            kind,
            line,
            extra,
        };
        record.set_text(text);
        record
    }

    /// Where the event's JSON text lives.
    pub fn text(&self) -> EventText {
        let payload = self.word & PAYLOAD_MASK;
        match self.word >> TEXT_FORM_SHIFT {
            FORM_LINE => EventText::Line {
                start: payload,
                len: self.text_len,
            },
            FORM_PACKED => EventText::PackedMember {
                row: payload as u32,
                member: self.text_len,
            },
            _ => EventText::Synthesized(payload as u32),
        }
    }

    /// Points the record at other text (a renumbered packed row, a synthesized closer).
    pub fn set_text(&mut self, text: EventText) {
        let (form, payload, len) = match text {
            EventText::Line { start, len } => (FORM_LINE, start, len),
            EventText::PackedMember { row, member } => (FORM_PACKED, u64::from(row), member),
            EventText::Synthesized(i) => (FORM_SYNTHESIZED, u64::from(i), 0),
        };
        debug_assert!(payload <= PAYLOAD_MASK, "text offset beyond 32 PiB");
        let keep = self.word & !(3 << TEXT_FORM_SHIFT) & !PAYLOAD_MASK;
        self.word = keep | form << TEXT_FORM_SHIFT | (payload & PAYLOAD_MASK);
        self.text_len = len;
    }

    /// How the event enters the surface; a replace's endpoints are in the log's extras.
    pub fn op(&self) -> OpSlot {
        OpSlot::from_code((self.word >> OP_SHIFT) & 0xF)
    }

    /// Index into the log's extras (replace endpoints, `sourceEventSeqs`), or [`NO_EXTRA`].
    pub fn extra(&self) -> u32 {
        self.extra
    }

    /// Moves the extras index (when batches are joined).
    pub(crate) fn shift_extra(&mut self, by: u32) {
        if self.extra() != NO_EXTRA {
            self.extra += by;
        }
    }

    /// `FLAG_*` bits.
    pub fn flags(&self) -> u8 {
        ((self.word >> FLAGS_SHIFT) & FLAGS_MASK) as u8
    }

    /// Sets `FLAG_*` bits.
    pub fn set_flags(&mut self, flags: u8) {
        self.word |= (u64::from(flags) & FLAGS_MASK) << FLAGS_SHIFT;
    }

    /// True when the event takes part in the surface ordering (its seq increases; rule 6).
    pub fn takes_part(&self) -> bool {
        self.flags() & FLAG_TAKES_PART != 0
    }

    /// True for a repair closer synthesized by the viewer.
    pub fn is_synthesized(&self) -> bool {
        self.flags() & FLAG_SYNTHESIZED != 0
    }

    /// True for an event of a fork's inherited seed.
    pub fn is_seed(&self) -> bool {
        self.flags() & FLAG_SEED != 0
    }

    /// True when the store vouched that a `Value` parse of the text needs no care
    /// ([`FLAG_PLAIN`]).
    pub fn is_plain(&self) -> bool {
        self.flags() & FLAG_PLAIN != 0
    }

    /// The `time`, if present.
    pub fn time(&self) -> Option<i64> {
        (self.time != NO_TIME).then_some(self.time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_stays_small() {
        assert_eq!(std::mem::size_of::<EventRecord>(), 40);
    }

    #[test]
    fn malformed_codes_are_positions_in_all() {
        for (i, m) in MalformedOp::ALL.iter().enumerate() {
            assert_eq!(usize::from(m.code()), i);
        }
    }

    #[test]
    fn record_words_round_trip() {
        let texts = [
            EventText::Line {
                start: PAYLOAD_MASK,
                len: u32::MAX,
            },
            EventText::Line { start: 0, len: 0 },
            EventText::PackedMember {
                row: u32::MAX,
                member: 7,
            },
            EventText::Synthesized(3),
        ];
        let mut ops = vec![OpSlot::None, OpSlot::Append, OpSlot::Replace];
        ops.extend(MalformedOp::ALL.map(OpSlot::Malformed));
        for text in texts {
            for op in &ops {
                let mut r = EventRecord::new(u64::MAX, NO_TIME, TypeId(9), *op, text, 5, 2);
                assert_eq!((r.text(), r.op(), r.flags()), (text, *op, 0));
                r.set_flags(FLAG_SEED | FLAG_TAKES_PART | FLAG_PLAIN);
                r.set_text(EventText::Synthesized(1));
                assert_eq!(r.op(), *op);
                assert!(r.is_seed() && r.takes_part() && r.is_plain() && !r.is_synthesized());
                assert_eq!(r.text(), EventText::Synthesized(1));
                assert_eq!(
                    (r.seq, r.kind, r.line, r.extra()),
                    (u64::MAX, TypeId(9), 5, 2)
                );
            }
        }
    }

    #[test]
    fn eligible_types() {
        assert!(crate::EventType::of("tool/result").is_surface_eligible());
        assert!(!crate::EventType::of("tool/call").is_surface_eligible());
    }
}
