//! The timeline panel: every event as a virtualised row (seq, time, type, state at the cursor,
//! payload summary), shadow brackets in the gutter, family filters and the search box.

use std::collections::HashMap;
use std::ops::Range;

use egui::{Key, ScrollArea, Ui};

use surface_engine::EventIdx;

use super::command::UiCommand;
use super::search::SearchState;
use super::session::Session;
use super::theme::{self, Family};
use super::timeline_rows;
use super::view::{ALL_FAMILIES, RowGeometry, ViewState};
use surface_engine::summarize_with_op;

/// Cached summaries kept before the cache is dropped and refilled.
const SUMMARY_CACHE_LIMIT: usize = 20_000;

/// UI-only state of the timeline.
#[derive(Debug, Default)]
pub struct TimelineState {
    /// Filtered rows (event indices), or `None` when every family is shown.
    rows: Option<Vec<u32>>,
    /// `(mask, log length)` the rows were built for.
    rows_for: (u8, usize),
    /// Summaries of rows drawn so far.
    summaries: HashMap<u32, String>,
    /// Scroll offset and viewport height of the last frame.
    offset: f32,
    viewport_height: f32,
    /// The last reveal, checked once more next frame: the scroll area clamps to the last
    /// frame's content height (0 on a log's first frame), and the panels around may still
    /// change size (a banner, the strip) and hide the row again.
    retry_reveal: Option<EventIdx>,
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
    pub(super) fn viewport(&self) -> f32 {
        self.viewport_height
    }

    /// Rows shown (after the family filter).
    pub(super) fn row_count_of(&self, session: &Session) -> usize {
        self.row_count(session)
    }

    /// The event of row `row`.
    pub(super) fn event_at_row(&self, row: usize) -> EventIdx {
        self.event_at(row)
    }

    fn ensure_rows(&mut self, session: &Session, mask: u8) {
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

    fn row_count(&self, session: &Session) -> usize {
        self.rows.as_ref().map_or(session.len(), Vec::len)
    }

    fn event_at(&self, row: usize) -> EventIdx {
        EventIdx(
            self.rows
                .as_ref()
                .map_or(row as u32, |r| r.get(row).copied().unwrap_or(0)),
        )
    }

    /// The row of `idx`: `Ok(row)` when shown, `Err(insertion row)` when filtered out.
    pub(super) fn row_of(&self, idx: EventIdx) -> Result<usize, usize> {
        match &self.rows {
            None => Ok(idx.get()),
            Some(rows) => rows.binary_search(&idx.0),
        }
    }

    pub(super) fn summary(&mut self, session: &Session, idx: EventIdx) -> &str {
        if self.summaries.len() > SUMMARY_CACHE_LIMIT {
            self.summaries.clear();
        }
        self.summaries
            .entry(idx.0)
            .or_insert_with(|| summarize_with_op(&session.log, idx))
    }
}

// --- Pure layout math -----------------------------------------------------------------

/// The scroll offset that shows `row` (centred), or `None` when it is already fully visible.
/// An unknown (NaN) `offset` always scrolls.
pub fn offset_to_reveal(
    row: usize,
    row_height: f32,
    offset: f32,
    viewport_height: f32,
) -> Option<f32> {
    let top = row as f32 * row_height;
    let bottom = top + row_height;
    if top >= offset && bottom <= offset + viewport_height {
        return None;
    }
    Some((top - (viewport_height - row_height) / 2.0).max(0.0))
}

/// The visible part of a bracket over rows `first..=last`, given the visible rows: the clamped
/// row range and whether it continues above or below the view.
pub fn bracket_span(
    first: usize,
    last: usize,
    visible: &Range<usize>,
) -> Option<(usize, usize, bool, bool)> {
    if visible.is_empty() || last < visible.start || first >= visible.end {
        return None;
    }
    let top = first.max(visible.start);
    let bottom = last.min(visible.end - 1);
    Some((top, bottom, first < visible.start, last >= visible.end))
}

/// Lane of a replace in the gutter, from its position among the log's replace ops.
pub fn lane_of(replace_position: usize) -> usize {
    replace_position % theme::LANES
}

// --- Drawing --------------------------------------------------------------------------

/// Shows the timeline: toolbar, header, rows.
pub fn timeline_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut TimelineState,
    search: &mut SearchState,
    geometry: &mut RowGeometry,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    state.ensure_rows(session, view.filter_mask);
    let rows = state.row_count(session);
    toolbar_ui(ui, view, search, (rows, session.len()), commands);
    timeline_rows::header_ui(ui, session, &pal);
    let mut scroll = ScrollArea::vertical()
        .id_salt("timeline-rows")
        .auto_shrink([false, false])
        // While following a live log with the cursor at the end, a view scrolled to the
        // bottom stays there as rows arrive; a cursor stepped back keeps its row in view.
        .stick_to_bottom(view.following && session.cursor() == session.len());
    let retry = state.retry_reveal.take();
    if let Some(target) = view.reveal.or(retry)
        && let Ok(row) = state.row_of(target)
        && let Some(offset) =
            offset_to_reveal(row, theme::ROW_HEIGHT, state.offset, state.viewport_height)
    {
        scroll = scroll.vertical_scroll_offset(offset);
    }
    ui.spacing_mut().item_spacing.y = 0.0;
    let output = scroll.show_rows(ui, theme::ROW_HEIGHT, rows, |ui, range| {
        geometry.timeline_clip = ui.clip_rect();
        let mut row_rects = Vec::with_capacity(range.len());
        for row in range.clone() {
            let idx = state.event_at(row);
            let rect = timeline_rows::row_ui(ui, session, view, state, search, idx, &pal, commands);
            row_rects.push((idx, rect));
        }
        timeline_rows::brackets_ui(ui, session, state, &range, &row_rects, &pal, commands);
        geometry.timeline = row_rects;
    });
    let resized = state.viewport_height != output.inner_rect.height();
    state.offset = output.state.clamped_offset().y;
    state.viewport_height = output.inner_rect.height();
    // Checked again next frame, and for as long as the viewport keeps changing size.
    if let Some(target) = view.reveal.or(retry.filter(|_| resized)) {
        state.retry_reveal = Some(target);
        ui.ctx().request_repaint();
    }
    geometry.timeline_clip = output.inner_rect;
    geometry.gutter_right = output.inner_rect.left() + theme::GUTTER_WIDTH;
}

