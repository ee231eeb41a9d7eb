//! Where an event lies for the comparison (docs/compare.md): its **turn**, the number of
//! `turn/start` events at or before it (events before the first: turn 0), and its **step**, the
//! number of `step/start` events from its turn's start up to it (0 before the turn's first
//! step). Both are indices, not the `data.turn` / `data.step` the events carry: two logs pair
//! by position, whatever their payloads say (in a well-formed log they agree).

use serde::Serialize;

use surface_engine::{EventIdx, EventLog, EventType};

/// An event's turn and step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Position {
    /// Turns started at or before it (0: before the first `turn/start`).
    pub turn: u64,
    /// Steps started in that turn at or before it (0: before the turn's first `step/start`).
    pub step: u64,
}

/// The `turn/start` and `step/start` events of a log, for [`Positions::of`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Positions {
    /// Event indices of the `turn/start` events, ascending.
    turns: Vec<u32>,
    /// Event index and position of every `step/start`, ascending.
    steps: Vec<(u32, Position)>,
}

impl Positions {
    /// Reads the record types of `log` (no event text). O(events).
    pub fn build(log: &EventLog) -> Positions {
        let turn = log.types.id_of(EventType::TurnStart);
        let step = log.types.id_of(EventType::StepStart);
        let mut out = Positions::default();
        let mut at = Position::default();
        for (i, e) in log.events.iter().enumerate() {
            if Some(e.kind) == turn {
                out.turns.push(i as u32);
                at = Position {
                    turn: at.turn + 1,
                    step: 0,
                };
            } else if Some(e.kind) == step {
                at.step += 1;
                out.steps.push((i as u32, at));
            }
        }
        out
    }

    /// How many turns the log started.
    pub fn turns(&self) -> u64 {
        self.turns.len() as u64
    }

    /// The turn and step of the event at `idx`. O(log turns + log steps).
    pub fn of(&self, idx: EventIdx) -> Position {
        let turn = self.turns.partition_point(|&t| t <= idx.0) as u64;
        let k = self.steps.partition_point(|&(s, _)| s <= idx.0);
        let step = k
            .checked_sub(1)
            .map(|k| self.steps[k].1)
            .filter(|p| p.turn == turn)
            .map_or(0, |p| p.step);
        Position { turn, step }
    }

    /// The turn of the event at `idx`.
    pub fn turn_of(&self, idx: EventIdx) -> u64 {
        self.turns.partition_point(|&t| t <= idx.0) as u64
    }

    /// The first event of turn `turn` (its `turn/start`; turn 0 starts the log).
    pub fn turn_start(&self, turn: u64) -> Option<usize> {
        match turn {
            0 => Some(0),
            t => self.turns.get(t as usize - 1).map(|&i| i as usize),
        }
    }

    /// The events of turn `turn`, in a log of `len` events (empty when there is no such turn).
    pub fn turn_range(&self, turn: u64, len: usize) -> std::ops::Range<usize> {
        let Some(start) = self.turn_start(turn) else {
            return 0..0;
        };
        let end = self
            .turns
            .get(turn as usize)
            .map_or(len, |&i| i as usize)
            .min(len);
        start.min(end)..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log_of(types: &[&str]) -> EventLog {
        let lines: Vec<_> = types
            .iter()
            .enumerate()
            .map(|(seq, t)| json!({"type": t, "seq": seq, "data": {}}))
            .collect();
        crate::cost::tests::log_of(&lines)
    }

    #[test]
    fn turns_and_steps_count_their_starts() {
        let log = log_of(&[
            "request/header", // turn 0
            "turn/start",     // turn 1
            "user/message",
            "step/start", // 1.1
            "assistant/message",
            "step/end",
            "step/start", // 1.2
            "turn/end",
            "turn/start", // turn 2, step 0
            "user/message",
            "step/start", // 2.1
        ]);
        let p = Positions::build(&log);
        let at = |i: u32| {
            let p = p.of(EventIdx(i));
            (p.turn, p.step)
        };
        assert_eq!(p.turns(), 2);
        assert_eq!(at(0), (0, 0));
        assert_eq!(at(1), (1, 0));
        assert_eq!(at(3), (1, 1));
        assert_eq!(at(5), (1, 1));
        assert_eq!(at(7), (1, 2));
        assert_eq!(at(8), (2, 0));
        assert_eq!(at(9), (2, 0));
        assert_eq!(at(10), (2, 1));
        assert_eq!(p.turn_range(0, log.len()), 0..1);
        assert_eq!(p.turn_range(1, log.len()), 1..8);
        assert_eq!(p.turn_range(2, log.len()), 8..11);
        assert_eq!(p.turn_range(3, log.len()), 0..0);
    }

    #[test]
    fn a_log_that_opens_with_a_turn_has_an_empty_turn_zero() {
        let log = log_of(&["turn/start", "step/start"]);
        let p = Positions::build(&log);
        assert_eq!(p.turn_range(0, log.len()), 0..0);
        assert_eq!(p.of(EventIdx(1)), Position { turn: 1, step: 1 });
    }
}
