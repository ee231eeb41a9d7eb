//! The overflow finish (docs/audit.md's `overflow` trigger, docs/policy.md#the-policy-in-our-words:
//! the overflow recovery): an `assistant/chunk` whose `data.chunk` is a `finish` with
//! `reason.failure.code` `CONTEXT_WINDOW_EXCEEDED`, inside an open step and before that step's
//! `assistant/message`. The one detector the audit and the policy both read the log with.

use std::cell::Cell;

use memchr::memmem;
use serde_json::Value;

use crate::{EventIdx, EventLog, EventRecord, EventText, EventType};

/// The failure code of a model call that overflowed the context window.
pub const OVERFLOW_CODE: &str = "CONTEXT_WINDOW_EXCEEDED";

/// Follows the step boundaries of a log read in order and tells the overflow finishes of the
/// open step: feed it every event (in log order) whose type [`OverflowWatch::event`] names.
#[derive(Clone, Debug)]
pub struct OverflowWatch {
    finder: memmem::Finder<'static>,
    /// Where the code occurs in the log's text, when the watch was made for a whole log
    /// ([`OverflowWatch::over`]); `None`: every chunk's line is searched itself.
    hits: Option<CodeHits>,
    /// A `step/start` was read and no `step/end`, `turn/end` or `turn/start` since.
    open: bool,
    /// The open step's `assistant/message` was read.
    message_seen: bool,
}

impl Default for OverflowWatch {
    fn default() -> Self {
        OverflowWatch {
            finder: memmem::Finder::new(OVERFLOW_CODE),
            hits: None,
            open: false,
            message_seen: false,
        }
    }
}

impl OverflowWatch {
    /// A watch for a pass over the whole of `log`: the code is searched for once in the whole
    /// text ([`CodeHits`]) and a chunk's line is then tested by its offsets, not searched
    /// byte by byte — a log of a million streamed chunks is one `memmem` sweep instead of a
    /// million copies and searches. What the watch reports is the same.
    pub fn over(log: &EventLog) -> Self {
        OverflowWatch {
            hits: Some(CodeHits::of(log)),
            ..OverflowWatch::default()
        }
    }

    /// Where the code occurs in the log's whole text, ascending, when the watch was made for
    /// a whole log ([`OverflowWatch::over`]): a later pass over the same log starts its watch
    /// from them ([`OverflowWatch::from_offsets`]) instead of searching the text again.
    pub fn code_offsets(&self) -> Option<&[u64]> {
        self.hits.as_ref().map(|h| h.offsets.as_slice())
    }

    /// A watch for a pass over the whole of a log whose text holds the code at `offsets`
    /// (ascending, as [`OverflowWatch::code_offsets`] gave them for that log).
    pub fn from_offsets(offsets: Vec<u64>) -> Self {
        OverflowWatch {
            hits: Some(CodeHits {
                offsets,
                next: Cell::new(0),
            }),
            ..OverflowWatch::default()
        }
    }

    /// Reads event `idx` of type `kind`: a step boundary or message moves the watch; an
    /// `assistant/chunk` gives true when it is an overflow finish of the open step before its
    /// message. Chunks are read only then (the text is searched for the code before anything
    /// is parsed; packed rows hold only deltas, never a finish).
    pub fn event(&mut self, log: &EventLog, idx: EventIdx, kind: EventType) -> bool {
        match kind {
            EventType::StepStart => {
                self.open = true;
                self.message_seen = false;
                false
            }
            // A new turn closes a step whose end is missing.
            EventType::StepEnd | EventType::TurnEnd | EventType::TurnStart => {
                self.open = false;
                false
            }
            EventType::AssistantMessage => {
                self.message_seen = true;
                false
            }
            EventType::AssistantChunk => self.in_step() && self.is_overflow_finish(log, idx),
            _ => false,
        }
    }

    /// Inside an open step, before its `assistant/message`: where an overflow finish counts.
    pub fn in_step(&self) -> bool {
        self.open && !self.message_seen
    }

    /// Whether the stream chunk `e` may be an overflow finish of the open step, from what the
    /// watch knows without reading its line: not outside an open step or after its message,
    /// not a packed member (packed rows hold only deltas), and — for a watch over a whole log
    /// — not a line that starts past the last occurrence of the code in the text. Where this
    /// is false, [`OverflowWatch::event`] gives false for the chunk and changes nothing, so a
    /// pass may step over it (most of a long log's events).
    pub fn chunk_may_finish(&self, e: &EventRecord) -> bool {
        let EventText::Line { start, .. } = e.text() else {
            return false;
        };
        self.in_step()
            && self
                .hits
                .as_ref()
                .is_none_or(|hits| hits.offsets.last().is_some_and(|&last| last >= start))
    }

