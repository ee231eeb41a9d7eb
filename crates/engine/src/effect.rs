//! What applying one event did to the surface, and an event's state at a replay cursor.
//!
//! [`Effect`] is the public form; the surface stores each one packed in four bytes
//! (`effect_slot.rs`) and decodes it on demand.

use super::event::{EventIdx, MalformedOp};

/// Why an op was not applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectReason {
    /// Rule 4: the op is not well-formed.
    Malformed(MalformedOp),
    /// Rule 3: an endpoint is not on the surface (one or both).
    EndpointsOff {
        /// `start` is not on the surface.
        start_off: bool,
        /// `end` is not on the surface.
        end_off: bool,
    },
    /// Rule 3: start stands after end in surface order.
    OutOfOrder,
    /// Rule 5: a non-eligible type carries a `surfaceOp`.
    NotEligible,
    /// Rule 6: the event's seq does not increase.
    SeqNotIncreasing,
}

impl RejectReason {
    /// A human sentence for the reason, given the op's endpoints where relevant.
    pub fn describe(self, start: u64, end: u64) -> String {
        match self {
            RejectReason::Malformed(m) => m.describe().to_string(),
            RejectReason::EndpointsOff {
                start_off: true,
                end_off: true,
            } => format!("start seq {start} and end seq {end} are not on the surface"),
            RejectReason::EndpointsOff {
                start_off: true, ..
            } => format!("start seq {start} is not on the surface"),
            RejectReason::EndpointsOff { .. } => format!("end seq {end} is not on the surface"),
            RejectReason::OutOfOrder => {
                format!("start seq {start} stands after end seq {end} on the surface")
            }
            RejectReason::NotEligible => {
                "surfaceOp on an event type that cannot be on the surface".to_string()
            }
            RejectReason::SeqNotIncreasing => {
                "seq does not increase, so the event takes no part in the surface".to_string()
            }
        }
    }
}

/// The deterministic effect of processing one event (the same whichever way replay reaches it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Not a surface node and no op: the event is only in the log.
    LogOnly,
    /// Appended at the tail.
    Appended,
    /// Replaced a range; index into the surface's replace table.
    Replaced(u32),
    /// Carried an op that was not applied.
    Rejected(RejectReason),
    /// A surface-eligible event without `surfaceOp` in a surface-mode log (rule 5).
    MissingOp,
}

impl Effect {
    /// True when the event became a surface node.
    pub fn entered(self) -> bool {
        matches!(self, Effect::Appended | Effect::Replaced(_))
    }
}

/// A replace that was applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedReplace {
    /// The replacing event.
    pub by: EventIdx,
    /// First shadowed node.
    pub first: EventIdx,
    /// Last shadowed node.
    pub last: EventIdx,
    /// Number of shadowed nodes.
    pub count: u32,
    /// Where the shadowed nodes start in the surface's shadow list (see
    /// [`crate::Surface::shadowed_nodes`]).
    pub shadowed_start: u32,
    /// Shadowed seqs missing from the replacement's `sourceEventSeqs`.
    pub missing_sources: Vec<u64>,
    /// The replacing event's node number (the surface's links are over node numbers).
    pub(super) node: u32,
    /// `first`'s node number.
    pub(super) first_node: u32,
    /// `last`'s node number.
    pub(super) last_node: u32,
}

/// The state of one event at a replay cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventState {
    /// After the cursor.
    NotReached,
    /// A node of the surface at the cursor.
    OnSurface,
    /// Was a node, and a replace at or before the cursor shadowed it.
    Shadowed {
        /// The replacing event.
        by: EventIdx,
    },
    /// Only in the log (not a surface event).
    LogOnly,
    /// An op that was rejected.
    Invalid(RejectReason),
    /// An eligible event without an op in a surface-mode log.
    MissingOp,
}

impl EventState {
    /// A short lowercase label (`on-surface`, `shadowed`, …) used by the CLI and GUI.
    pub fn label(self) -> &'static str {
        match self {
            EventState::NotReached => "not-reached",
            EventState::OnSurface => "on-surface",
            EventState::Shadowed { .. } => "shadowed",
            EventState::LogOnly => "log-only",
            EventState::Invalid(_) => "invalid-op",
            EventState::MissingOp => "missing-op",
        }
    }
}
