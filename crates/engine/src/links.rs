//! The surface's doubly linked list over node numbers, with O(1) apply and O(1) undo.
//!
//! Nodes are *node numbers*: the surface numbers the events that become nodes densely, in
//! the order it first processes them (see [`crate::Surface`]), so `prev`/`next`/`label`
//! are arena arrays with one entry per node, not per event (most events never become one).
//!
//! A replace unlinks the sub-chain `first..=last` *without touching its own links*, so undoing
//! it only splices the chain back between its old neighbours (Knuth's dancing links). Undo must
//! run in the exact reverse order of apply, which the replay cursor guarantees.
//!
//! Each node also gets an order label: appends take increasing labels, a replacement takes the
//! label of the first node it shadows. Labels therefore increase along the list at all times,
//! which makes "does S stand before E?" an O(1) comparison.

/// "No node".
pub const NIL: u32 = u32::MAX;

/// The linked list state: 12 bytes per node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    prev: Vec<u32>,
    next: Vec<u32>,
    label: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
    next_label: u32,
}

impl Links {
    /// An empty list.
    pub fn new() -> Self {
        Links {
            head: NIL,
            tail: NIL,
            ..Default::default()
        }
    }

    /// Adds room for one more node (amortized O(1)) and returns its number: the number of
    /// nodes added before it.
    pub fn add_node(&mut self) -> u32 {
        let node = self.prev.len() as u32;
        self.prev.push(NIL);
        self.next.push(NIL);
        self.label.push(0);
        node
    }

    /// Gives the per-node arrays back their growth slack.
    pub fn shrink_to_fit(&mut self) {
        self.prev.shrink_to_fit();
        self.next.shrink_to_fit();
        self.label.shrink_to_fit();
    }

    /// Heap bytes held by the per-node arrays.
    pub fn heap_bytes(&self) -> usize {
        (self.prev.capacity() + self.next.capacity() + self.label.capacity()) * 4
    }

    /// Number of nodes on the list.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// First node.
    pub fn head(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// Last node.
    pub fn tail(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// The node after `node` (only meaningful while `node` is on the list).
    pub fn next(&self, node: u32) -> Option<u32> {
        self.next.get(node as usize).copied().filter(|&n| n != NIL)
    }

    /// The node before `node` (only meaningful while `node` is on the list).
    pub fn prev(&self, node: u32) -> Option<u32> {
        self.prev.get(node as usize).copied().filter(|&n| n != NIL)
    }

    /// The order label of a node that has been on the list.
    pub fn label(&self, node: u32) -> u32 {
        self.label.get(node as usize).copied().unwrap_or(0)
    }

    /// Assigns the label of a node appended for the first time.
    pub fn assign_append_label(&mut self, node: u32) {
        self.label[node as usize] = self.next_label;
        self.next_label += 1;
    }

    /// Assigns the label of a replacement taking `first`'s place.
    pub fn assign_replace_label(&mut self, node: u32, first: u32) {
        self.label[node as usize] = self.label[first as usize];
    }

    /// Links `node` after the tail.
    pub fn append(&mut self, node: u32) {
        let n = node as usize;
        self.prev[n] = self.tail;
        self.next[n] = NIL;
        if self.tail == NIL {
            self.head = node;
        } else {
            self.next[self.tail as usize] = node;
        }
        self.tail = node;
        self.len += 1;
    }

    /// Undoes [`Links::append`] of `node` (which must be the tail).
    pub fn undo_append(&mut self, node: u32) {
        debug_assert_eq!(self.tail, node);
        self.tail = self.prev[node as usize];
        if self.tail == NIL {
            self.head = NIL;
        } else {
            self.next[self.tail as usize] = NIL;
        }
        self.len -= 1;
    }

    /// Replaces the sub-chain `first..=last` (of `count` nodes) by `node`. The sub-chain keeps
    /// its links so that [`Links::undo_replace`] can splice it back.
    pub fn replace(&mut self, first: u32, last: u32, count: usize, node: u32) {
        let p = self.prev[first as usize];
        let n = self.next[last as usize];
        self.prev[node as usize] = p;
        self.next[node as usize] = n;
        if p == NIL {
            self.head = node;
        } else {
            self.next[p as usize] = node;
        }
        if n == NIL {
            self.tail = node;
        } else {
            self.prev[n as usize] = node;
        }
        self.len = self.len + 1 - count;
    }

    /// Undoes [`Links::replace`]: splices `chain` (the nodes it shadowed, in order) back in
    /// place of `node`, relinking the chain itself. Relinking costs O(chain length) but makes
    /// undo independent of what the chain's own links hold: a jump through a checkpoint
    /// ([`Links::restore`]) leaves off-list nodes' links stale, and must be allowed to.
    pub fn undo_replace(&mut self, chain: impl IntoIterator<Item = u32>, node: u32) {
        let p = self.prev[node as usize];
        let n = self.next[node as usize];
        let mut before = p;
        let mut count = 0;
        for c in chain {
            self.prev[c as usize] = before;
            if before == NIL {
                self.head = c;
            } else {
                self.next[before as usize] = c;
            }
            before = c;
            count += 1;
        }
        if count == 0 {
            return;
        }
        if n == NIL {
            self.tail = before;
        } else {
            self.prev[n as usize] = before;
        }
        self.next[before as usize] = n;
        self.len = self.len + count - 1;
    }

    /// Makes the list exactly `nodes` (in order), relinking only those nodes: O(`nodes`).
    /// Links of nodes not in `nodes` are left as they are (stale); nothing reads them while
    /// they are off the list (see [`Links::undo_replace`]).
    pub fn restore(&mut self, nodes: &[u32]) {
        let mut before = NIL;
        for &c in nodes {
            self.prev[c as usize] = before;
            if before != NIL {
                self.next[before as usize] = c;
            }
            before = c;
        }
        if let Some(&last) = nodes.last() {
            self.next[last as usize] = NIL;
        }
        self.head = nodes.first().copied().unwrap_or(NIL);
        self.tail = before;
        self.len = nodes.len();
    }

    /// The nodes from `first` through `last` following `next` links (both must be on the list,
    /// `first` not after `last`).
    pub fn chain(&self, first: u32, last: u32) -> Vec<u32> {
        let mut out = vec![first];
        let mut at = first;
        while at != last {
            match self.next(at) {
                Some(n) => {
                    out.push(n);
                    at = n;
                }
                None => break,
            }
        }
        out
    }

    /// Iterates the nodes in order.
    pub fn iter(&self) -> LinksIter<'_> {
        LinksIter {
            links: self,
            at: self.head,
        }
    }
}

/// Iterator over the list, head to tail.
pub struct LinksIter<'a> {
    links: &'a Links,
    at: u32,
}

