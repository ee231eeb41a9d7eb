//! The event types the engine reads by name, as one enum: every type name is spelled here and
//! nowhere else in the engine's logic (docs/parity.md lists them era by era).
//!
//! A log may hold any other type (plugins, later harnesses): those are [`EventType::Other`] and
//! keep their names in the log's type table. The enum is per type, not per event: the log
//! interns each distinct name once and remembers its `EventType` beside it, so asking an
//! event's type is an array lookup.

/// A known event type, or [`EventType::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    /// `user/message` (surface-eligible).
    UserMessage,
    /// `assistant/message` (surface-eligible).
    AssistantMessage,
    /// `tool/result` (surface-eligible).
    ToolResult,
    /// `context/message` (surface-eligible until 2026-08; a wrapper message).
    ContextMessage,
    /// `steering/message` (surface-eligible until 2026-07; a wrapper message).
    SteeringMessage,
    /// `assistant/chunk`: one streamed chunk (packed rows hold many).
    AssistantChunk,
    /// `tool/call`.
    ToolCall,
    /// `turn/start`.
    TurnStart,
    /// `turn/end`.
    TurnEnd,
    /// `step/start`.
    StepStart,
    /// `step/end`.
    StepEnd,
    /// `session/title`.
    SessionTitle,
    /// `session/end-seed`: the end of a fork's inherited events.
    SessionEndSeed,
    /// `request/header`: the request header in force from here on.
    RequestHeader,
    /// `request/context`: the context window of the next request.
    RequestContext,
    /// `compaction/start` (from 2026-08-06).
    CompactionStart,
    /// `compaction/end`.
    CompactionEnd,
    /// `compaction/summary`.
    CompactionSummary,
    /// `compaction/prune`.
    CompactionPrune,
    /// `compact/start` (the July name of `compaction/start`).
    CompactStart,
    /// `compact/summary` (the July name of `compaction/summary`).
    CompactSummary,
    /// `compact/prune` (the July name of `compaction/prune`).
    CompactPrune,
    /// `compact/end` (the July name of `compaction/end`).
    CompactEnd,
    /// `mode/set` (never written by HEAD).
    ModeSet,
    /// `prompt/blocked` (retired).
    PromptBlocked,
    /// `command/run`: a user command such as `/compact`.
    CommandRun,
    /// `usage` (header version 1 only).
    Usage,
    /// `error` (header version 1 only).
    Error,
    /// `request/header-delta` (2026-07-06 to 07-17).
    RequestHeaderDelta,
    /// `bash/sandbox-mode` (a name HEAD never had).
    BashSandboxMode,
    /// Any other name.
    Other,
}

/// Every named type with its name, in declaration order (a variant's index is its position).
const NAMED: [(EventType, &str); 30] = [
    (EventType::UserMessage, "user/message"),
    (EventType::AssistantMessage, "assistant/message"),
    (EventType::ToolResult, "tool/result"),
    (EventType::ContextMessage, "context/message"),
    (EventType::SteeringMessage, "steering/message"),
    (EventType::AssistantChunk, "assistant/chunk"),
    (EventType::ToolCall, "tool/call"),
    (EventType::TurnStart, "turn/start"),
    (EventType::TurnEnd, "turn/end"),
    (EventType::StepStart, "step/start"),
    (EventType::StepEnd, "step/end"),
    (EventType::SessionTitle, "session/title"),
    (EventType::SessionEndSeed, "session/end-seed"),
    (EventType::RequestHeader, "request/header"),
    (EventType::RequestContext, "request/context"),
    (EventType::CompactionStart, "compaction/start"),
    (EventType::CompactionEnd, "compaction/end"),
    (EventType::CompactionSummary, "compaction/summary"),
    (EventType::CompactionPrune, "compaction/prune"),
    (EventType::CompactStart, "compact/start"),
    (EventType::CompactSummary, "compact/summary"),
    (EventType::CompactPrune, "compact/prune"),
    (EventType::CompactEnd, "compact/end"),
    (EventType::ModeSet, "mode/set"),
    (EventType::PromptBlocked, "prompt/blocked"),
    (EventType::CommandRun, "command/run"),
    (EventType::Usage, "usage"),
    (EventType::Error, "error"),
    (EventType::RequestHeaderDelta, "request/header-delta"),
    (EventType::BashSandboxMode, "bash/sandbox-mode"),
];

impl EventType {
    /// The type of events named `name` (`Other` for a name the engine does not read).
    pub fn of(name: &str) -> EventType {
        NAMED
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(EventType::Other, |(t, _)| *t)
    }

    /// The name the log spells this type with; `None` for [`EventType::Other`].
    pub fn name(self) -> Option<&'static str> {
        (self != EventType::Other).then(|| self.spelled())
    }

    /// The name of a known type, for writing events (`""` for [`EventType::Other`]).
    /// `NAMED` lists the types in declaration order, so a variant's position is its index.
    pub const fn spelled(self) -> &'static str {
        let at = self as usize;
        if at < NAMED.len() { NAMED[at].1 } else { "" }
    }

    /// True for the types that may be surface nodes in some era
    /// (docs/format.md#the-surface-rule-by-rule: the union over every format era).
    pub fn is_surface_eligible(self) -> bool {
        matches!(
            self,
            EventType::UserMessage
                | EventType::AssistantMessage
                | EventType::ToolResult
                | EventType::ContextMessage
                | EventType::SteeringMessage
        )
    }

    /// True for the wrapper messages of older eras (`context/message`, `steering/message`).
    pub fn is_wrapper_message(self) -> bool {
        matches!(self, EventType::ContextMessage | EventType::SteeringMessage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for (t, n) in NAMED {
            assert_eq!(EventType::of(n), t);
            assert_eq!(t.name(), Some(n));
            assert_eq!(t.spelled(), n);
        }
        for (at, (t, _)) in NAMED.iter().enumerate() {
            assert_eq!(*t as usize, at, "{t:?} out of declaration order");
        }
        assert_eq!(EventType::Other as usize, NAMED.len());
        let mut names: Vec<&str> = NAMED.iter().map(|(_, n)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMED.len());
        assert_eq!(EventType::of("todo/write"), EventType::Other);
        assert_eq!(EventType::Other.name(), None);
    }

    #[test]
    fn five_types_are_surface_eligible() {
        let eligible: Vec<&str> = NAMED
            .iter()
            .filter(|(t, _)| t.is_surface_eligible())
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(eligible.len(), 5);
        assert!(!EventType::ToolCall.is_surface_eligible());
    }
}
