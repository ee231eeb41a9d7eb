//! What the context strip's and the scrubber's x means: the event index (cursors `0..=len`)
//! or wall-clock time (milliseconds after the log's first event, read from the session's
//! time column). A [`Zoom`] is kept in the axis's own units; this maps them to cursors and
//! back with a binary search, so a frame stays O(pixels · log events) on either axis.

use std::sync::Arc;

use surface_engine::time_column::TimeColumn;

use crate::session::loaded::Session;
use crate::strip::zoom::Zoom;

/// The strip's x axis for one log.
#[derive(Clone, Copy, Debug)]
pub enum Axis<'a> {
    /// Cursors `0..=len`, evenly spaced.
    Index {
        /// Events in the log.
        len: usize,
    },
    /// Milliseconds after the first event; idle time takes room.
    Time(&'a TimeColumn),
}

impl<'a> Axis<'a> {
    /// The axis for `session`: time when `time` is asked for and the log has a time axis
    /// (at least two distinct times), else the index.
    pub fn of(session: &'a Session, time: bool) -> Axis<'a> {
        if time && has_time_axis(&session.time) && session.time.len() == session.len() {
            Axis::Time(&session.time)
        } else {
            Axis::Index { len: session.len() }
        }
    }

    /// True on the time axis.
    pub fn is_time(&self) -> bool {
        matches!(self, Axis::Time(_))
    }

    /// Events in the log.
    pub fn len(&self) -> usize {
        match self {
            Axis::Index { len } => *len,
            Axis::Time(t) => t.len(),
        }
    }

    /// True when the log has no events.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The axis's length in its units (events, or milliseconds).
    pub fn extent(&self) -> usize {
        match self {
            Axis::Index { len } => *len,
            Axis::Time(t) => t.duration() as usize,
        }
    }

    /// The whole log.
    pub fn whole(&self) -> Zoom {
        Zoom::whole(self.extent())
    }

    /// Where cursor `cursor` sits on the axis.
    pub fn pos(&self, cursor: usize) -> f64 {
        match self {
            Axis::Index { .. } => cursor as f64,
            Axis::Time(t) => f64::from(t.at_cursor(cursor)),
        }
    }

    /// The cursor at axis position `pos`: the nearest on the index axis, after every event
    /// up to that time on the time axis.
    pub fn cursor_at(&self, pos: f64) -> usize {
        match self {
            Axis::Index { len } => pos.round().clamp(0.0, *len as f64) as usize,
            Axis::Time(t) => t.cursor_at(pos),
        }
    }

    /// The cursor at fraction `f` (clamped to 0..=1) of a strip showing `zoom`.
    pub fn cursor_at_fraction(&self, zoom: &Zoom, f: f64) -> usize {
        self.cursor_at(zoom.start + f.clamp(0.0, 1.0) * zoom.span())
    }

    /// Where cursor `cursor` sits across a strip showing `zoom` (0 left edge, 1 right edge).
    pub fn fraction(&self, zoom: &Zoom, cursor: usize) -> f64 {
        zoom.fraction(self.pos(cursor))
    }

    /// Where cursor `cursor` sits across a bar over the whole log (0..=1).
    pub fn whole_fraction(&self, cursor: usize) -> f32 {
        let extent = self.extent();
        if extent == 0 {
            return 0.0;
        }
        (self.pos(cursor) / extent as f64).clamp(0.0, 1.0) as f32
    }

    /// The cursors pixel column `c` of `width` covers on a strip showing `zoom`:
    /// `from..to`. On the time axis a column with no event in its time is empty
    /// (`from == to`): idle time.
    pub fn column_bounds(&self, zoom: &Zoom, c: usize, width: usize) -> (usize, usize) {
        match self {
            Axis::Index { len } => zoom.column_bounds(c, width, *len),
            Axis::Time(t) => {
                let at = |k: usize| zoom.start + zoom.span() * k as f64 / width.max(1) as f64;
                let from = t.first_cursor_at_or_after(at(c));
                let to = if c + 1 >= width {
                    t.first_cursor_after(zoom.end)
                } else {
                    t.first_cursor_at_or_after(at(c + 1))
                };
                (from, to.max(from))
            }
        }
    }

    /// The last cursor pixel column `c` of `width` covers on a strip showing `zoom`, at most
    /// `len`; a column without an event (idle time) holds the cursor before it.
    pub fn column_cursor(&self, zoom: &Zoom, c: usize, width: usize, len: usize) -> usize {
        let (from, to) = self.column_bounds(zoom, c, width);
        let to = to.min(len + 1);
        if from < to {
            to - 1
        } else {
            from.saturating_sub(1).min(len)
        }
    }

    /// `zoom` (in `self`'s units) in the units of `other`, covering the same events.
    pub fn convert(&self, zoom: Zoom, other: &Axis<'_>) -> Zoom {
        let start = self.cursor_at(zoom.start);
        let end = self.cursor_at(zoom.end).max(start);
        Zoom {
            start: other.pos(start),
            end: other.pos(end),
        }
        .clamped(other.extent())
    }
}

/// True when `time` can carry an axis: some event has a time and the log lasts at least a
/// millisecond.
pub fn has_time_axis(time: &TimeColumn) -> bool {
    time.has_times() && time.duration() > 0
}

/// `(width, events, range start bits, range end bits, time axis)`: what a layer laid out per
/// pixel column depends on (the strip's own columns, the what-if's, B's curve).
pub(crate) type ColumnsKey = (u32, usize, u64, u64, bool);

/// The [`ColumnsKey`] of a `width`-column strip of a `len`-event log showing `zoom` on `axis`.
pub(crate) fn key_of(width: usize, len: usize, axis: &Axis<'_>, zoom: &Zoom) -> ColumnsKey {
    (
        width as u32,
        len,
        zoom.start.to_bits(),
        zoom.end.to_bits(),
        axis.is_time(),
    )
}

/// `(width, range start bits, range end bits, data, time axis)`: what a layer of marks laid
/// out per pixel column from shared data (the audit's replace ops, the cache breaks) depends on.
pub(crate) type LayerKey = (u32, u64, u64, usize, bool);

/// The [`LayerKey`] of marks from `data` on a `width`-column strip showing `zoom` on `axis`.
pub(crate) fn layer_key<T>(data: &Arc<T>, axis: &Axis<'_>, zoom: &Zoom, width: usize) -> LayerKey {
    (
        width as u32,
        zoom.start.to_bits(),
        zoom.end.to_bits(),
        Arc::as_ptr(data) as usize,
        axis.is_time(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column() -> TimeColumn {
        let mut t = TimeColumn::default();
        // Ten events in the first second, then an idle minute, then ten more.
        let times = (0..10)
            .map(|i| i * 100)
            .chain((0..10).map(|i| 61_000 + i * 100));
        t.extend_with(times.map(|ms| (Some(1_000_000 + ms), surface_engine::EventType::Other)));
        t
    }

    #[test]
    fn the_index_axis_is_the_zoom_itself() {
        let a = Axis::Index { len: 100 };
        let z = Zoom::whole(100);
        assert_eq!(a.column_bounds(&z, 3, 10), z.column_bounds(3, 10, 100));
        assert_eq!(a.cursor_at_fraction(&z, 0.5), z.cursor_at(0.5, 100));
        assert_eq!(a.whole_fraction(25), 0.25);
    }

    #[test]
    fn idle_time_leaves_columns_empty() {
        let t = column();
        let a = Axis::Time(&t);
        assert_eq!(a.extent(), 61_900);
        let z = a.whole();
        let width = 619;
        let empty = (0..width)
            .filter(|&c| {
                let (from, to) = a.column_bounds(&z, c, width);
                from == to
            })
            .count();
        // One column per 100 ms: the idle minute is about 600 empty columns.
        assert!((590..=610).contains(&empty), "{empty}");
        // Every cursor is covered exactly once, in order.
        let mut next = 0;
        for c in 0..width {
            let (from, to) = a.column_bounds(&z, c, width);
            assert_eq!(from, next, "column {c}");
            next = to;
        }
        assert_eq!(next, t.len() + 1);
    }

    #[test]
    fn a_columns_cursor_is_its_last_one_or_in_idle_time_the_one_before() {
        let t = column();
        let a = Axis::Time(&t);
        let z = a.whole();
        let width = 619;
        let cursors: Vec<usize> = (0..width)
            .map(|c| a.column_cursor(&z, c, width, t.len()))
            .collect();
        for (c, &cursor) in cursors.iter().enumerate() {
            let (from, to) = a.column_bounds(&z, c, width);
            let expected = if from < to { to - 1 } else { from - 1 };
            assert_eq!(cursor, expected, "column {c}");
        }
        // Through the idle minute the columns hold the tenth event's cursor.
        assert_eq!(cursors[300], 10);
        assert_eq!(cursors.last(), Some(&t.len()));
        // A shorter `len` caps the cursor.
        assert_eq!(a.column_cursor(&z, width - 1, width, 5), 5);
    }

    #[test]
    fn a_range_converts_between_axes_on_the_same_events() {
        let t = column();
        let time = Axis::Time(&t);
        let index = Axis::Index { len: t.len() };
        // Sixteen events (the narrowest range), across the idle minute.
        let z = Zoom {
            start: 2.0,
            end: 18.0,
        };
        let in_time = index.convert(z, &time);
        assert_eq!((in_time.start, in_time.end), (100.0, 61_700.0));
        let back = time.convert(in_time, &index);
        assert_eq!(back, z);
    }
}
