//! The log on a wall-clock axis: a compact per-event time column (4 bytes an event, built once
//! in O(N) and grown as a followed log grows) and the spans of model calls and compactions.
//!
//! Timestamps are bad input like any other. An event without a usable `time` (absent,
//! negative) takes the last known time (before the first known one: the first known one); an
//! event whose time goes back takes the latest time seen so far. The column therefore never
//! decreases, so any time maps to a cursor by binary search, and the log says how many events
//! were carried or clamped ([`TimeColumn::missing`], [`TimeColumn::backwards`]: "time not
//! monotone"). Offsets are milliseconds after the first known time, saturating at `u32::MAX`
//! (49 days).

use super::event::EventIdx;
use super::log::EventLog;
use crate::EventType;

/// Where a model call or a compaction starts and ends (event indices, `from <= to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The event that starts it (`request/context`, else `step/start`; `compaction/start`).
    pub from: EventIdx,
    /// The event that ends it (`assistant/message`; `compaction/end`).
    pub to: EventIdx,
}

/// Milliseconds after the log's first known time for every event, never decreasing, and the
/// spans of model calls and compactions.
#[derive(Clone, Debug, Default)]
pub struct TimeColumn {
    /// Epoch milliseconds of the first event with a usable time (`None`: none yet).
    origin: Option<i64>,
    /// Per event: milliseconds after `origin`, carried forward and clamped to never decrease.
    offsets: Vec<u32>,
    /// Events that had no usable time.
    missing: usize,
    /// Events whose time was earlier than one before them.
    backwards: usize,
    /// Model calls, in log order.
    model_calls: Vec<Span>,
    /// Compactions, in log order.
    compactions: Vec<Span>,
    /// A model call or compaction opened and not yet closed (for a log that grows).
    open_call: Option<EventIdx>,
    open_compaction: Option<EventIdx>,
}

impl TimeColumn {
    /// The column of every event of `log`.
    pub fn build(log: &EventLog) -> TimeColumn {
        let mut column = TimeColumn::default();
        column.extend(log);
        column
    }

    /// Takes in the events of `log` past the ones already in the column (a followed log grew).
    pub fn extend(&mut self, log: &EventLog) {
        let from = self.offsets.len().min(log.len());
        let events = log.events[from..]
            .iter()
            .map(|e| (e.time(), log.types.kind(e.kind)));
        self.extend_with(events);
    }

    /// Takes in more events as `(time, type)` pairs.
    pub fn extend_with(&mut self, events: impl Iterator<Item = (Option<i64>, EventType)>) {
        for (time, kind) in events {
            let idx = EventIdx(self.offsets.len() as u32);
            let time = time.filter(|&t| t >= 0);
            let offset = match (time, self.origin) {
                (Some(t), None) => {
                    self.origin = Some(t);
                    0
                }
                (Some(t), Some(origin)) => {
                    let o = u32::try_from(t.saturating_sub(origin).max(0)).unwrap_or(u32::MAX);
                    let last = self.offsets.last().copied().unwrap_or(0);
                    if o < last || t < origin {
                        self.backwards += 1;
                    }
                    o.max(last)
                }
                (None, _) => {
                    self.missing += 1;
                    self.offsets.last().copied().unwrap_or(0)
                }
            };
            self.offsets.push(offset);
            self.note_span(idx, kind);
        }
    }

    fn note_span(&mut self, idx: EventIdx, kind: EventType) {
        match kind {
            EventType::StepStart | EventType::RequestContext => self.open_call = Some(idx),
            EventType::AssistantMessage => {
                if let Some(from) = self.open_call.take() {
                    self.model_calls.push(Span { from, to: idx });
                }
            }
            EventType::StepEnd => self.open_call = None,
            EventType::CompactionStart | EventType::CompactStart => {
                self.open_compaction = Some(idx)
            }
            EventType::CompactionEnd | EventType::CompactEnd => {
                if let Some(from) = self.open_compaction.take() {
                    self.compactions.push(Span { from, to: idx });
                }
            }
            _ => {}
        }
    }

    /// Number of events in the column.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True when the column has no events.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// True when at least one event has a usable time (else there is no time axis).
    pub fn has_times(&self) -> bool {
        self.origin.is_some()
    }

    /// Epoch milliseconds of offset 0, if any event has a time.
    pub fn origin(&self) -> Option<i64> {
        self.origin
    }

    /// Milliseconds from the first to the last event.
    pub fn duration(&self) -> u32 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Events that had no usable time (they carry the last known one).
    pub fn missing(&self) -> usize {
        self.missing
    }

    /// Events whose time was earlier than an event before them (they take the latest one).
    pub fn backwards(&self) -> usize {
        self.backwards
    }

    /// The offset of the event at `idx` (0 past the end).
    pub fn offset(&self, idx: usize) -> u32 {
        self.offsets.get(idx).copied().unwrap_or(0)
    }

