//! The part of a model request its first change is looked for in, kept from one call to the
//! next (docs/cost.md): the route, the header in force, the surface nodes that became its
//! messages and their meter prices summed as they go. The next call's shape is the previous
//! one plus the nodes appended since when no replace ran in between (linear in what was
//! appended); only after a replace is the surface sought and walked.

use std::hash::{DefaultHasher, Hash, Hasher};

use super::calls::Call;
use surface_engine::meter::RequestHeader;
use surface_engine::{Effect, EventIdx, EventLog, Meter, Revisit, Surface, message_of};

/// One request's route, header and messages with their running prices.
#[derive(Clone, Debug, Default)]
pub struct RequestShape<'a> {
    /// The call's route (`None`: no request yet — the empty request before the first call).
    pub route: Option<u32>,
    /// The header in force when the messages were fixed.
    pub header: Option<&'a RequestHeader>,
    /// The replay cursor the messages were fixed at.
    pub cursor: usize,
    /// The surface nodes that are its messages, in order.
    pub nodes: Vec<EventIdx>,
    /// `running[k]` = the meter price of `nodes[..k]` (one longer than `nodes`).
    pub running: Vec<u64>,
}

impl RequestShape<'_> {
    /// The header's price (system prompt and tools).
    pub fn header_price(&self) -> u64 {
        self.header.map_or(0, RequestHeader::price)
    }

    /// The system prompt.
    pub fn system(&self) -> Option<&str> {
        self.header.and_then(|h| h.system.as_deref())
    }

    /// The tool definitions, as the meter keeps them.
    pub fn tools(&self) -> &[String] {
        self.header.map_or(&[], |h| &h.tools)
    }

    /// Adds node `n`, of meter price `price`, at the end.
    pub fn push(&mut self, n: EventIdx, price: u64) {
        let sum = self.running.last().copied().unwrap_or_default() + price;
        self.running.push(sum);
        self.nodes.push(n);
    }

    /// The meter price of the messages before `k`.
    pub fn messages_before(&self, k: usize) -> u64 {
        self.running.get(k).copied().unwrap_or_default()
    }

    /// The meter price of the whole request: header and messages.
    pub fn total(&self) -> u64 {
        self.header_price() + self.messages_before(self.nodes.len())
    }
}

/// What building a shape reads: the log, its surface processed to the end (for each event's
/// effect), the meter and the applied replaces' event indices, ascending.
#[derive(Clone, Copy)]
pub struct ShapeInputs<'a> {
    /// The log.
    pub log: &'a EventLog,
    /// Its surface, processed to the end.
    pub surface: &'a Surface,
    /// Its meter.
    pub meter: &'a Meter,
    /// Every applied replace's event index, ascending.
    pub replaces: &'a [usize],
}

impl<'a> ShapeInputs<'a> {
    /// The shape of `call`'s request, built from `prev` when only appends ran between them,
    /// else from `earlier` (a second cursor over the processed surface) sought to the call's
    /// cursor.
    pub fn shape_of(
        &self,
        prev: &RequestShape<'a>,
        call: &Call,
        earlier: &mut Revisit<'_>,
    ) -> RequestShape<'a> {
        let mut shape = RequestShape {
            route: Some(call.route),
            header: self.meter.header_at(call.cursor),
            cursor: call.cursor,
            nodes: Vec::new(),
            running: vec![0],
        };
        if self.only_appends(prev.cursor, call.cursor) {
            shape.nodes.clone_from(&prev.nodes);
            shape.running.clone_from(&prev.running);
            shape.running.resize(shape.running.len().max(1), 0);
            for i in prev.cursor..call.cursor {
                let idx = EventIdx(i as u32);
                if self.surface.effect(idx) == Some(Effect::Appended) {
                    shape.push(idx, self.meter.price(idx));
                }
            }
        } else {
            earlier.seek(call.cursor);
            for n in earlier.nodes() {
                shape.push(n, self.meter.price(n));
            }
        }
        shape
    }

    /// Whether the surface at `to` is the surface at `from` plus appended nodes: `from ≤ to`
    /// and no replace among the events `from..to`.
    pub fn only_appends(&self, from: usize, to: usize) -> bool {
        let k = self.replaces.partition_point(|&r| r < from);
        from <= to && self.replaces.get(k).is_none_or(|&r| r >= to)
    }

    /// What the provider would compare of node `n`'s message: its role and content.
    pub fn fingerprint(&self, n: EventIdx) -> u64 {
        let mut h = DefaultHasher::new();
        match message_of(self.log, n) {
            Some(m) => {
                m.role.hash(&mut h);
                for block in &m.content {
                    block.to_string().hash(&mut h);
                }
            }
            None => 0u8.hash(&mut h),
        }
        h.finish()
    }

    /// Whether nodes `a` and `b` send the same message.
    pub fn same_message(&self, a: EventIdx, b: EventIdx) -> bool {
        a == b || self.fingerprint(a) == self.fingerprint(b)
    }
}
