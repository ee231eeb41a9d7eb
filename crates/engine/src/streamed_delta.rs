//! A streamed delta as the store read it: the piece a harness-written `text-delta`,
//! `reasoning-delta` or `tool-call-delta` line contributes to its message (viewer-spec §7's
//! `A`; the meter makes it a piece with `meter::streamed_piece`), worked out while the reader
//! validated the line and kept in the event's record, so that the meter prices a streamed
//! message without reading its deltas' lines again — most of a long log's lines.
//!
//! The record keeps it in the slot that otherwise indexes the log's extras, which such a line
//! never has (no `surfaceOp`, no `sourceEventSeqs`): the top bit marks a delta, then the kind
//! (2 bits), the block index (5 bits) and 24 bits of lengths in UTF-16 units — the text's, or
//! for a tool call the tool's name (7 bits) and the arguments' (17 bits). A delta whose index
//! or lengths do not fit is not kept, and the meter reads its line as before.

use crate::delta_kind::DeltaKind;

/// The top bit of a record's extras slot: the slot holds a [`StreamedDelta`].
pub(crate) const DELTA_MARK: u32 = 1 << 31;
const KIND_SHIFT: u32 = 29;
const INDEX_SHIFT: u32 = 24;
const INDEX_MAX: u64 = (1 << (KIND_SHIFT - INDEX_SHIFT)) - 1;
const LEN_MAX: usize = (1 << INDEX_SHIFT) - 1;
/// A tool call's arguments take the low 17 bits, its name's length the 7 above.
const NAME_SHIFT: u32 = 17;
const ARGUMENTS_MAX: usize = (1 << NAME_SHIFT) - 1;
const NAME_MAX: usize = (1 << (INDEX_SHIFT - NAME_SHIFT)) - 1;

/// A delta's block index, kind and lengths, packed as a record keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamedDelta(u32);

impl StreamedDelta {
    /// The delta of block `index`, of `kind`, whose text (or arguments) is `len` UTF-16 units
    /// long and, for a tool call, whose `name` is `name_len` units long (0 when it has none);
    /// `None` when the index or a length is too large to keep.
    pub fn new(kind: DeltaKind, index: u64, len: usize, name_len: usize) -> Option<StreamedDelta> {
        let (code, lengths) = match kind {
            DeltaKind::Text | DeltaKind::Reasoning if len <= LEN_MAX && name_len == 0 => {
                (u32::from(kind == DeltaKind::Reasoning), len)
            }
            DeltaKind::ToolCall if len <= ARGUMENTS_MAX && name_len <= NAME_MAX => {
                (2, name_len << NAME_SHIFT | len)
            }
            _ => return None,
        };
        (index <= INDEX_MAX).then_some(StreamedDelta(
            DELTA_MARK | code << KIND_SHIFT | (index as u32) << INDEX_SHIFT | lengths as u32,
        ))
    }

    /// The delta a record's extras slot holds, if it holds one.
    pub(crate) fn from_slot(slot: u32) -> Option<StreamedDelta> {
        // Kind 3 is never written, so the slot's "no extras" value is never a delta.
        (slot & DELTA_MARK != 0 && (slot >> KIND_SHIFT) & 3 != 3).then_some(StreamedDelta(slot))
    }

    /// The value kept in the record's extras slot.
    pub(crate) fn slot(self) -> u32 {
        self.0
    }

    /// The kind of block the delta builds.
    pub fn kind(self) -> DeltaKind {
        match (self.0 >> KIND_SHIFT) & 3 {
            0 => DeltaKind::Text,
            1 => DeltaKind::Reasoning,
            _ => DeltaKind::ToolCall,
        }
    }

    /// The block's index.
    pub fn index(self) -> u64 {
        u64::from((self.0 >> INDEX_SHIFT) & INDEX_MAX as u32)
    }

    /// The UTF-16 length of the text (or a tool call's arguments).
    pub fn units(self) -> usize {
        let lengths = (self.0 as usize) & LEN_MAX;
        match self.kind() {
            DeltaKind::ToolCall => lengths & ARGUMENTS_MAX,
            _ => lengths,
        }
    }

    /// The UTF-16 length of a tool call's `name` (0 without one, and for other kinds).
    pub fn name_units(self) -> usize {
        match self.kind() {
            DeltaKind::ToolCall => ((self.0 as usize) & LEN_MAX) >> NAME_SHIFT,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::NO_EXTRA;

    #[test]
    fn every_kind_index_and_length_that_fits_round_trips() {
        let cases = [
            (DeltaKind::Text, 0, 0, 0),
            (DeltaKind::Reasoning, 1, 9, 0),
            (DeltaKind::Text, INDEX_MAX, LEN_MAX, 0),
            (DeltaKind::ToolCall, 7, 123, 0),
            (DeltaKind::ToolCall, INDEX_MAX, ARGUMENTS_MAX, NAME_MAX),
            (DeltaKind::ToolCall, 2, 0, 4),
        ];
        for (kind, index, len, name_len) in cases {
            let d = StreamedDelta::new(kind, index, len, name_len).expect("fits");
            assert_eq!(StreamedDelta::from_slot(d.slot()), Some(d));
            assert_eq!(
                (d.kind(), d.index(), d.units(), d.name_units()),
                (kind, index, len, name_len)
            );
        }
        for (kind, index, len, name_len) in [
            (DeltaKind::Text, INDEX_MAX + 1, 0, 0),
            (DeltaKind::Text, 0, LEN_MAX + 1, 0),
            (DeltaKind::Text, 0, 1, 1),
            (DeltaKind::ToolCall, 0, ARGUMENTS_MAX + 1, 0),
            (DeltaKind::ToolCall, 0, 1, NAME_MAX + 1),
        ] {
            assert_eq!(StreamedDelta::new(kind, index, len, name_len), None);
        }
        // Neither "no extras" nor an extras index reads as a delta.
        assert_eq!(StreamedDelta::from_slot(NO_EXTRA), None);
        assert_eq!(StreamedDelta::from_slot(0), None);
        assert_eq!(StreamedDelta::from_slot(DELTA_MARK - 1), None);
    }
}
