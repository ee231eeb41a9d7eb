//! The policy's view of one surface node — what its decisions read: the meter's price, the
//! tool calls an `assistant/message` makes, and whether a `tool/result` is large enough to
//! prune — and the surface the replay edits, a plain vector in surface order.

/// A node of a replayed surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The event (index into the log), or [`Node::HYPOTHETICAL`] plus a counter for a node
    /// the replay made up (a what-if summary or prune).
    pub event: u32,
    /// The seq the node is shown with: the event's, or for a made-up prune the pruned node's.
    pub seq: u64,
    /// The meter's message price.
    pub price: u32,
    /// `tool-call` blocks of an `assistant/message`.
    pub calls: u16,
    /// A `tool/result` node.
    pub result: bool,
    /// Code points of a tool result's text blocks together (0 for other nodes) — or, when
    /// `chars_exact` is false, an upper bound: the length of the event's JSON line, which a
    /// small tool result keeps until a replay needs the exact count
    /// ([`exact_chars`](super::facts::ExactChars)).
    pub chars: u32,
    /// `chars` is the exact count.
    pub chars_exact: bool,
}

impl Node {
    /// Events at or above this are nodes a what-if made up.
    pub const HYPOTHETICAL: u32 = u32::MAX / 2;

    /// True for a node a what-if made up.
    pub fn is_hypothetical(&self) -> bool {
        self.event >= Node::HYPOTHETICAL
    }

    /// `+calls − result`: the node's share of the tool pairing count.
    pub fn pairing(&self) -> i64 {
        i64::from(self.calls) - i64::from(self.result)
    }
}

/// A surface as the replay edits it: nodes in surface order and their price sum.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nodes {
    /// The nodes, head first.
    pub list: Vec<Node>,
    /// Σ price.
    pub sum: u64,
}

impl Nodes {
    /// Appends a node at the tail.
    pub fn push(&mut self, node: Node) {
        self.sum += u64::from(node.price);
        self.list.push(node);
    }

    /// Position of the node of `event`, searched from the tail (recent nodes are pruned and
    /// replaced most).
    pub fn position(&self, event: u32) -> Option<usize> {
        self.list.iter().rposition(|n| n.event == event)
    }

    /// Replaces the `count` nodes from position `at` by `node`; returns their price sum. A
    /// range past the tail is cut at it (from past the tail: `node` is appended).
    pub fn splice(&mut self, at: usize, count: usize, node: Node) -> u64 {
        let at = at.min(self.list.len());
        let end = at.saturating_add(count).min(self.list.len());
        let removed: u64 = self.list[at..end].iter().map(|n| u64::from(n.price)).sum();
        self.sum = self.sum.saturating_sub(removed) + u64::from(node.price);
        self.list.splice(at..end, std::iter::once(node));
        removed
    }

    /// Replaces the range of nodes `first ..= last` (events) by `node` when both are on this
    /// surface, `first` not after `last`, and returns the replaced nodes' price sum; `None`
    /// (nothing changed) otherwise.
    pub fn replace_range(&mut self, first: u32, last: u32, node: Node) -> Option<u64> {
        let a = self.position(first)?;
        let b = self.position(last)?;
        if b < a {
            return None;
        }
        Some(self.splice(a, b - a + 1, node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(event: u32, price: u32) -> Node {
        Node {
            event,
            seq: u64::from(event),
            price,
            calls: 0,
            result: false,
            chars: 0,
            chars_exact: true,
        }
    }

    #[test]
    fn splice_keeps_the_sum() {
        let mut s = Nodes::default();
        for e in 0..5 {
            s.push(node(e, 10 + e));
        }
        assert_eq!(s.sum, 60);
        assert_eq!(s.replace_range(1, 3, node(9, 5)), Some(11 + 12 + 13));
        assert_eq!(s.sum, 10 + 5 + 14);
        assert_eq!(
            s.list.iter().map(|n| n.event).collect::<Vec<_>>(),
            [0, 9, 4]
        );
        assert_eq!(s.replace_range(4, 0, node(10, 1)), None, "out of order");
        assert_eq!(s.replace_range(1, 4, node(10, 1)), None, "shadowed start");
        // Past the tail: cut at it, never a panic.
        assert_eq!(s.splice(2, usize::MAX, node(11, 7)), 14);
        assert_eq!(s.splice(99, 1, node(12, 1)), 0);
        assert_eq!(
            s.list.iter().map(|n| n.event).collect::<Vec<_>>(),
            [0, 9, 11, 12]
        );
        assert_eq!(s.sum, 10 + 5 + 7 + 1);
    }
}
