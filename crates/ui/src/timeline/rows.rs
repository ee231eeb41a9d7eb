//! Painting of timeline rows: columns, state colours, hover texts, and the shadow brackets
//! in the gutter. Layout math lives in [`crate::timeline::panel`].

use std::ops::Range;

use egui::{Align2, FontId, Pos2, Rect, Role, Sense, Stroke, Ui, Vec2, WidgetInfo};

use surface_engine::{EventIdx, EventState};

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::command::WindowCommand;
use crate::session::loaded::{Session, format_absolute, format_relative};
use crate::theme::{self, Family, Palette};
use crate::timeline::search::SearchState;
use crate::timeline::state::TimelineState;
use crate::view::ViewState;

/// The column headers, over columns as wide as the rows' (`session`'s seqs decide the seq
/// column's width).
pub(crate) fn header_ui(ui: &mut Ui, session: &Session, pal: &Palette) {
    let seq_width = crate::seq_width::seq_column_width(ui, session, &FontId::monospace(12.0));
    let (rect, _) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::ROW_HEIGHT),
        Sense::hover(),
    );
    let cols = Columns::new(rect, seq_width);
    let font = FontId::proportional(12.0);
    let p = ui.painter();
    for (x, label) in [
        (cols.seq, "seq"),
        (cols.time, "time"),
        (cols.kind, "type"),
        (cols.state, "state"),
        (cols.summary, "payload"),
    ] {
        p.text(
            Pos2::new(x, rect.center().y),
            Align2::LEFT_CENTER,
            label,
            font.clone(),
            pal.weak_text,
        );
    }
    p.hline(
        rect.x_range(),
        rect.bottom(),
        Stroke::new(theme::STROKE_THIN, pal.track),
    );
}

/// X positions of the timeline columns inside a row.
#[derive(Clone, Copy, Debug)]
struct Columns {
    seq: f32,
    time: f32,
    kind: f32,
    state: f32,
    summary: f32,
    right: f32,
}

impl Columns {
    fn new(row: Rect, seq_width: f32) -> Self {
        let seq = row.left() + theme::GUTTER_WIDTH;
        let time = seq + seq_width;
        let kind = time + theme::TIME_WIDTH;
        let state = kind + theme::TYPE_WIDTH;
        let summary = state + theme::STATE_WIDTH;
        Columns {
            seq,
            time,
            kind,
            state,
            summary,
            right: row.right(),
        }
    }
}

/// A human description of a state, with its reason.
pub fn describe_state(session: &Session, state: EventState) -> String {
    match state {
        EventState::Shadowed { by } => {
            let e = session.log.event(by);
            format!("shadowed by seq {} ({})", e.seq, session.log.type_name(by))
        }
        EventState::Invalid(_) => "invalid op (hover the row for the reason)".into(),
        EventState::MissingOp => "surface-eligible but has no surfaceOp: not on the surface".into(),
        EventState::NotReached => "after the replay cursor".into(),
        EventState::LogOnly => "only in the log (not a surface event)".into(),
        EventState::OnSurface => "on the surface at the cursor".into(),
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "a row needs the session, view, caches and the command queue"
)]
pub(crate) fn row_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut TimelineState,
    search: &SearchState,
    idx: EventIdx,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) -> Rect {
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::ROW_HEIGHT),
        Sense::click(),
    );
    let record = session.log.event(idx);
    let ev_state = session.surface.state(idx);
    let selected = view.selected == Some(idx);
    response.widget_info(|| {
        WidgetInfo::selected(
            Role::Button,
            true,
            selected,
            format!("event seq {}", record.seq),
        )
    });
    if !ui.is_rect_visible(rect) {
        return rect;
    }
    let cols = Columns::new(
        rect,
        crate::seq_width::seq_column_width(ui, session, &FontId::monospace(12.0)),
    );
    let body = Rect::from_x_y_ranges(cols.seq - 2.0..=rect.right(), rect.y_range());
    let bg = if selected {
        Some(pal.selection_bg)
    } else if search.is_hit(idx) {
        Some(pal.hit_bg)
    } else if matches!(ev_state, EventState::Shadowed { by } if view.selected == Some(by)) {
        // The range the selected replace shadowed stands out from other shadowed rows.
        Some(pal.range_bg)
    } else if matches!(ev_state, EventState::Shadowed { .. }) {
        Some(pal.shadowed_bg)
    } else {
        None
    };
    let painter = ui.painter_at(rect);
    if let Some(bg) = bg {
        painter.rect_filled(body, 0.0, bg);
    }
    if response.hovered() {
        painter.rect_stroke(body, 0.0, pal.hover_stroke(), egui::StrokeKind::Inside);
    }
    let summary = state.summary(session, idx).to_string();
    paint_cells(&painter, rect, cols, session, idx, &summary, pal);
    if session.cursor_event() == Some(idx) {
        painter.hline(
            rect.x_range(),
            rect.bottom() - 1.0,
            Stroke::new(theme::STROKE_MEDIUM, pal.track_fill),
        );
    }
    if session.finding_marks().binary_search(&idx).is_ok() {
        painter.circle_filled(Pos2::new(cols.seq - 6.0, rect.center().y), 3.0, pal.warning);
    }
    row_hover(&response, cols, session, idx);
    row_clicks(&response, cols, session, idx, commands);
    rect
}