    /// Where cursor `cursor` (after `cursor` events) sits on the axis: the time of its last
    /// event (0 for the start).
    pub fn at_cursor(&self, cursor: usize) -> u32 {
        cursor
            .checked_sub(1)
            .map_or(0, |i| self.offset(i.min(self.len().saturating_sub(1))))
    }

    /// The first cursor whose time is at least `ms` (cursor 0 sits at 0).
    pub fn first_cursor_at_or_after(&self, ms: f64) -> usize {
        if ms <= 0.0 {
            return 0;
        }
        1 + self.offsets.partition_point(|&o| f64::from(o) < ms)
    }

    /// The first cursor whose time is after `ms`: the cursor after every event up to `ms`.
    pub fn first_cursor_after(&self, ms: f64) -> usize {
        if ms < 0.0 {
            return 0;
        }
        1 + self.offsets.partition_point(|&o| f64::from(o) <= ms)
    }

    /// The cursor at time `ms`: after every event up to it (0 before the first event).
    pub fn cursor_at(&self, ms: f64) -> usize {
        self.first_cursor_after(ms)
            .saturating_sub(1)
            .min(self.len())
    }

    /// Model calls (`request/context` or `step/start` → `assistant/message`), in log order.
    pub fn model_calls(&self) -> &[Span] {
        &self.model_calls
    }

    /// Compactions (`compaction/start` → `compaction/end`, and their `compact/*` forms).
    pub fn compactions(&self) -> &[Span] {
        &self.compactions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(events: &[(Option<i64>, &str)]) -> TimeColumn {
        let mut c = TimeColumn::default();
        c.extend_with(events.iter().map(|&(t, k)| (t, EventType::of(k))));
        c
    }

    #[test]
    fn missing_and_backward_times_carry_the_latest_one() {
        let c = column(&[
            (None, "turn/start"),
            (Some(1_000), "step/start"),
            (None, "x"),
            (Some(1_500), "x"),
            (Some(1_200), "x"),
            (Some(-4), "x"),
            (Some(2_000), "x"),
        ]);
        assert_eq!(c.origin(), Some(1_000));
        let offsets: Vec<u32> = (0..c.len()).map(|i| c.offset(i)).collect();
        assert_eq!(offsets, vec![0, 0, 0, 500, 500, 500, 1_000]);
        assert_eq!((c.missing(), c.backwards()), (3, 1));
        assert_eq!(c.duration(), 1_000);
    }

    #[test]
    fn times_map_to_cursors_both_ways() {
        let c = column(&[
            (Some(0), "a"),
            (Some(10), "a"),
            (Some(10), "a"),
            (Some(60_000), "a"),
        ]);
        assert_eq!(c.at_cursor(0), 0);
        assert_eq!(c.at_cursor(3), 10);
        assert_eq!(c.at_cursor(4), 60_000);
        // Inside the idle minute: after the three early events.
        assert_eq!(c.cursor_at(30_000.0), 3);
        assert_eq!(c.cursor_at(10.0), 3);
        assert_eq!(c.cursor_at(-1.0), 0);
        assert_eq!(c.cursor_at(1e12), 4);
        assert_eq!(c.first_cursor_at_or_after(11.0), 4);
        assert_eq!(c.first_cursor_after(10.0), 4);
        // No event between 11 ms and 59 s: an empty stretch.
        assert_eq!(
            c.first_cursor_at_or_after(11.0),
            c.first_cursor_at_or_after(59_999.0)
        );
    }

    #[test]
    fn model_calls_and_compactions_become_spans() {
        let c = column(&[
            (Some(0), "step/start"),
            (Some(1), "request/context"),
            (Some(900), "assistant/message"),
            (Some(901), "step/end"),
            (Some(902), "compaction/start"),
            (Some(950), "compaction/summary"),
            (Some(951), "user/message"),
            (Some(952), "compaction/end"),
            (Some(953), "assistant/message"),
        ]);
        assert_eq!(
            c.model_calls(),
            &[Span {
                from: EventIdx(1),
                to: EventIdx(2)
            }]
        );
        assert_eq!(
            c.compactions(),
            &[Span {
                from: EventIdx(4),
                to: EventIdx(7)
            }]
        );
    }

    #[test]
    fn a_log_without_times_has_no_axis() {
        let c = column(&[(None, "a"), (None, "b")]);
        assert!(!c.has_times());
        assert_eq!(c.duration(), 0);
        assert_eq!(c.cursor_at(5.0), 2);
    }

    #[test]
    fn a_growing_log_extends_the_column() {
        let mut c = column(&[(Some(100), "compaction/start")]);
        c.extend_with([(Some(400), EventType::CompactionEnd)].into_iter());
        assert_eq!(c.offset(1), 300);
        assert_eq!(c.compactions().len(), 1);
    }
}
