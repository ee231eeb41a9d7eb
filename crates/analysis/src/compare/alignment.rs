//! How two runs line up (docs/compare.md): turns pair by index, and inside a turn agent calls
//! pair by step index — turn 2's third step in A against turn 2's third step in B, whatever
//! happened before. A turn or a step only one run has pairs with `null`.

use serde::Serialize;

use super::analysed::{Analysed, CallFigures};
use super::row::{Difference, Row};

/// One agent call of each run at the same step of the same turn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CallPair {
    /// The step index within the turn (1: the turn's first `step/start`).
    pub step: u64,
    /// A's call there.
    pub a: Option<CallFigures>,
    /// B's call there.
    pub b: Option<CallFigures>,
}

/// One turn of each run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnPair {
    /// The turn index (0: before the first `turn/start`).
    pub turn: u64,
    /// A's figures (`null`: A has no such turn).
    pub a: Option<Row>,
    /// B's figures.
    pub b: Option<Row>,
    /// B − A (`null` unless both have the turn).
    pub b_minus_a: Option<Difference>,
    /// The agent calls, paired by step.
    pub calls: Vec<CallPair>,
}

/// The turns of both runs, paired by index (a turn neither has is left out: turn 0 when both
/// logs open with a `turn/start`).
pub fn align(a: &Analysed, b: &Analysed) -> Vec<TurnPair> {
    let count = a.turns.len().max(b.turns.len());
    let mut calls_a = a.calls.iter().peekable();
    let mut calls_b = b.calls.iter().peekable();
    let mut out = Vec::with_capacity(count);
    for t in 0..count {
        let row_a = a.turns.get(t).copied().flatten();
        let row_b = b.turns.get(t).copied().flatten();
        let turn = t as u64;
        let in_turn = |calls: &mut std::iter::Peekable<std::slice::Iter<'_, CallFigures>>| {
            let mut out = Vec::new();
            while let Some(c) = calls.next_if(|c| c.position.turn <= turn) {
                if c.position.turn == turn {
                    out.push(*c);
                }
            }
            out
        };
        let calls = pair_steps(&in_turn(&mut calls_a), &in_turn(&mut calls_b));
        if row_a.is_none() && row_b.is_none() && calls.is_empty() {
            continue;
        }
        out.push(TurnPair {
            turn,
            a: row_a,
            b: row_b,
            b_minus_a: row_a.zip(row_b).map(|(x, y)| Difference::of(&x, &y)),
            calls,
        });
    }
    out
}

/// The calls of one turn of each run (each in step order), paired by step index.
fn pair_steps(a: &[CallFigures], b: &[CallFigures]) -> Vec<CallPair> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() || j < b.len() {
        let sa = a.get(i).map(|c| c.position.step);
        let sb = b.get(j).map(|c| c.position.step);
        let step = match (sa, sb) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (None, None) => break,
        };
        let take = |calls: &[CallFigures], k: &mut usize, s: Option<u64>| {
            (s == Some(step)).then(|| {
                *k += 1;
                calls[*k - 1]
            })
        };
        let pair = CallPair {
            step,
            a: take(a, &mut i, sa),
            b: take(b, &mut j, sb),
        };
        out.push(pair);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::position::Position;
    use surface_engine::EventIdx;

    fn call(turn: u64, step: u64, prompt: u64) -> CallFigures {
        CallFigures {
            seq: turn * 100 + step,
            prompt,
            cache_read: None,
            output: 1,
            cost: None,
            position: Position { turn, step },
            event: EventIdx(0),
        }
    }

    #[test]
    fn calls_pair_by_step_and_a_missing_step_pairs_with_null() {
        let a = [call(1, 1, 10), call(1, 2, 20), call(1, 4, 40)];
        let b = [
            call(1, 1, 11),
            call(1, 3, 31),
            call(1, 4, 41),
            call(1, 5, 51),
        ];
        let pairs = pair_steps(&a, &b);
        let seen: Vec<(u64, Option<u64>, Option<u64>)> = pairs
            .iter()
            .map(|p| (p.step, p.a.map(|c| c.prompt), p.b.map(|c| c.prompt)))
            .collect();
        assert_eq!(
            seen,
            [
                (1, Some(10), Some(11)),
                (2, Some(20), None),
                (3, None, Some(31)),
                (4, Some(40), Some(41)),
                (5, None, Some(51)),
            ]
        );
    }
}