/// Paints a row's cells: seq, time, the type with its family's colour, state, summary.
fn paint_cells(
    painter: &egui::Painter,
    rect: Rect,
    cols: Columns,
    session: &Session,
    idx: EventIdx,
    summary: &str,
    pal: &Palette,
) {
    let ev_state = session.surface.state(idx);
    let type_name = session.log.type_name(idx);
    let text_color = pal.state_text(ev_state);
    let mono = FontId::monospace(12.0);
    let y = rect.center().y;
    let clip = |x0: f32, x1: f32| {
        painter.with_clip_rect(Rect::from_x_y_ranges(x0..=x1 - 4.0, rect.y_range()))
    };
    clip(cols.seq, cols.time).text(
        Pos2::new(cols.seq, y),
        Align2::LEFT_CENTER,
        session.log.event(idx).seq.to_string(),
        mono.clone(),
        text_color,
    );
    let time_text = session
        .relative_millis(idx)
        .map_or("—".to_string(), format_relative);
    clip(cols.time, cols.kind).text(
        Pos2::new(cols.time, y),
        Align2::LEFT_CENTER,
        time_text,
        mono.clone(),
        pal.weak_text,
    );
    let family_color = pal.family(Family::of(type_name));
    let type_color = if matches!(
        ev_state,
        EventState::NotReached | EventState::Shadowed { .. }
    ) {
        family_color.gamma_multiply(0.5)
    } else {
        family_color
    };
    painter.rect_filled(
        Rect::from_min_size(
            Pos2::new(cols.kind - 6.0, rect.top() + 3.0),
            Vec2::new(3.0, rect.height() - 6.0),
        ),
        1.0,
        type_color,
    );
    clip(cols.kind, cols.state).text(
        Pos2::new(cols.kind, y),
        Align2::LEFT_CENTER,
        type_name,
        mono,
        type_color,
    );
    let state_label = match ev_state {
        EventState::Invalid(_) => "invalid op",
        other => other.label(),
    };
    clip(cols.state, cols.summary).text(
        Pos2::new(cols.state, y),
        Align2::LEFT_CENTER,
        state_label,
        FontId::proportional(11.5),
        pal.state_chip(ev_state),
    );
    clip(cols.summary, cols.right).text(
        Pos2::new(cols.summary, y),
        Align2::LEFT_CENTER,
        summary,
        FontId::proportional(13.0),
        text_color,
    );
}

/// Context-dependent hover text: time, state reason, or the shadowing bracket.
fn row_hover(response: &egui::Response, cols: Columns, session: &Session, idx: EventIdx) {
    let Some(pos) = response.hover_pos() else {
        return;
    };
    let tip = if (cols.time..cols.kind).contains(&pos.x) {
        session
            .log
            .event(idx)
            .time()
            .map(|t| format!("{} ({t} ms since epoch)", format_absolute(t)))
    } else if (cols.state..cols.summary).contains(&pos.x) || pos.x < cols.seq {
        Some(describe_state_full(
            session,
            idx,
            session.surface.state(idx),
        ))
    } else {
        None
    };
    if let Some(tip) = tip {
        response.clone().on_hover_text_at_pointer(tip);
    }
}

/// A click selects the row (in the gutter of a shadowed row: follows to its replace), a
/// double click seeks past it, the context menu seeks or copies its JSON.
fn row_clicks(
    response: &egui::Response,
    cols: Columns,
    session: &Session,
    idx: EventIdx,
    commands: &mut Vec<UiCommand>,
) {
    if response.clicked() {
        commands.push(NavCommand::FocusList(crate::nav::navigate::ListKind::Timeline).into());
        let in_gutter = response
            .interact_pointer_pos()
            .is_some_and(|p| p.x < cols.seq);
        match session.surface.state(idx) {
            EventState::Shadowed { by } if in_gutter => {
                commands.push(NavCommand::FollowLink(by).into())
            }
            // Reveal: the row is visible here, so only the surface panel scrolls.
            _ => commands.push(NavCommand::Select { idx, reveal: true }.into()),
        }
    }
    if response.double_clicked() {
        commands.push(NavCommand::Seek(idx.get() + 1).into());
    }
    response.context_menu(|ui| {
        if ui.button("Move replay cursor here").clicked() {
            commands.push(NavCommand::Seek(idx.get() + 1).into());
            ui.close();
        }
        if ui.button("Copy event JSON").clicked() {
            commands.push(WindowCommand::Copy(session.log.event_json(idx).into_owned()).into());
            ui.close();
        }
    });
}