impl Iterator for LinksIter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.at == NIL {
            return None;
        }
        let node = self.at;
        self.at = self.links.next[node as usize];
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(l: &Links) -> Vec<u32> {
        l.iter().collect()
    }

    #[test]
    fn append_replace_undo_round_trip() {
        let mut l = Links::new();
        for _ in 0..10 {
            l.add_node();
        }
        for n in [1, 3, 5, 6] {
            l.assign_append_label(n);
            l.append(n);
        }
        let before = l.clone();
        l.assign_replace_label(9, 1);
        l.replace(1, 5, 3, 9);
        assert_eq!(list(&l), [9, 6]);
        assert_eq!(l.len(), 2);
        assert!(l.label(9) < l.label(6));
        l.undo_replace([1, 3, 5], 9);
        assert_eq!(list(&l), [1, 3, 5, 6]);
        assert_eq!(l.len(), 4);
        // Links of the restored nodes are exactly as before.
        for n in [1, 3, 5, 6] {
            assert_eq!(l.prev(n), before.prev(n));
            assert_eq!(l.next(n), before.next(n));
        }
        l.undo_append(6);
        assert_eq!(list(&l), [1, 3, 5]);
    }

    #[test]
    fn restore_then_undo_ignores_stale_links() {
        let mut l = Links::new();
        for _ in 0..10 {
            l.add_node();
        }
        for n in [1, 3, 5, 6] {
            l.append(n);
        }
        l.replace(3, 5, 2, 9);
        assert_eq!(list(&l), [1, 9, 6]);
        // Stale links everywhere: a jump to an empty list, then straight to the checkpoint.
        l.restore(&[]);
        assert!(l.is_empty());
        l.restore(&[3, 5]);
        l.restore(&[1, 9, 6]);
        assert_eq!(list(&l), [1, 9, 6]);
        assert_eq!(l.tail(), Some(6));
        // 3 and 5 hold links of the [3, 5] list, not of the time of the replace.
        l.undo_replace([3, 5], 9);
        assert_eq!(list(&l), [1, 3, 5, 6]);
        assert_eq!(l.len(), 4);
        assert_eq!(l.prev(3), Some(1));
        assert_eq!(l.next(5), Some(6));
        assert_eq!(l.prev(6), Some(5));
        l.undo_append(6);
        assert_eq!(list(&l), [1, 3, 5]);
    }

    #[test]
    fn replace_at_both_ends() {
        let mut l = Links::new();
        for n in 0..4 {
            assert_eq!(l.add_node(), n, "node numbers are dense, from 0");
        }
        l.append(0);
        l.append(1);
        l.replace(0, 1, 2, 2);
        assert_eq!(list(&l), [2]);
        assert_eq!(l.head(), Some(2));
        assert_eq!(l.tail(), Some(2));
        l.undo_replace([0, 1], 2);
        assert_eq!(list(&l), [0, 1]);
        assert_eq!(l.chain(0, 1), [0, 1]);
    }
}
