//! One processed event's effect packed in a `u32`: the surface's only per-event state.
//!
//! The top two bits are the kind, the low 30 bits its payload:
//!
//! | kind | meaning | payload |
//! |---|---|---|
//! | `00` | not a node: log-only, missing op, or a rejected op | a code naming which (and why) |
//! | `01` | appended | the event's node number |
//! | `10` | applied replace | the index of the replace in the surface's replace table |
//! | `11` | a number that does not fit in 30 bits | none: the effect is in [`EffectSlots`]' side table |
//!
//! Node numbers and replace indices are below the number of events, so they fit in 30 bits
//! up to 2^30 (1,073,741,824) surface nodes. Past that an effect *spills*: its slot says so
//! and the full effect is kept in a hash map by event index (about 15 bytes each, still O(1)):
//! nothing is refused and nothing wraps, only the bytes per spilled event grow.

use std::collections::HashMap;

use super::effect::{Effect, RejectReason};
use super::event::MalformedOp;

/// Numbers from this one on do not fit in a slot's 30-bit payload.
pub(super) const INLINE_LIMIT: u32 = 1 << 30;

const KIND_SHIFT: u32 = 30;
const PAYLOAD_MASK: u32 = INLINE_LIMIT - 1;
const KIND_OTHER: u32 = 0;
const KIND_APPENDED: u32 = 1;
const KIND_REPLACED: u32 = 2;
const KIND_SPILLED: u32 = 3;

/// A processed effect with the numbers the surface needs: what [`Effect`] says, plus the
/// node number of an appended event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unpacked {
    /// Only in the log.
    LogOnly,
    /// An eligible event without an op in a surface-mode log.
    MissingOp,
    /// An op that was not applied.
    Rejected(RejectReason),
    /// Appended at the tail as node number `node`.
    Appended {
        /// The node number.
        node: u32,
    },
    /// Replaced a range; the index of the replace in the surface's replace table (the
    /// replace remembers its own node number).
    Replaced {
        /// Index into the replace table.
        replace: u32,
    },
}

impl Unpacked {
    /// The public effect.
    pub(super) fn effect(self) -> Effect {
        match self {
            Unpacked::LogOnly => Effect::LogOnly,
            Unpacked::MissingOp => Effect::MissingOp,
            Unpacked::Rejected(r) => Effect::Rejected(r),
            Unpacked::Appended { .. } => Effect::Appended,
            Unpacked::Replaced { replace } => Effect::Replaced(replace),
        }
    }
}

/// What an event does to the list, read from its slot's kind bits alone (the replay's hot
/// path: no decoding of why a non-node is one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListChange {
    /// Not a node: nothing to apply or undo.
    None,
    /// Appended as this node number.
    Appended(u32),
    /// The applied replace with this index.
    Replaced(u32),
}

const CODE_LOG_ONLY: u32 = 0;
const CODE_MISSING_OP: u32 = 1;
const CODE_OUT_OF_ORDER: u32 = 2;
const CODE_NOT_ELIGIBLE: u32 = 3;
const CODE_SEQ_NOT_INCREASING: u32 = 4;
/// Four codes from here: `+ 2 × start_off + end_off`.
const CODE_ENDPOINTS_OFF: u32 = 5;
/// [`MalformedOp::ALL`]`.len()` codes from here.
const CODE_MALFORMED: u32 = 9;
/// One past the last code of a non-node effect.
const CODE_END: u32 = CODE_MALFORMED + MalformedOp::ALL.len() as u32;

/// The code of a non-node effect (an exhaustive match over every reason).
fn other_code(u: Unpacked) -> Option<u32> {
    Some(match u {
        Unpacked::LogOnly => CODE_LOG_ONLY,
        Unpacked::MissingOp => CODE_MISSING_OP,
        Unpacked::Rejected(r) => match r {
            RejectReason::OutOfOrder => CODE_OUT_OF_ORDER,
            RejectReason::NotEligible => CODE_NOT_ELIGIBLE,
            RejectReason::SeqNotIncreasing => CODE_SEQ_NOT_INCREASING,
            RejectReason::EndpointsOff { start_off, end_off } => {
                CODE_ENDPOINTS_OFF + 2 * u32::from(start_off) + u32::from(end_off)
            }
            RejectReason::Malformed(m) => CODE_MALFORMED + u32::from(m.code()),
        },
        Unpacked::Appended { .. } | Unpacked::Replaced { .. } => return None,
    })
}

