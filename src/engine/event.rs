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

/// An interned event type name (see [`crate::engine::TypeTable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub u32);

/// Why a `surfaceOp` value is not one of the two well-formed ops (spec §2 rule 4, §6.6).
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

/// The compact, in-record form of a [`SurfaceOp`]: replace endpoints are kept in
/// [`crate::engine::EventLog`]'s side table so that every record stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OpSlot {
    /// No op.
    #[default]
    None,
    /// `"append"`.
    Append,
    /// A replace; the index into the log's replace table.
    Replace(u32),
    /// A malformed op.
    Malformed(MalformedOp),
}

/// Flag bit: the event's seq is greater than every earlier event's seq (spec §2 rule 6).
pub const FLAG_TAKES_PART: u8 = 1;
/// Flag bit: the event is a repair closer synthesized by the viewer, not read from the file.
pub const FLAG_SYNTHESIZED: u8 = 2;
/// Flag bit: the event belongs to the seed a forked session inherited from its parent.
pub const FLAG_SEED: u8 = 4;

/// Where an event's JSON text lives in the log's text arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventText {
    /// The whole event object is `text[start..start+len]` (a JSONL line, or a line the store wrote).
    Line {
        /// Byte offset into [`crate::engine::EventLog::text`].
        start: u64,
        /// Byte length.
        len: u32,
    },
    /// Member `member` of packed chunk row `row` (see [`crate::engine::PackedRow`]); rebuilt on demand.
    PackedMember {
        /// Index into [`crate::engine::EventLog::packed_rows`].
        row: u32,
        /// 0-based member index inside the row.
        member: u32,
    },
    /// Synthesized by repair preview; its JSON is in [`crate::engine::EventLog::synthesized`].
    Synthesized(u32),
}

/// Sentinel for "this event has no `time`".
pub const NO_TIME: i64 = i64::MIN;

/// One event of the log: a fixed-size record. The payload stays in the text arena and is
/// parsed only when something needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRecord {
    /// The event's `seq` as written.
    pub seq: u64,
    /// `time` in epoch milliseconds, or [`NO_TIME`].
    pub time: i64,
    /// Interned `type`.
    pub kind: TypeId,
    /// How the event enters the surface (replace endpoints live in a side table).
    pub op: OpSlot,
    /// Start of `sourceEventSeqs` in [`crate::engine::EventLog::sources`].
    pub sources_start: u32,
    /// Length of `sourceEventSeqs`, or [`NO_SOURCES`] when absent.
    pub sources_len: u32,
    /// 1-based line in the file (JSONL), or 0 where lines do not apply (SQLite rows).
    pub line: u32,
    /// Where the JSON text of the event lives.
    pub text: EventText,
    /// `FLAG_*` bits.
    pub flags: u8,
}

/// Sentinel for `sources_len`: the event has no `sourceEventSeqs`.
pub const NO_SOURCES: u32 = u32::MAX;

impl EventRecord {
    /// True when the event has a `sourceEventSeqs` list (possibly empty).
    pub fn has_sources(&self) -> bool {
        self.sources_len != NO_SOURCES
    }

    /// True when the event takes part in the surface ordering (its seq increases; rule 6).
    pub fn takes_part(&self) -> bool {
        self.flags & FLAG_TAKES_PART != 0
    }

    /// True for a repair closer synthesized by the viewer.
    pub fn is_synthesized(&self) -> bool {
        self.flags & FLAG_SYNTHESIZED != 0
    }

    /// True for an event of a fork's inherited seed.
    pub fn is_seed(&self) -> bool {
        self.flags & FLAG_SEED != 0
    }

    /// The `time`, if present.
    pub fn time(&self) -> Option<i64> {
        (self.time != NO_TIME).then_some(self.time)
    }
}

/// The surface-eligible types: the union over every format era (spec §1).
pub const SURFACE_ELIGIBLE_TYPES: [&str; 5] = [
    "user/message",
    "assistant/message",
    "tool/result",
    "context/message",
    "steering/message",
];

/// True when events of this type may be surface nodes.
pub fn is_surface_eligible(type_name: &str) -> bool {
    SURFACE_ELIGIBLE_TYPES.contains(&type_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_stays_small() {
        assert!(std::mem::size_of::<EventRecord>() <= 64);
    }

    #[test]
    fn eligible_types() {
        assert!(is_surface_eligible("tool/result"));
        assert!(!is_surface_eligible("tool/call"));
    }
}
