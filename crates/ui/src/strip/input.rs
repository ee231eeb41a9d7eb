//! The context strip's pointer gestures: click seeks, a drag brushes a range and zooms to
//! it, Shift+drag or a middle-button drag pans, Ctrl+wheel zooms at the pointer, the wheel
//! pans, a double-click shows the whole log again — and puts the cursor back where the
//! double-click's first click found it, so that it does not seek. Each becomes a [`UiCommand`].

use egui::{Rect, Response, Stroke, Ui};

use crate::command::NavCommand;
use crate::command::StripCommand;
use crate::command::UiCommand;
use crate::strip::axis::Axis;
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// A brush shorter than this (points) is a click: it seeks.
const BRUSH_MIN: f32 = 4.0;
/// Spans panned per point of wheel scrolling (Ctrl+wheel arrives as a zoom delta instead).
const WHEEL_PAN_PER_POINT: f64 = 1.0 / 600.0;

/// What the strip's gestures keep between frames.
#[derive(Debug, Default)]
pub struct Gestures {
    /// Where a range brush started (x), while one is dragged.
    brush_from: Option<f32>,
    /// The last click's seek: when (input time) and the cursor before it, which a
    /// double-click puts back.
    click: Option<(f64, usize)>,
}

/// Turns the strip's pointer input into seeks and zoom changes; draws the brush while it is
/// dragged. `cursor` is the replay cursor now.
#[allow(clippy::too_many_arguments)]
pub fn strip_input(
    ui: &Ui,
    response: &Response,
    rect: Rect,
    (zoom, axis): (&Zoom, &Axis<'_>),
    gestures: &mut Gestures,
    cursor: usize,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let now = ui.input(|i| i.time);
    let mut seek = |commands: &mut Vec<UiCommand>, to: usize| {
        gestures.click = Some((now, cursor));
        commands.push(NavCommand::Seek(to).into());
    };
    let brush_from = &mut gestures.brush_from;
    let fraction = |x: f32| f64::from((x - rect.left()) / rect.width().max(1.0));
    let len = axis.extent();
    // Where a brush's end lands: on a whole cursor on the index axis, at any time on the time
    // axis (a range may start in an idle stretch).
    let brushed = |x: f32| {
        if axis.is_time() {
            zoom.start + fraction(x).clamp(0.0, 1.0) * zoom.span()
        } else {
            zoom.cursor_at(fraction(x), len) as f64
        }
    };
    if response.double_clicked() {
        *brush_from = None;
        // The first click of the two moved the cursor: put it back.
        // The second press comes within the double-click delay of the first release (the
        // seek), and is released within a click's duration.
        let window = ui.ctx().options(|o| {
            o.input_options.max_double_click_delay + o.input_options.max_click_duration
        });
        if let Some((at, before)) = gestures.click.take()
            && now - at <= window
            && before != cursor
        {
            commands.push(NavCommand::Seek(before).into());
        }
        commands.push(StripCommand::SetZoom(None).into());
        return;
    }
    let panning = ui.input(|i| i.modifiers.shift || i.pointer.middle_down());
    if response.drag_started()
        && !panning
        && let Some(pos) = response.interact_pointer_pos()
    {
        *brush_from = Some(pos.x);
    }
    if response.dragged() && panning {
        *brush_from = None;
        let dx = response.drag_delta().x;
        if dx != 0.0 {
            let by = -f64::from(dx / rect.width().max(1.0));
            commands.push(StripCommand::SetZoom(Some(zoom.panned(by, len))).into());
        }
    }
    if let (Some(from), Some(pos)) = (*brush_from, response.interact_pointer_pos()) {
        let (a, b) = (from.min(pos.x), from.max(pos.x));
        if response.dragged() {
            ui.painter_at(rect).rect(
                Rect::from_x_y_ranges(a..=b, rect.y_range()),
                0.0,
                pal.range_bg.gamma_multiply(theme::RANGE_BAND_ALPHA),
                Stroke::new(theme::STROKE_THIN, pal.text),
                egui::StrokeKind::Inside,
            );
        }
        if response.drag_stopped() {
            *brush_from = None;
            if b - a >= BRUSH_MIN {
                let (start, end) = (brushed(a), brushed(b));
                commands.push(StripCommand::SetZoom(Some(Zoom { start, end })).into());
            } else {
                seek(commands, axis.cursor_at_fraction(zoom, fraction(pos.x)));
            }
        }
    } else if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        seek(commands, axis.cursor_at_fraction(zoom, fraction(pos.x)));
    }
    if response.hovered() {
        let (zoom_delta, scroll) = ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta));
        let anchor = response
            .hover_pos()
            .map_or(0.5, |p| fraction(p.x).clamp(0.0, 1.0));
        if zoom_delta != 1.0 {
            let factor = 1.0 / f64::from(zoom_delta);
            commands.push(StripCommand::SetZoom(Some(zoom.zoomed(anchor, factor, len))).into());
        } else {
            // A vertical wheel pans as a horizontal one does (down/right: later).
            let delta = if scroll.x != 0.0 {
                -scroll.x
            } else {
                -scroll.y
            };
            if delta != 0.0 {
                let by = f64::from(delta) * WHEEL_PAN_PER_POINT;
                commands.push(StripCommand::SetZoom(Some(zoom.panned(by, len))).into());
            }
        }
    }
}
