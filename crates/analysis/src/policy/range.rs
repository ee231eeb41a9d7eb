//! The summary's range (docs/policy.md): keep a token budget at the tail, never split a
//! tool call from its result, and summarise everything before — always from the head.

use super::node::Node;

/// Where the kept tail starts: the index of the first node a summary keeps, so the range is
/// `nodes[..keep]`. Walks from the newest node back adding prices until the sum reaches
/// `budget` (the tail is never empty), then moves toward the head until the tool pairing
/// before it is balanced. `None` when that leaves nothing to summarise.
pub fn keep_index(nodes: &[Node], budget: u64) -> Option<usize> {
    let mut sum = 0u64;
    let mut keep = 0;
    for (k, node) in nodes.iter().enumerate().rev() {
        sum += u64::from(node.price);
        if sum >= budget {
            keep = k;
            break;
        }
    }
    if keep == 0 {
        return None;
    }
    let mut balance: i64 = nodes[..keep].iter().map(Node::pairing).sum();
    while keep > 0 && balance != 0 {
        keep -= 1;
        balance -= nodes[keep].pairing();
    }
    (keep > 0).then_some(keep)
}

/// The retain budgets under which [`keep_index`] gives exactly `keep` on `nodes`, as an
/// inclusive interval: the node that reached the budget lies between `keep` and the last
/// index up to which the pairing stays unbalanced. `None` when no budget gives `keep`.
pub fn budgets_for(nodes: &[Node], keep: usize) -> Option<(u64, u64)> {
    if keep == 0 || keep >= nodes.len() {
        return None;
    }
    let mut balance: i64 = nodes[..keep].iter().map(Node::pairing).sum();
    if balance != 0 {
        return None;
    }
    // The furthest index the budget's node may have been at: every index after `keep` up
    // to it is unbalanced.
    let mut last = keep;
    while last + 1 < nodes.len() {
        balance += nodes[last].pairing();
        if balance == 0 {
            break;
        }
        last += 1;
    }
    let suffix = |from: usize| -> u64 { nodes[from..].iter().map(|n| u64::from(n.price)).sum() };
    // The budget's node k satisfies suffix(k + 1) < budget ≤ suffix(k), for k in keep..=last;
    // the newest node is reached by every budget up to its price, 0 included.
    let lo = if last + 1 == nodes.len() {
        0
    } else {
        suffix(last + 1) + 1
    };
    Some((lo, suffix(keep)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(event: u32, price: u32, calls: u16, result: bool) -> Node {
        Node {
            event,
            seq: u64::from(event),
            price,
            calls,
            result,
            chars: 0,
            chars_exact: true,
        }
    }

    #[test]
    fn keeps_the_budget_and_the_pairing() {
        // user, assistant(call), result, assistant(call), result
        let nodes = [
            node(0, 100, 0, false),
            node(1, 50, 1, false),
            node(2, 300, 0, true),
            node(3, 50, 1, false),
            node(4, 300, 0, true),
        ];
        // 300 reaches 250 at index 4, which would split call 3 from result 4: back to 3.
        assert_eq!(keep_index(&nodes, 250), Some(3));
        assert_eq!(keep_index(&nodes, 350), Some(3));
        assert_eq!(keep_index(&nodes, 351), Some(1));
        assert_eq!(keep_index(&nodes, 0), Some(3));
        assert_eq!(keep_index(&nodes, 10_000), None);
        // Budget 0 keeps the newest node (and its pairing): the interval starts at 0.
        assert_eq!(budgets_for(&nodes, 3), Some((0, 350)));
        assert_eq!(budgets_for(&nodes, 1), Some((351, 700)));
        for b in [0, 1, 200, 350, 351, 650, 700] {
            let keep = keep_index(&nodes, b).unwrap();
            let (lo, hi) = budgets_for(&nodes, keep).unwrap();
            assert!(lo <= b && b <= hi, "{b}: {lo}..={hi}");
        }
    }
}