/// `shown` is `(rows shown, events in the log)`.
fn toolbar_ui(
    ui: &mut Ui,
    view: &ViewState,
    search: &mut SearchState,
    shown: (usize, usize),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.horizontal_wrapped(|ui| {
        ui.label("Show:");
        for family in Family::ALL {
            let on = view.shows(family);
            let text = egui::RichText::new(family.label()).color(if on {
                pal.family(family)
            } else {
                pal.weak_text
            });
            let r = ui
                .selectable_label(on, text)
                .on_hover_text(format!("Show or hide {} events", family.label()));
            if r.clicked() {
                commands.push(UiCommand::ToggleFamily(family));
            }
        }
        if shown.0 < shown.1 {
            ui.label(
                egui::RichText::new(format!("{} of {} events", shown.0, shown.1))
                    .color(pal.weak_text),
            );
            if ui
                .button("all")
                .on_hover_text("Show every event type")
                .clicked()
            {
                commands.push(UiCommand::ShowAllFamilies);
            }
        }
    });
    ui.horizontal(|ui| {
        let edit = egui::TextEdit::singleline(&mut search.query)
            .hint_text("Search payloads, shadowed included (Ctrl+F)")
            .desired_width(ui.available_width() - 190.0);
        let r = ui.add(edit);
        if search.focus_request {
            r.request_focus();
            search.focus_request = false;
        }
        if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
            let back = ui.input(|i| i.modifiers.shift);
            commands.push(if back {
                UiCommand::PrevHit
            } else {
                UiCommand::NextHit
            });
            r.request_focus();
        }
        if ui
            .button("▲")
            .on_hover_text("Previous hit (Shift+Enter)")
            .clicked()
        {
            commands.push(UiCommand::PrevHit);
        }
        if ui
            .button("▼")
            .on_hover_text("Next hit (Enter, F3)")
            .clicked()
        {
            commands.push(UiCommand::NextHit);
        }
        if search.has_query() {
            let pos = search
                .current
                .map_or("–".to_string(), |c| (c + 1).to_string());
            let mut text = format!("{pos}/{}", search.hits.len());
            if search.running() {
                text.push_str(&format!(" ({:.0}%)", search.fraction() * 100.0));
            }
            ui.label(egui::RichText::new(text).color(pal.weak_text));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reveal_offsets() {
        assert_eq!(offset_to_reveal(0, 18.0, 0.0, 180.0), None);
        assert_eq!(offset_to_reveal(9, 18.0, 0.0, 180.0), None);
        assert_eq!(offset_to_reveal(10, 18.0, 0.0, 180.0), Some(180.0 - 81.0));
        assert_eq!(offset_to_reveal(1, 18.0, 100.0, 180.0), Some(0.0));
        assert_eq!(offset_to_reveal(0, 18.0, f32::NAN, 180.0), Some(0.0));
    }

    #[test]
    fn bracket_spans() {
        assert_eq!(bracket_span(5, 9, &(0..20)), Some((5, 9, false, false)));
        assert_eq!(bracket_span(5, 30, &(10..20)), Some((10, 19, true, true)));
        assert_eq!(bracket_span(25, 30, &(10..20)), None);
        assert_eq!(bracket_span(0, 3, &(10..20)), None);
        assert_eq!(lane_of(5), 1);
    }
}
