//! The `tool-call` blocks of a log's `assistant/message` events, counted apart from the rest of
//! the policy input: the count reads every message's text, which the rest of the input's build
//! never needs, so a caller with a second core counts them beside it
//! ([`PolicyInput::build_deferring_calls`](super::PolicyInput::build_deferring_calls), then
//! [`PolicyInput::set_tool_calls`](super::PolicyInput::set_tool_calls)) — the input is the one
//! [`PolicyInput::build_with`](super::PolicyInput::build_with) gives.

use super::facts::tool_call_blocks;
use crate::{EventIdx, EventLog, EventType, Surface};

/// `(event, tool-call blocks)` of every `assistant/message` the surface processed that makes
/// at least one call, by event ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCalls {
    by_event: Vec<(u32, u16)>,
}

impl ToolCalls {
    /// Counts the calls of every `assistant/message` among the events `surface` processed
    /// (nodes or not: the input asks only about nodes).
    pub fn count(log: &EventLog, surface: &Surface) -> Self {
        let n = surface.processed().min(log.len());
        let Some(assistant) = log.types.id_of(EventType::AssistantMessage) else {
            return ToolCalls::default();
        };
        let by_event = (0..n as u32)
            .filter(|&i| log.event(EventIdx(i)).kind == assistant)
            .filter_map(|i| {
                let calls = log.with_event_bytes(EventIdx(i), tool_call_blocks);
                (calls > 0).then_some((i, calls))
            })
            .collect();
        ToolCalls { by_event }
    }

    /// True when no message makes a call.
    pub fn is_empty(&self) -> bool {
        self.by_event.is_empty()
    }

    /// The calls of the message at event `event` (0 for any other event).
    pub fn of(&self, event: u32) -> u16 {
        self.by_event
            .binary_search_by_key(&event, |&(e, _)| e)
            .map_or(0, |k| self.by_event[k].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_not_counted_makes_no_call() {
        let calls = ToolCalls {
            by_event: vec![(3, 2), (9, 1)],
        };
        assert_eq!(calls.of(3), 2);
        assert_eq!(calls.of(9), 1);
        assert_eq!(calls.of(4), 0);
        assert_eq!(ToolCalls::default().of(3), 0);
    }
}