/// The non-node effect of a code below [`CODE_END`].
fn other_of(code: u32) -> Unpacked {
    match code {
        CODE_LOG_ONLY => Unpacked::LogOnly,
        CODE_MISSING_OP => Unpacked::MissingOp,
        CODE_OUT_OF_ORDER => Unpacked::Rejected(RejectReason::OutOfOrder),
        CODE_NOT_ELIGIBLE => Unpacked::Rejected(RejectReason::NotEligible),
        CODE_SEQ_NOT_INCREASING => Unpacked::Rejected(RejectReason::SeqNotIncreasing),
        c if (CODE_ENDPOINTS_OFF..CODE_MALFORMED).contains(&c) => {
            let bits = c - CODE_ENDPOINTS_OFF;
            Unpacked::Rejected(RejectReason::EndpointsOff {
                start_off: bits & 2 != 0,
                end_off: bits & 1 != 0,
            })
        }
        c if (CODE_MALFORMED..CODE_END).contains(&c) => Unpacked::Rejected(
            RejectReason::Malformed(MalformedOp::ALL[(c - CODE_MALFORMED) as usize]),
        ),
        // Unreachable: slots are only made by `EffectSlot::pack`, whose codes are all below
        // CODE_END (the unit tests walk every one).
        _ => Unpacked::LogOnly,
    }
}

/// One packed effect. Only [`EffectSlot::pack`] makes one, so every slot decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EffectSlot(u32);

impl EffectSlot {
    /// The slot of a spilled effect.
    const SPILLED: EffectSlot = EffectSlot(KIND_SPILLED << KIND_SHIFT);

    /// Packs `u`, or `None` when its number is `limit` or more (at most [`INLINE_LIMIT`]):
    /// the caller spills it.
    fn pack(u: Unpacked, limit: u32) -> Option<EffectSlot> {
        let limit = limit.min(INLINE_LIMIT);
        let (kind, payload) = match u {
            Unpacked::Appended { node } => (KIND_APPENDED, node),
            Unpacked::Replaced { replace } => (KIND_REPLACED, replace),
            other => (KIND_OTHER, other_code(other)?),
        };
        (payload < limit || kind == KIND_OTHER)
            .then_some(EffectSlot((kind << KIND_SHIFT) | payload))
    }

    /// The effect, or `None` for a spilled one.
    fn unpack(self) -> Option<Unpacked> {
        let payload = self.0 & PAYLOAD_MASK;
        match self.0 >> KIND_SHIFT {
            KIND_APPENDED => Some(Unpacked::Appended { node: payload }),
            KIND_REPLACED => Some(Unpacked::Replaced { replace: payload }),
            KIND_SPILLED => None,
            _ => Some(other_of(payload)),
        }
    }
}

/// The effects of the processed prefix of a log, 4 bytes per event (see the module doc).
#[derive(Clone, Debug)]
pub(super) struct EffectSlots {
    slots: Vec<EffectSlot>,
    /// Effects whose number did not fit in a slot, by event index.
    spilled: HashMap<u32, Unpacked>,
    /// Numbers from this one on spill: [`INLINE_LIMIT`], lower only in tests.
    limit: u32,
}

impl Default for EffectSlots {
    fn default() -> Self {
        EffectSlots::with_limit(INLINE_LIMIT)
    }
}

impl EffectSlots {
    /// Empty slots that spill numbers from `limit` on (clamped to [`INLINE_LIMIT`]): tests
    /// lower it to exercise the side table on small logs.
    pub(super) fn with_limit(limit: u32) -> Self {
        EffectSlots {
            slots: Vec::new(),
            spilled: HashMap::new(),
            limit: limit.min(INLINE_LIMIT),
        }
    }