    /// Whether the chunk `idx` is a `finish` whose `reason.failure.code` is the overflow code, read
    /// as docs/audit.md#triggers and docs/policy.md#the-policy-in-our-words say: the stream chunk
    /// is `data.chunk`.
    pub fn is_overflow_finish(&self, log: &EventLog, idx: EventIdx) -> bool {
        let EventText::Line { start, len } = log.event(idx).text() else {
            return false;
        };
        let found = match &self.hits {
            Some(hits) => hits.within(start, len),
            None => self.finder.find(log.line_text(idx)).is_some(),
        };
        if !found {
            return false;
        }
        let data = log.data_value(idx);
        let Some(chunk) = data.get("chunk") else {
            return false;
        };
        chunk.get("type").and_then(Value::as_str) == Some("finish")
            && chunk
                .pointer("/reason/failure/code")
                .and_then(Value::as_str)
                == Some(OVERFLOW_CODE)
    }
}

/// The offsets of every occurrence of [`OVERFLOW_CODE`] in a log's text, ascending. The code
/// has no border (no proper prefix of it is also a suffix), so its occurrences never overlap and
/// `memmem`'s left-to-right sweep finds every one: a line holds the code exactly when an
/// occurrence lies wholly inside it. One that straddles two lines (an arena whose lines are not
/// separated by a newline) lies inside neither and is not counted, as no line's own search
/// would find it.
#[derive(Clone, Debug, Default)]
struct CodeHits {
    offsets: Vec<u64>,
    /// The first offset at or after the last line asked about: a whole-log pass asks in
    /// ascending order, so each question moves it a step at most, not a binary search.
    next: Cell<usize>,
}

impl CodeHits {
    /// The occurrences in the whole text of `log`, one search of all of it. The arena may be a
    /// mapped file: the bytes are only searched, as a line is (`EventLog::line_text`).
    fn of(log: &EventLog) -> Self {
        let offsets = memmem::find_iter(log.whole_text(), OVERFLOW_CODE.as_bytes())
            .map(|at| at as u64)
            .collect();
        CodeHits {
            offsets,
            next: Cell::new(0),
        }
    }

