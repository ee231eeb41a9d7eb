//! The prompt cache a compaction breaks (docs/cost.md): `cache_lost = max(0, P_prev −
//! cache_read_next)`, where `P_prev` is the prompt of the last agent call before the replace and
//! `cache_read_next` the cache read of the first one after it — what the next call would have
//! read from the cache had the prompt only grown. The same formula over consecutive calls with
//! no replace between them is the provider's own *cache noise*, whose median lets a user judge
//! a compaction's figure.
//!
//! Several compactions often run between the same two calls (a check prunes, then summarises).
//! The cache is lost once, from the first position the prompt changed at: the gap's loss is
//! charged to the compaction whose change begins earliest in the prompt (ties to the later one,
//! which covers the earlier), and the others are charged 0 — their change lies behind a break
//! that had already happened. Every compaction still reports the gap's figure.

use super::calls::Call;

/// Where a replace lies among the agent calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gap {
    /// The last agent call whose prompt was fixed before the replace (index into the agent
    /// calls).
    pub prev: Option<usize>,
    /// The first agent call whose prompt was fixed after it.
    pub next: Option<usize>,
    /// `max(0, P_prev − cache_read_next)`; `None` when the log is not caching or either call is
    /// missing or has no reported usage.
    pub lost: Option<u64>,
    /// Either call exists but the provider reported no usage for it: what it lost is unknown.
    pub unknown: bool,
}

/// `max(0, P_prev − cache_read_next)` of two calls.
pub fn lost_between(prev: &Call, next: &Call) -> u64 {
    prev.tokens.prompt().saturating_sub(next.tokens.cache_read)
}

/// The gap a replace at event index `at` lies in. `agents` are the agent calls in log order
/// (their cursors do not decrease).
pub fn gap_at(agents: &[Call], at: usize, caching: bool) -> Gap {
    let k = agents.partition_point(|c| c.cursor <= at);
    let prev = k.checked_sub(1);
    let next = (k < agents.len()).then_some(k);
    let calls = prev.zip(next).map(|(p, n)| (&agents[p], &agents[n]));
    let unknown = [prev, next]
        .into_iter()
        .flatten()
        .any(|i| !agents[i].reported);
    let lost = match calls {
        Some((p, n)) if caching && p.reported && n.reported => Some(lost_between(p, n)),
        _ => None,
    };
    Gap {
        prev,
        next,
        lost,
        unknown,
    }
}

/// Which of the compactions sharing a gap is charged its loss: the one whose change begins
/// earliest in the prompt, ties to the later one; the last one when a position is unknown.
/// `positions` are in log order.
pub fn charged(positions: &[Option<usize>]) -> usize {
    if positions.iter().any(Option::is_none) {
        return positions.len().saturating_sub(1);
    }
    let mut best = 0;
    for (k, p) in positions.iter().enumerate() {
        if p <= &positions[best] {
            best = k;
        }
    }
    best
}

/// The provider's cache noise: `max(0, P_prev − cache_read_next)` over consecutive agent calls
/// (both with usage) with no applied replace between them (`replaces`: the replace events'
/// indices, ascending), and its median (the lower of the two middle values' mean, rounded
/// down). `None` when there is no such pair.
pub fn noise(agents: &[Call], replaces: &[usize]) -> (Vec<u64>, Option<u64>) {
    let mut samples: Vec<u64> = agents
        .windows(2)
        .filter(|w| w[0].reported && w[1].reported)
        .filter(|w| {
            // Any replace `r` with prev.cursor ≤ r < next.cursor changed the next prompt.
            let k = replaces.partition_point(|&r| r < w[0].cursor);
            replaces.get(k).is_none_or(|&r| r >= w[1].cursor)
        })
        .map(|w| lost_between(&w[0], &w[1]))
        .collect();
    let median = median(&mut samples);
    (samples, median)
}

/// The median of `values` (sorted in place); the mean of the two middle values, rounded down,
/// for an even count.
pub fn median(values: &mut [u64]) -> Option<u64> {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::{CallKind, Tokens};
    use surface_engine::EventIdx;

    fn call(cursor: usize, prompt_uncached: u64, cache_read: u64) -> Call {
        Call {
            seq: cursor as u64,
            kind: CallKind::Agent,
            turn: Some(1),
            step: None,
            tokens: Tokens {
                uncached: prompt_uncached,
                cache_read,
                cache_write: 0,
                output: 10,
            },
            reported: true,
            route: 0,
            event: EventIdx(cursor as u32),
            cursor,
        }
    }

    #[test]
    fn a_gap_is_the_calls_around_the_replace() {
        let agents = [call(10, 100, 0), call(20, 50, 90), call(30, 80, 20)];
        let g = gap_at(&agents, 25, true);
        assert_eq!((g.prev, g.next), (Some(1), Some(2)));
        assert_eq!(g.lost, Some(140 - 20));
        // A replace at the event a call's prompt was fixed after (cursor 20 = after 20 events:
        // event 20 is not in it) lies before that call.
        assert_eq!(gap_at(&agents, 20, true).next, Some(2));
        assert_eq!(gap_at(&agents, 19, true).next, Some(1));
        // Before the first call, after the last: no loss to report.
        let first = gap_at(&agents, 5, true);
        assert_eq!((first.prev, first.next, first.lost), (None, Some(0), None));
        let last = gap_at(&agents, 35, true);
        assert_eq!((last.prev, last.next, last.lost), (Some(2), None, None));
        assert!(!last.unknown);
        // Not caching: null, never 0.
        assert_eq!(gap_at(&agents, 25, false).lost, None);
        // The cache only grew: nothing lost.
        assert_eq!(
            gap_at(&[call(1, 10, 0), call(5, 5, 10)], 3, true).lost,
            Some(0)
        );
    }

    #[test]
    fn an_unreported_neighbour_makes_the_loss_unknown() {
        let mut agents = [call(10, 100, 0), call(20, 50, 90)];
        agents[1].reported = false;
        let g = gap_at(&agents, 15, true);
        assert_eq!(g.lost, None);
        assert!(g.unknown);
    }

    #[test]
    fn the_earliest_change_is_charged_ties_to_the_later() {
        assert_eq!(charged(&[Some(12), Some(20), Some(1)]), 2);
        assert_eq!(charged(&[Some(3), Some(9)]), 0);
        assert_eq!(charged(&[Some(3), Some(3)]), 1);
        assert_eq!(charged(&[Some(3), None, Some(9)]), 2);
        assert_eq!(charged(&[Some(7)]), 0);
    }

    #[test]
    fn noise_skips_pairs_with_a_replace_between_them() {
        let agents = [
            call(10, 100, 0),
            call(20, 10, 95),  // 100 − 95 = 5
            call(30, 10, 200), // a replace at 25 lies between: skipped
            call(40, 10, 205), // 210 − 205 = 5
            call(50, 10, 100), // 215 − 100 = 115
        ];
        let (samples, median) = noise(&agents, &[25]);
        assert_eq!(samples, vec![5, 5, 115]);
        assert_eq!(median, Some(5));
        assert_eq!(noise(&agents[..1], &[]).1, None);
        assert_eq!(median_of(&[1, 4, 9, 2]), Some(3));
    }

    fn median_of(v: &[u64]) -> Option<u64> {
        median(&mut v.to_vec())
    }
}