    /// The spill limit.
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }

    /// Number of processed events.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Makes room for exactly `n` more events (the first build: no slack).
    pub(super) fn reserve_exact(&mut self, n: usize) {
        self.slots.reserve_exact(n);
    }

    /// Makes room for `n` more events, amortized (deltas).
    pub(super) fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
    }

    /// Records the effect of the next event.
    pub(super) fn push(&mut self, u: Unpacked) {
        match EffectSlot::pack(u, self.limit) {
            Some(slot) => self.slots.push(slot),
            None => {
                self.spilled.insert(self.slots.len() as u32, u);
                self.slots.push(EffectSlot::SPILLED);
            }
        }
    }

    /// The effect of processed event `i`.
    pub(super) fn get(&self, i: usize) -> Option<Unpacked> {
        let slot = *self.slots.get(i)?;
        slot.unpack().or_else(|| self.spilled_get(i))
    }

    /// What processed event `i` does to the list (`None` also past the processed prefix).
    #[inline]
    pub(super) fn list_change(&self, i: usize) -> ListChange {
        let Some(&EffectSlot(raw)) = self.slots.get(i) else {
            return ListChange::None;
        };
        let payload = raw & PAYLOAD_MASK;
        match raw >> KIND_SHIFT {
            KIND_OTHER => ListChange::None,
            KIND_APPENDED => ListChange::Appended(payload),
            KIND_REPLACED => ListChange::Replaced(payload),
            _ => self.spilled_change(i),
        }
    }

    /// What spilled event `i` does to the list.
    #[cold]
    #[inline(never)]
    fn spilled_change(&self, i: usize) -> ListChange {
        match self.spilled_get(i) {
            Some(Unpacked::Appended { node }) => ListChange::Appended(node),
            Some(Unpacked::Replaced { replace }) => ListChange::Replaced(replace),
            _ => ListChange::None,
        }
    }

    /// The spilled effect of event `i`.
    #[cold]
    fn spilled_get(&self, i: usize) -> Option<Unpacked> {
        self.spilled.get(&(i as u32)).copied()
    }

    /// Number of spilled effects.
    #[cfg(test)]
    pub(super) fn spilled_len(&self) -> usize {
        self.spilled.len()
    }

    /// Heap bytes held (slots by capacity; the side table by an estimate of its buckets).
    pub(super) fn heap_bytes(&self) -> usize {
        let bucket = std::mem::size_of::<(u32, Unpacked)>() + 1;
        self.slots.capacity() * std::mem::size_of::<EffectSlot>() + self.spilled.capacity() * bucket
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every non-node effect there is (built from the exhaustive lists, not from the codes).
    fn every_other() -> Vec<Unpacked> {
        let mut out = vec![
            Unpacked::LogOnly,
            Unpacked::MissingOp,
            Unpacked::Rejected(RejectReason::OutOfOrder),
            Unpacked::Rejected(RejectReason::NotEligible),
            Unpacked::Rejected(RejectReason::SeqNotIncreasing),
        ];
        for start_off in [false, true] {
            for end_off in [false, true] {
                out.push(Unpacked::Rejected(RejectReason::EndpointsOff {
                    start_off,
                    end_off,
                }));
            }
        }
        out.extend(
            MalformedOp::ALL
                .iter()
                .map(|&m| Unpacked::Rejected(RejectReason::Malformed(m))),
        );
        out
    }

    #[test]
    fn every_non_node_effect_round_trips_with_its_own_code() {
        let all = every_other();
        assert_eq!(all.len() as u32, CODE_END);
        let mut codes = Vec::new();
        for &u in &all {
            let slot = EffectSlot::pack(u, INLINE_LIMIT).expect("non-node effects always fit");
            assert_eq!(slot.0 >> KIND_SHIFT, KIND_OTHER, "{u:?}");
            assert_eq!(slot.unpack(), Some(u), "{u:?}");
            codes.push(slot.0);
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(
            codes,
            (0..CODE_END).collect::<Vec<_>>(),
            "codes are dense and distinct"
        );
    }

    #[test]
    fn node_numbers_and_replace_indices_round_trip_up_to_the_limit() {
        for n in [0, 1, 7, 1 << 20, INLINE_LIMIT - 1] {
            for u in [
                Unpacked::Appended { node: n },
                Unpacked::Replaced { replace: n },
            ] {
                let slot = EffectSlot::pack(u, INLINE_LIMIT).unwrap();
                assert_eq!(slot.unpack(), Some(u));
                assert_ne!(slot, EffectSlot::SPILLED);
            }
        }
        for n in [INLINE_LIMIT, INLINE_LIMIT + 1, u32::MAX - 1, u32::MAX] {
            assert_eq!(
                EffectSlot::pack(Unpacked::Appended { node: n }, INLINE_LIMIT),
                None
            );
            assert_eq!(
                EffectSlot::pack(Unpacked::Replaced { replace: n }, INLINE_LIMIT),
                None
            );
        }
        assert_eq!(EffectSlot::SPILLED.unpack(), None);
    }

    #[test]
    fn numbers_past_the_limit_spill_and_read_back() {
        let mut slots = EffectSlots::with_limit(2);
        let effects = [
            Unpacked::Appended { node: 0 },
            Unpacked::LogOnly,
            Unpacked::Appended { node: 1 },
            Unpacked::Appended { node: 2 },
            Unpacked::Replaced { replace: 1 },
            Unpacked::Replaced { replace: 2 },
            Unpacked::Rejected(RejectReason::Malformed(MalformedOp::ExtraKeys)),
            Unpacked::Appended { node: u32::MAX - 1 },
        ];
        for &u in &effects {
            slots.push(u);
        }
        assert_eq!(slots.len(), effects.len());
        assert_eq!(slots.spilled.len(), 3);
        for (i, &u) in effects.iter().enumerate() {
            assert_eq!(slots.get(i), Some(u), "event {i}");
            assert_eq!(slots.get(i).map(Unpacked::effect), Some(u.effect()));
            let change = match u {
                Unpacked::Appended { node } => ListChange::Appended(node),
                Unpacked::Replaced { replace } => ListChange::Replaced(replace),
                _ => ListChange::None,
            };
            assert_eq!(slots.list_change(i), change, "event {i}");
        }
        assert_eq!(slots.get(effects.len()), None);
        assert_eq!(slots.list_change(effects.len()), ListChange::None);
    }

    #[test]
    fn a_slot_is_four_bytes() {
        assert_eq!(std::mem::size_of::<EffectSlot>(), 4);
    }
}