    /// Whether an occurrence lies wholly inside the line at `start` of `len` bytes.
    fn within(&self, start: u64, len: u32) -> bool {
        let offsets = &self.offsets;
        let mut first = self.next.get().min(offsets.len());
        if first > 0 && offsets[first - 1] >= start {
            // Asked out of order: search.
            first = offsets.partition_point(|&at| at < start);
        } else {
            while offsets.get(first).is_some_and(|&at| at < start) {
                first += 1;
            }
        }
        self.next.set(first);
        offsets
            .get(first)
            .is_some_and(|&at| at + OVERFLOW_CODE.len() as u64 <= start + u64::from(len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventBatch, NewEvent, SurfaceOp};

    /// A log of `(type, data)` events, each kept as a line.
    fn log_of(events: &[(&str, &str)]) -> EventLog {
        let mut text = Vec::new();
        let batch = batch_of(&mut text, 0, events);
        EventLog::new(None, text, batch)
    }

    /// The batch of `(type, data)` events written as lines at the end of `text`, their seqs
    /// from `first_seq`.
    fn batch_of(text: &mut Vec<u8>, first_seq: usize, events: &[(&str, &str)]) -> EventBatch {
        let mut batch = EventBatch::default();
        for (k, &(type_name, data)) in events.iter().enumerate() {
            let seq = first_seq + k;
            let json = format!(r#"{{"type":"{type_name}","seq":{seq},"data":{data}}}"#);
            let start = text.len() as u64;
            text.extend_from_slice(json.as_bytes());
            batch.push(NewEvent {
                seq: seq as u64,
                time: None,
                type_name,
                op: SurfaceOp::None,
                sources: None,
                line: 0,
                text: EventText::Line {
                    start,
                    len: json.len() as u32,
                },
                plain: false,
            });
        }
        batch
    }

    const FINISH: &str = r#"{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"too long","code":"CONTEXT_WINDOW_EXCEEDED"}}}}"#;

    /// The events of `log` the watch reports, by index — the same whether each chunk's line is
    /// searched or the whole text once.
    fn reported(log: &EventLog) -> Vec<u32> {
        let by_watch = |watch: &mut OverflowWatch| -> Vec<u32> {
            log.indices()
                .filter(|&idx| {
                    let kind = log.event_type(idx);
                    let passable = kind == EventType::AssistantChunk
                        && !watch.chunk_may_finish(log.event(idx));
                    let fired = watch.event(log, idx, kind);
                    assert!(!(passable && fired), "a chunk passed by fires: {idx:?}");
                    fired
                })
                .map(|idx| idx.0)
                .collect()
        };
        let per_line = by_watch(&mut OverflowWatch::default());
        let mut whole = OverflowWatch::over(log);
        assert_eq!(by_watch(&mut whole), per_line);
        // A second pass from the first one's search, after it read the whole log.
        let offsets = whole.code_offsets().expect("searched").to_vec();
        assert_eq!(
            by_watch(&mut OverflowWatch::from_offsets(offsets)),
            per_line
        );
        assert_eq!(OverflowWatch::default().code_offsets(), None);
        per_line
    }

    /// What a pass may step over: chunks outside an open step or after its message, and —
    /// for a watch over the whole log — chunks past the code's last occurrence.
    #[test]
    fn chunks_that_cannot_finish_are_told_without_their_lines() {
        let step = r#"{"turn":1,"step":1}"#;
        let delta = r#"{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}"#;
        let log = log_of(&[
            ("assistant/chunk", delta),
            ("step/start", step),
            ("assistant/chunk", delta),
            ("assistant/chunk", FINISH),
            ("assistant/chunk", delta),
            ("assistant/message", r#"{"message":{"content":[]}}"#),
            ("assistant/chunk", delta),
        ]);
        let may = |watch: &mut OverflowWatch| -> Vec<bool> {
            log.indices()
                .map(|idx| {
                    let kind = log.event_type(idx);
                    let may =
                        kind == EventType::AssistantChunk && watch.chunk_may_finish(log.event(idx));
                    watch.event(&log, idx, kind);
                    may
                })
                .collect()
        };
        assert_eq!(
            may(&mut OverflowWatch::over(&log)),
            [false, false, true, true, false, false, false]
        );
        // Searching each line itself, the watch cannot tell before reading it.
        assert_eq!(
            may(&mut OverflowWatch::default()),
            [false, false, true, true, true, false, false]
        );
        assert_eq!(reported(&log), [3]);
    }

    #[test]
    fn an_occurrence_counts_only_wholly_inside_the_line() {
        let code = OVERFLOW_CODE.len() as u32;
        let hits = CodeHits {
            offsets: vec![10, 100],
            next: Cell::new(0),
        };
        assert!(hits.within(10, code));
        assert!(hits.within(0, 10 + code));
        assert!(
            !hits.within(0, 10 + code - 1),
            "cut short by the line's end"
        );
        assert!(!hits.within(11, 80), "starts before the line");
        assert!(hits.within(11, 89 + code), "the next one");
        assert!(!hits.within(200, 50));
        assert!(hits.within(10, code), "asked again, out of order");
        assert!(!hits.within(11, 80));
        assert!(!CodeHits::default().within(0, 1000));
    }

    #[test]
    fn adjacent_codes_and_codes_in_every_line_are_all_found() {
        // Lines laid end to end with no separator, the code at the very start and end of a
        // string and twice in a row.
        let twice = format!(
            r#"{{"turn":1,"step":1,"chunk":{{"type":"finish","reason":{{"failure":{{"code":"{OVERFLOW_CODE}","message":"{OVERFLOW_CODE}{OVERFLOW_CODE}"}}}}}}}}"#
        );
        let step = r#"{"turn":1,"step":1}"#;
        let log = log_of(&[
            ("step/start", step),
            ("assistant/chunk", &twice),
            ("assistant/chunk", FINISH),
            ("assistant/chunk", &twice),
        ]);
        assert_eq!(reported(&log), [1, 2, 3]);
    }

    #[test]
    fn a_finish_in_data_chunk_inside_the_step_before_its_message() {
        let step = r#"{"turn":1,"step":1}"#;
        let log = log_of(&[
            ("assistant/chunk", FINISH), // 0: no step open
            ("step/start", step),
            ("assistant/chunk", FINISH), // 2: counts
            // 3: the finish at data's top level is not the spec's chunk
            (
                "assistant/chunk",
                r#"{"turn":1,"step":1,"type":"finish","reason":{"failure":{"code":"CONTEXT_WINDOW_EXCEEDED"}}}"#,
            ),
            // 4: another code; 5: the code in a text delta
            (
                "assistant/chunk",
                r#"{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"failure":{"code":"RATE_LIMITED"}}}}"#,
            ),
            (
                "assistant/chunk",
                r#"{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"CONTEXT_WINDOW_EXCEEDED"}}"#,
            ),
            ("assistant/chunk", FINISH), // 6: counts (a retry overflowed again)
            ("assistant/message", r#"{"turn":1,"step":1,"content":[]}"#),
            ("assistant/chunk", FINISH), // 8: after the step's message
            ("step/end", step),
            ("assistant/chunk", FINISH), // 10: the step has ended
            ("step/start", step),
            ("assistant/chunk", FINISH), // 12: counts
            ("turn/end", r#"{"turn":1}"#),
            ("assistant/chunk", FINISH), // 14: the turn has ended
            ("step/start", step),
            ("turn/start", r#"{"turn":2}"#),
            ("assistant/chunk", FINISH), // 17: a new turn, no step open
        ]);
        assert_eq!(reported(&log), [2, 6, 12]);
    }
}
