//! The timeline panel: every event as a virtualised row (seq, time, type, state at the cursor,
//! payload summary), shadow brackets in the gutter, family filters and the search box.

use egui::{Key, ScrollArea, Ui};
use surface_engine::EventIdx;

use crate::command::TimelineCommand;
use crate::command::UiCommand;
use crate::session::loaded::Session;
use crate::theme::{self, Family};
use crate::timeline::search::SearchState;
pub use crate::timeline::state::TimelineState;
use crate::view::{RowGeometry, ViewState};

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

/// `offset` kept within what `rows` rows of `row_height` scroll to in a `viewport_height`
/// view: a row near the end is revealed at the bottom, not centred over blank space (which
/// the scroll area would then ease back from, frame by frame).
pub fn clamped_offset(offset: f32, rows: usize, row_height: f32, viewport_height: f32) -> f32 {
    let end = (rows as f32 * row_height - viewport_height).max(0.0);
    offset.clamp(0.0, end)
}

/// Frames a reveal is retried until its row is seen whole.
const REVEAL_ATTEMPTS: u8 = 8;

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
    crate::timeline::rows::header_ui(ui, session, &pal);
    let mut scroll = ScrollArea::vertical()
        .id_salt("timeline-rows")
        .auto_shrink([false, false])
        // While following a live log with the cursor at the end, a view scrolled to the
        // bottom stays there as rows arrive; a cursor stepped back keeps its row in view.
        .stick_to_bottom(view.following && session.cursor() == session.len());
    let retry = state.retry_reveal.take();
    // The rows' view is about to change size (a banner came or went, the strip grew): a cursor
    // row that was in view stays in view.
    let resizing = (ui.available_height() - state.viewport_height).abs() > 0.5;
    let keep = (resizing && state.cursor_seen)
        .then(|| session.cursor_event())
        .flatten();
    let target = view.reveal.or(retry).or(keep);
    if view.reveal.is_some() || keep.is_some() {
        state.reveal_attempts = REVEAL_ATTEMPTS;
    }
    // The rows' view as the last frame measured it; before any frame, the height left (the
    // scroll area does not shrink), so the first reveal is not made against a zero height.
    let viewport = if state.viewport_height > 0.0 {
        state.viewport_height
    } else {
        ui.available_height()
    };
    if let Some(target) = target
        && let Ok(row) = state.row_of(target)
        && let Some(offset) = offset_to_reveal(row, theme::ROW_HEIGHT, state.offset, viewport)
    {
        let offset = clamped_offset(offset, rows, theme::ROW_HEIGHT, viewport);
        scroll = scroll.vertical_scroll_offset(offset);
    }
    ui.spacing_mut().item_spacing.y = 0.0;
    let output = scroll.show_rows(ui, theme::ROW_HEIGHT, rows, |ui, range| {
        geometry.timeline_clip = ui.clip_rect();
        let mut row_rects = Vec::with_capacity(range.len());
        for row in range.clone() {
            let idx = state.event_at(row);
            let rect = crate::timeline::rows::row_ui(
                ui, session, view, state, search, idx, &pal, commands,
            );
            row_rects.push((idx, rect));
        }
        crate::timeline::rows::brackets_ui(ui, session, state, &range, &row_rects, &pal, commands);
        geometry.timeline = row_rects;
    });
    state.offset = output.state.clamped_offset().y;
    state.viewport_height = output.inner_rect.height();
    let seen = |state: &TimelineState, idx: EventIdx| {
        state.row_of(idx).is_ok_and(|row| {
            offset_to_reveal(
                row,
                theme::ROW_HEIGHT,
                state.offset - 0.5,
                state.viewport_height + 1.0,
            )
            .is_none()
        })
    };
    // A reveal is checked again on the next frames until its row is seen whole: the scroll
    // area clamps to the last frame's content height, and the panels around may still change
    // size (a banner, the strip) and hide the row again.
    if let Some(target) = target.filter(|&t| !seen(state, t))
        && state.reveal_attempts > 0
    {
        state.reveal_attempts -= 1;
        state.retry_reveal = Some(target);
        ui.ctx().request_repaint();
    }
    state.cursor_seen = session.cursor_event().is_some_and(|c| seen(state, c));
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
                commands.push(TimelineCommand::ToggleFamily(family).into());
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
                commands.push(TimelineCommand::ShowAllFamilies.into());
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
                TimelineCommand::PrevHit.into()
            } else {
                TimelineCommand::NextHit.into()
            });
            r.request_focus();
        }
        if ui
            .button("▲")
            .on_hover_text("Previous hit (Shift+Enter)")
            .clicked()
        {
            commands.push(TimelineCommand::PrevHit.into());
        }
        if ui
            .button("▼")
            .on_hover_text("Next hit (Enter, F3)")
            .clicked()
        {
            commands.push(TimelineCommand::NextHit.into());
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
    fn a_row_near_the_end_is_revealed_at_the_bottom_not_over_blank_space() {
        // 100 rows of 18 in a 180 view: the last row centred would be 1791 − 81.
        let centred = offset_to_reveal(99, 18.0, 0.0, 180.0).unwrap();
        assert_eq!(centred, 1782.0 - 81.0);
        assert_eq!(clamped_offset(centred, 100, 18.0, 180.0), 1800.0 - 180.0);
        assert_eq!(
            clamped_offset(500.0, 100, 18.0, 180.0),
            500.0,
            "inside: kept"
        );
        assert_eq!(
            clamped_offset(50.0, 5, 18.0, 180.0),
            0.0,
            "fewer rows than fit"
        );
    }
}
