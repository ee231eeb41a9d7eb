//! Keyboard navigation: stepping the cursor by turn or by model call, and moving the
//! selection of the list that has the keyboard (timeline, surface, Compactions table,
//! findings) by a row, a page, or to either end.

use surface_engine::EventType;
use surface_engine::{EventIdx, EventLog};

/// The lists ↑/↓/PgUp/PgDn/Ctrl+Home/Ctrl+End move the selection of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListKind {
    /// The timeline's (filtered) rows.
    #[default]
    Timeline,
    /// The surface panel's nodes at the cursor.
    Surface,
    /// The Compactions table, in its sort order.
    Compactions,
    /// The findings list.
    Findings,
}

/// Type of the event that starts a turn.
pub const TURN_START: EventType = EventType::TurnStart;
/// Type of the event that starts a model call (a step of a turn).
pub const MODEL_CALL_START: EventType = EventType::StepStart;

/// The next (`forward`) or previous event of type `type_name` relative to `cursor` events
/// applied: forward, the first at or after the next event to apply; back, the last before the
/// event just applied (so that repeated presses walk back one by one).
pub fn step_to_type(
    log: &EventLog,
    cursor: usize,
    event_type: EventType,
    forward: bool,
) -> Option<EventIdx> {
    let kind = log.types.id_of(event_type)?;
    let events = &log.events;
    let found = if forward {
        events
            .get(cursor..)?
            .iter()
            .position(|e| e.kind == kind)
            .map(|p| cursor + p)
    } else {
        let end = cursor.saturating_sub(1).min(events.len());
        events[..end].iter().rposition(|e| e.kind == kind)
    };
    found.map(|i| EventIdx(i as u32))
}

/// The row `delta` rows from `current` in a list of `len` rows, clamped; `None` for an empty
/// list. Without a current row, moving down starts at the first row and up at the last.
pub fn moved_row(current: Option<usize>, delta: isize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let last = len - 1;
    Some(match current {
        None if delta >= 0 => 0,
        None => last,
        Some(row) => row.min(last).saturating_add_signed(delta).min(last),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> EventLog {
        let text = r#"{"type":"session","version":0,"id":"n","createdAt":1}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":2,"data":{"turn":1,"step":1}}
{"type":"step/end","seq":2,"time":3,"data":{"turn":1,"step":1}}
{"type":"step/start","seq":3,"time":4,"data":{"turn":1,"step":2}}
{"type":"turn/end","seq":4,"time":5,"data":{"turn":1}}
{"type":"turn/start","seq":5,"time":6,"data":{"turn":2}}
"#;
        surface_store::read_jsonl(text.as_bytes().to_vec(), None).expect("not cancelled")
    }

    #[test]
    fn steps_by_turn_and_by_model_call() {
        let log = log();
        // From the start: the first turn, then the first call.
        assert_eq!(step_to_type(&log, 0, TURN_START, true), Some(EventIdx(0)));
        assert_eq!(
            step_to_type(&log, 1, MODEL_CALL_START, true),
            Some(EventIdx(1))
        );
        assert_eq!(
            step_to_type(&log, 2, MODEL_CALL_START, true),
            Some(EventIdx(3))
        );
        assert_eq!(step_to_type(&log, 1, TURN_START, true), Some(EventIdx(5)));
        assert_eq!(step_to_type(&log, 6, TURN_START, true), None);
        // Back from just past the second call: the first call.
        assert_eq!(
            step_to_type(&log, 4, MODEL_CALL_START, false),
            Some(EventIdx(1))
        );
        assert_eq!(step_to_type(&log, 6, TURN_START, false), Some(EventIdx(0)));
        assert_eq!(step_to_type(&log, 1, TURN_START, false), None);
        assert_eq!(
            step_to_type(&log, 0, EventType::CompactionPrune, true),
            None
        );
        assert_eq!(step_to_type(&log, 99, TURN_START, true), None);
    }

    #[test]
    fn rows_move_and_clamp() {
        assert_eq!(moved_row(Some(3), 1, 10), Some(4));
        assert_eq!(moved_row(Some(3), -5, 10), Some(0));
        assert_eq!(moved_row(Some(8), 20, 10), Some(9));
        assert_eq!(moved_row(None, 1, 10), Some(0));
        assert_eq!(moved_row(None, -1, 10), Some(9));
        assert_eq!(moved_row(Some(0), 1, 0), None);
    }
}
