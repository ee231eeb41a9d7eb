//! What the timeline keeps between frames: the filtered rows, cached summaries, the scroll
//! position and a pending reveal.

use surface_engine::{EventIdx, summarize_with_op};

use crate::session::loaded::Session;
use crate::summary_cache::SummaryCache;
use crate::theme::Family;
use crate::view::ALL_FAMILIES;

/// UI-only state of the timeline.
#[derive(Debug, Default)]
pub struct TimelineState {
    /// Filtered rows (event indices), or `None` when every family is shown.
    pub(crate) rows: Option<Vec<u32>>,
    /// `(mask, log length)` the rows were built for.
    pub(crate) rows_for: (u8, usize),
    /// Summaries of rows drawn so far.
    pub(crate) summaries: SummaryCache,
    /// Scroll offset and viewport height of the last frame.
    pub(crate) offset: f32,
    pub(crate) viewport_height: f32,
    /// The last reveal, checked once more next frame: the scroll area clamps to the last
    /// frame's content height (0 on a log's first frame), and the panels around may still
    /// change size (a banner, the strip) and hide the row again.
    pub(crate) retry_reveal: Option<EventIdx>,
    /// Frames left to see the revealed row whole before giving up.
    pub(crate) reveal_attempts: u8,
    /// The cursor's row was whole in the view at the end of the last frame: when the view
    /// changes size (a banner comes or goes) it is kept in view.
    pub(crate) cursor_seen: bool,
}

impl TimelineState {
    /// Drops every cache (a new log was loaded). The scroll offset becomes unknown (the
    /// scroll area still holds the last log's), so the next reveal always scrolls.
    pub fn reset(&mut self) {
        let viewport_height = self.viewport_height;
        *self = TimelineState {
            offset: f32::NAN,
            viewport_height,
            ..TimelineState::default()
        };
    }

    /// Height of the rows' viewport the last frame.
    pub(crate) fn viewport(&self) -> f32 {
        self.viewport_height
    }

    /// Rows shown (after the family filter).
    pub(crate) fn row_count_of(&self, session: &Session) -> usize {
        self.row_count(session)
    }

    /// The event of row `row`.
    pub(crate) fn event_at_row(&self, row: usize) -> EventIdx {
        self.event_at(row)
    }

    pub(crate) fn ensure_rows(&mut self, session: &Session, mask: u8) {
        if self.rows_for == (mask, session.len()) && (self.rows.is_some() || mask == ALL_FAMILIES) {
            return;
        }
        self.rows_for = (mask, session.len());
        self.rows = (mask != ALL_FAMILIES).then(|| {
            let log = &session.log;
            // Family per type id, so filtering costs one table lookup per event.
            let by_type: Vec<bool> = log
                .types
                .iter()
                .map(|(_, n)| mask & Family::of(n).bit() != 0)
                .collect();
            log.events
                .iter()
                .enumerate()
                .filter(|(_, e)| by_type.get(e.kind.0 as usize).copied().unwrap_or(true))
                .map(|(i, _)| i as u32)
                .collect()
        });
    }

    pub(crate) fn row_count(&self, session: &Session) -> usize {
        self.rows.as_ref().map_or(session.len(), Vec::len)
    }

    pub(crate) fn event_at(&self, row: usize) -> EventIdx {
        EventIdx(
            self.rows
                .as_ref()
                .map_or(row as u32, |r| r.get(row).copied().unwrap_or(0)),
        )
    }

    /// The row of `idx`: `Ok(row)` when shown, `Err(insertion row)` when filtered out.
    pub(crate) fn row_of(&self, idx: EventIdx) -> Result<usize, usize> {
        match &self.rows {
            None => Ok(idx.get()),
            Some(rows) => rows.binary_search(&idx.0),
        }
    }

    pub(crate) fn summary(&mut self, session: &Session, idx: EventIdx) -> &str {
        self.summaries
            .get(idx, || summarize_with_op(&session.log, idx))
    }
}
