//! Back/forward history of jumps (Alt+←/Alt+→, the mouse's back and forward buttons): every
//! jump — a seek, a followed link, a finding, a compaction row, a search hit, a step by turn
//! or model call — remembers where it came from. A drag of the scrubber is one jump.

use surface_engine::EventIdx;

/// Most places kept in each direction.
pub const HISTORY_LIMIT: usize = 200;

/// Where the user was: the replay cursor and the selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Events applied.
    pub cursor: usize,
    /// The selected event.
    pub selected: Option<EventIdx>,
}

/// The two stacks of places.
#[derive(Debug, Default)]
pub struct History {
    back: Vec<Place>,
    forward: Vec<Place>,
    /// Where the last seek landed, while no other jump came after it: the next seek from
    /// there continues the same drag instead of adding a place.
    seek_landed: Option<Place>,
}

impl History {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = History::default();
    }

    /// A jump from `from` to `to` happened (`seek`: it was a scrubber seek, which a drag
    /// repeats every frame). Nothing is recorded when the place did not change.
    pub fn record(&mut self, from: Place, to: Place, seek: bool) {
        if from == to {
            return;
        }
        let continues_drag = seek && self.seek_landed == Some(from);
        self.seek_landed = seek.then_some(to);
        if continues_drag {
            // A drag (or a click a double-click took back) that ends where it began: no jump.
            if self.back.last() == Some(&to) {
                self.back.pop();
                self.seek_landed = None;
            }
            return;
        }
        self.back.push(from);
        if self.back.len() > HISTORY_LIMIT {
            self.back.remove(0);
        }
        self.forward.clear();
    }

    /// The place to go back to from `now`, which becomes the way forward.
    pub fn back(&mut self, now: Place) -> Option<Place> {
        let to = self.back.pop()?;
        self.forward.push(now);
        self.seek_landed = None;
        Some(to)
    }

    /// The place to go forward to from `now`, which becomes the way back.
    pub fn forward(&mut self, now: Place) -> Option<Place> {
        let to = self.forward.pop()?;
        self.back.push(now);
        self.seek_landed = None;
        Some(to)
    }

    /// Places to go back to.
    pub fn back_len(&self) -> usize {
        self.back.len()
    }

    /// Places to go forward to.
    #[cfg(test)]
    pub fn forward_len(&self) -> usize {
        self.forward.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cursor: usize) -> Place {
        Place {
            cursor,
            selected: None,
        }
    }

    #[test]
    fn back_and_forward_walk_the_jumps() {
        let mut h = History::default();
        h.record(at(10), at(50), false);
        h.record(at(50), at(70), false);
        assert_eq!(h.back(at(70)), Some(at(50)));
        assert_eq!(h.back(at(50)), Some(at(10)));
        assert_eq!(h.back(at(10)), None);
        assert_eq!(h.forward(at(10)), Some(at(50)));
        // A new jump drops the way forward.
        h.record(at(50), at(5), false);
        assert_eq!(h.forward_len(), 0);
        assert_eq!(h.back(at(5)), Some(at(50)));
    }

    #[test]
    fn a_drag_is_one_jump_and_no_move_is_none() {
        let mut h = History::default();
        h.record(at(3), at(3), false);
        assert_eq!(h.back_len(), 0);
        h.record(at(0), at(10), true);
        h.record(at(10), at(20), true);
        h.record(at(20), at(30), true);
        assert_eq!(h.back_len(), 1);
        // A seek after another jump is a new place.
        h.record(at(30), at(40), false);
        h.record(at(40), at(45), true);
        assert_eq!(h.back_len(), 3);
    }

    #[test]
    fn the_stack_is_bounded() {
        let mut h = History::default();
        for i in 0..HISTORY_LIMIT + 50 {
            h.record(at(i), at(i + 1), false);
        }
        assert_eq!(h.back_len(), HISTORY_LIMIT);
    }
}