/// The state of an event with the reason of an invalid op and the replace that shadows it.
pub fn describe_state_full(session: &Session, idx: EventIdx, state: EventState) -> String {
    match state {
        EventState::Invalid(reason) => {
            let (s, e) = match session.log.op(idx) {
                surface_engine::SurfaceOp::Replace { start, end } => (start, end),
                _ => (0, 0),
            };
            format!("invalid op: {}", reason.describe(s, e))
        }
        EventState::Shadowed { by } => {
            let range = session.surface.replace_of(by).map(|r| {
                let (a, b) = (
                    session.log.event(r.first).seq,
                    session.log.event(r.last).seq,
                );
                format!(
                    " — replace of seq {a}..{b} ({})",
                    crate::wording::count(r.count as usize, "node")
                )
            });
            format!(
                "shadowed by seq {} ({}){}; click the gutter to select it",
                session.log.event(by).seq,
                session.log.type_name(by),
                range.unwrap_or_default()
            )
        }
        other => describe_state(session, other),
    }
}

/// Draws one bracket per replace that shadows visible rows, in the gutter.
pub(crate) fn brackets_ui(
    ui: &Ui,
    session: &Session,
    state: &TimelineState,
    range: &Range<usize>,
    rows: &[(EventIdx, Rect)],
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let Some(&(_, first_rect)) = rows.first() else {
        return;
    };
    let mut replacers: Vec<EventIdx> = rows
        .iter()
        .filter_map(|(i, _)| match session.surface.state(*i) {
            EventState::Shadowed { by } => Some(by),
            _ => None,
        })
        .collect();
    replacers.sort_unstable();
    replacers.dedup();
    let painter = ui.painter();
    let pointer = ui.input(|i| i.pointer.hover_pos());
    for by in replacers {
        let Some(rep) = session.surface.replace_of(by) else {
            continue;
        };
        let first = state.row_of(rep.first).unwrap_or_else(|r| r);
        let last = state
            .row_of(rep.last)
            .unwrap_or_else(|r| r.saturating_sub(1));
        let Some((top, bottom, open_top, open_bottom)) = bracket_span(first, last, range) else {
            continue;
        };
        let pos = session.replace_ops.binary_search(&by).unwrap_or(0);
        let lane = lane_of(pos);
        let x = first_rect.left() + 4.0 + lane as f32 * theme::LANE_WIDTH;
        let y0 = first_rect.top() + (top - range.start) as f32 * theme::ROW_HEIGHT + 2.0;
        let y1 = first_rect.top() + (bottom + 1 - range.start) as f32 * theme::ROW_HEIGHT - 2.0;
        let color = pal.bracket(lane);
        let hovered = pointer.is_some_and(|p| (p.x - x).abs() < 4.0 && (y0..=y1).contains(&p.y));
        let stroke = Stroke::new(
            if hovered {
                theme::BRACKET_HOVER_WIDTH
            } else {
                theme::STROKE_MEDIUM
            },
            color,
        );
        painter.vline(x, y0..=y1, stroke);
        if !open_top {
            painter.hline(x..=x + 5.0, y0, stroke);
        }
        if !open_bottom {
            painter.hline(x..=x + 5.0, y1, stroke);
        }
        if hovered {
            let (a, b) = (
                session.log.event(rep.first).seq,
                session.log.event(rep.last).seq,
            );
            egui::Tooltip::always_open(
                ui.ctx().clone(),
                ui.layer_id(),
                ui.scope_id().with(("bracket", by.0)),
                egui::PopupAnchor::Pointer,
            )
            .show(|ui| {
                ui.label(format!(
                    "seq {a}..{b} ({}) shadowed by seq {} — click to select it",
                    crate::wording::count(rep.count as usize, "node"),
                    session.log.event(by).seq
                ));
            });
            if ui.input(|i| i.pointer.primary_clicked()) {
                commands.push(NavCommand::FollowLink(by).into());
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracket_spans() {
        assert_eq!(bracket_span(5, 9, &(0..20)), Some((5, 9, false, false)));
        assert_eq!(bracket_span(5, 30, &(10..20)), Some((10, 19, true, true)));
        assert_eq!(bracket_span(25, 30, &(10..20)), None);
        assert_eq!(bracket_span(0, 3, &(10..20)), None);
        assert_eq!(lane_of(5), 1);
    }
}
