//! The context strip above the replay scrubber: the meter's total after every event over the
//! whole log (a sawtooth that climbs with each message and drops at each compaction), the
//! provider-reported input tokens of each model call as dots, the context window and the
//! threshold as lines, replace ops marked. Hover shows the figures; click or drag seeks.
//! Once the compaction audit is known, the ops' marks take their trigger's colour and the
//! requests made over the threshold are marked along the bottom ([`AuditLayer`]).
//!
//! The curve is drawn from a min/max per pixel column computed once per log, width and
//! append (O(events) then), so a frame costs O(pixels) however long the log is. While the
//! meter is still being computed the strip says so, and click or drag still seek.

use std::sync::Arc;

use egui::WidgetInfo;
use egui::text::LayoutJob;
use egui::{Mesh, Pos2, Rect, Role, Sense, Shape, Stroke, TextFormat, TextStyle, Ui, Vec2};

use surface_engine::audit::Audit;
use surface_engine::{EventIdx, Meter};

use super::command::UiCommand;
use super::compactions_strip::{AuditLayer, hover_lines, legend};
use super::replay_bar::{
    cursor_from_x, fraction_from_cursor, marker_columns, seek_on_click_or_drag,
};
use super::session::{PENDING_METER_HOVER, Session};
use super::theme::{self, Palette};

/// Threshold ratios offered in the strip's menu.
pub const RATIOS: [f64; 8] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

/// UI-only state of the strip: its per-column caches and the audit it colours ops from.
#[derive(Debug, Default)]
pub struct StripState {
    columns: Option<Columns>,
    audit: Option<Arc<Audit>>,
    layer: Option<AuditLayer>,
    /// The Policy tab's what-if drawn over the curve, and its per-column cache.
    what_if: Option<Arc<surface_engine::policy::PolicyReport>>,
    what_if_layer: Option<super::policy_strip::WhatIfLayer>,
}

impl StripState {
    /// Drops the caches (a new log was loaded).
    pub fn reset(&mut self) {
        *self = StripState::default();
    }

    /// The compaction audit to colour the marks from (the latest one computed; `None` while
    /// none is). Cheap when it did not change.
    pub fn set_audit(&mut self, audit: Option<&Arc<Audit>>) {
        let same = match (&self.audit, audit) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.audit = audit.cloned();
            self.layer = None;
        }
    }

    /// The what-if report whose curve is drawn over the strip (`None`: none).
    pub fn set_what_if(&mut self, report: Option<Arc<surface_engine::policy::PolicyReport>>) {
        self.what_if = report;
    }
}

/// What the strip draws, per pixel column, for one `(width, events)` pair.
#[derive(Debug, PartialEq)]
pub struct Columns {
    key: (u32, usize),
    /// Lowest and highest total in each column, joined to the previous column's last value so
    /// that a jump between columns draws as a line.
    pub low: Vec<u32>,
    /// See `low`.
    pub high: Vec<u32>,
    /// The highest provider-reported prompt size of a model call in each column.
    pub reported: Vec<Option<u64>>,
    /// `(from column, to column, window)` segments.
    pub windows: Vec<(f32, f32, u64)>,
    /// Columns of replace ops.
    pub ops: Vec<f32>,
    /// The largest value drawn (the y scale).
    pub y_max: u64,
    /// The largest window, when it is left off the scale (the log stays far below it).
    pub off_scale: Option<u64>,
}

/// The min/max of the meter's total per column of a `width`-column strip over `n` events,
/// each joined to the previous column's last value. The value at cursor `k` is 0 for `k = 0`,
/// else `total_after(k - 1)` (the figure after the first `k` events), and sits at `x = k / n · width`,
/// where the scrubber puts cursor `k`: column `c` covers the cursors `c·n/width ..
/// (c+1)·n/width` (at least one; the last column also the end, cursor `n`).
pub fn column_extents(
    n: usize,
    total_after: impl Fn(usize) -> u32,
    width: usize,
) -> (Vec<u32>, Vec<u32>) {
    let value = |k: usize| k.checked_sub(1).map_or(0, &total_after);
    let mut low = Vec::with_capacity(width);
    let mut high = Vec::with_capacity(width);
    let mut last: Option<u32> = None;
    for c in 0..width {
        let from = (c * n / width).min(n);
        let to = if c + 1 == width {
            n + 1
        } else {
            ((c + 1) * n / width).clamp(from + 1, n + 1)
        };
        let (mut lo, mut hi) = (from..to)
            .map(value)
            .fold((u32::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        if let Some(prev) = last {
            lo = lo.min(prev);
            hi = hi.max(prev);
        }
        last = Some(value(to - 1));
        low.push(lo);
        high.push(hi);
    }
    (low, high)
}

/// How many times the data's peak a window may be and still set the scale: further off, the
/// curve would be a flat line at the bottom, so the window is named instead of drawn.
const WINDOW_IN_SCALE: u64 = 4;

/// The strip's scale for the data's peak and the largest window: `(y_max, window off scale)`.
pub fn y_scale(data_max: u64, window: Option<u64>) -> (u64, Option<u64>) {
    let (top, off) = match window {
        Some(w) if w <= data_max.saturating_mul(WINDOW_IN_SCALE) => (data_max.max(w), None),
        Some(w) => (data_max, Some(w)),
        None => (data_max, None),
    };
    ((top + top / 12).max(1), off)
}

/// The column of the event at index `event` on a `width`-column strip over `len` events (the
/// scrubber's position of the cursor just after it).
fn column_of(event: usize, len: usize, width: f32) -> f32 {
    (fraction_from_cursor(event + 1, len) * width)
        .min(width - 1.0)
        .max(0.0)
}

impl Columns {
    fn compute(session: &Session, meter: &Meter, width: usize) -> Columns {
        let len = meter.len();
        let w = width as f32;
        let (low, high) = column_extents(len, |i| meter.total_after(i), width);
        let mut reported: Vec<Option<u64>> = vec![None; width];
        for a in meter.anchors() {
            if let Some(u) = a.usage {
                let c = column_of(a.message.get(), len, w) as usize;
                if let Some(slot) = reported.get_mut(c) {
                    *slot = Some(slot.map_or(u.prompt(), |r| r.max(u.prompt())));
                }
            }
        }
        let changes = meter.window_changes();
        let windows: Vec<(f32, f32, u64)> = changes
            .iter()
            .enumerate()
            .map(|(k, &(e, window))| {
                let from = column_of(e as usize, len, w);
                let to = changes
                    .get(k + 1)
                    .map_or(w, |&(next, _)| column_of(next as usize, len, w));
                (from, to, window)
            })
            .collect();
        let ops = marker_columns(session.replace_ops.iter().map(|e| e.get()), len, w);
        let data_max = high
            .iter()
            .copied()
            .max()
            .map_or(0, u64::from)
            .max(reported.iter().flatten().copied().max().unwrap_or(0));
        let (y_max, off_scale) = y_scale(data_max, windows.iter().map(|w| w.2).max());
        Columns {
            key: (width as u32, len),
            low,
            high,
            reported,
            windows,
            ops,
            y_max,
            off_scale,
        }
    }
}

/// Shows the strip.
pub fn context_strip_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut StripState,
    ratio: f64,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::STRIP_HEIGHT),
        Sense::click_and_drag(),
    );
    let label = if session.meter().is_some() {
        "Context strip"
    } else {
        PENDING_STRIP_LABEL
    };
    response.widget_info(|| WidgetInfo::labeled(Role::Slider, true, label));
    let width = rect.width().max(1.0) as usize;
    let Some(meter) = session.meter() else {
        pending_ui(ui, rect, &response, session, &pal, commands);
        return;
    };
    let len = meter.len();
    if state
        .columns
        .as_ref()
        .is_none_or(|c| c.key != (width as u32, len))
    {
        state.columns = Some(Columns::compute(session, meter, width));
    }
    if let Some(audit) = &state.audit
        && state
            .layer
            .as_ref()
            .is_none_or(|l| !l.is_for(audit, len, width))
    {
        state.layer = Some(AuditLayer::compute(audit, len, width));
    }
    match &state.what_if {
        Some(report)
            if state
                .what_if_layer
                .as_ref()
                .is_none_or(|l| !l.is_for(report, width, len)) =>
        {
            state.what_if_layer = Some(super::policy_strip::WhatIfLayer::compute(
                report, meter, width,
            ));
        }
        Some(_) => {}
        None => state.what_if_layer = None,
    }
    let Some(columns) = &state.columns else {
        return;
    };
    paint(
        ui,
        rect,
        session,
        columns,
        state.layer.as_ref(),
        ratio,
        &pal,
    );
    if let Some(layer) = &state.what_if_layer {
        layer.paint(ui, rect, columns.y_max, &pal);
    }
    seek_on_click_or_drag(&response, rect, len, commands);
    response.context_menu(|ui| {
        ui.label("Compaction threshold (share of the window)");
        for r in RATIOS {
            if ui
                .selectable_label((ratio - r).abs() < 1e-9, format!("{:.0} %", r * 100.0))
                .clicked()
            {
                commands.push(UiCommand::SetThresholdRatio(r));
                ui.close();
            }
        }
    });
    if let Some(pos) = response.hover_pos()
        && !response.context_menu_opened()
    {
        let c = cursor_from_x(pos.x, rect.left(), rect.width(), len);
        let mut text = hover_text(session, c, ratio);
        let font = TextStyle::Body.resolve(ui.style());
        let mut job = LayoutJob::default();
        if let Some(audit) = &state.audit {
            // The marks within a few pixels of the pointer: cursors k are events k - 1.
            let reach = theme::SCRUBBER_MARKER_SPACING / 2.0;
            let from = cursor_from_x(pos.x - reach, rect.left(), rect.width(), len);
            let to = cursor_from_x(pos.x + reach, rect.left(), rect.width(), len);
            if let Some(lines) = hover_lines(audit, from.saturating_sub(1), to.saturating_sub(1)) {
                text.push('\n');
                text.push_str(&lines);
            }
            job.append(&text, 0.0, TextFormat::simple(font.clone(), pal.text));
            legend(&mut job, font, &pal);
        } else {
            job.append(&text, 0.0, TextFormat::simple(font, pal.text));
        }
        response.on_hover_text_at_pointer(job);
    }
}

/// What the strip says while the meter is computed.
const PENDING_STRIP_LABEL: &str = "token meter: computing…";

/// The strip while the meter is computed: the track, the cursor and a note; seeking works.
fn pending_ui(
    ui: &Ui,
    rect: Rect,
    response: &egui::Response,
    session: &Session,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, theme::CORNER_RADIUS, pal.strip_bg);
    painter.text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        PENDING_STRIP_LABEL,
        egui::FontId::proportional(theme::STRIP_LABEL_SIZE),
        pal.weak_text,
    );
    let len = session.len();
    let cx = rect.left() + fraction_from_cursor(session.cursor(), len) * rect.width();
    painter.vline(
        cx,
        rect.y_range(),
        Stroke::new(theme::STROKE_MEDIUM, pal.text),
    );
    seek_on_click_or_drag(response, rect, len, commands);
    if response.hovered() {
        response
            .clone()
            .on_hover_text_at_pointer(PENDING_METER_HOVER);
    }
}

fn paint(
    ui: &Ui,
    rect: Rect,
    session: &Session,
    columns: &Columns,
    layer: Option<&AuditLayer>,
    ratio: f64,
    pal: &Palette,
) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, theme::CORNER_RADIUS, pal.strip_bg);
    let plot = rect.shrink2(Vec2::new(0.0, theme::STRIP_PADDING));
    let y_of = |tokens: u64| {
        plot.bottom() - (tokens as f32 / columns.y_max as f32).min(1.0) * plot.height()
    };
    // The area under the curve, then the curve itself: one mesh each.
    let mut fill = Mesh::default();
    let mut curve = Mesh::default();
    for (c, (&lo, &hi)) in columns.low.iter().zip(&columns.high).enumerate() {
        let x = rect.left() + c as f32;
        let top = y_of(u64::from(hi));
        fill.add_colored_rect(
            Rect::from_x_y_ranges(x..=x + 1.0, top..=plot.bottom()),
            pal.strip_fill,
        );
        let bottom = y_of(u64::from(lo)).max(top + theme::STROKE_THIN);
        curve.add_colored_rect(
            Rect::from_x_y_ranges(x..=x + 1.0, top..=bottom),
            pal.strip_curve,
        );
    }
    painter.add(Shape::mesh(fill));
    painter.add(Shape::mesh(curve));
    // Lines, dashes, dots and marks: one more mesh, a few vertices per column at most.
    let mut marks = Mesh::default();
    for &(from, to, window) in columns.windows.iter().filter(|w| w.2 <= columns.y_max) {
        let (x0, x1) = (rect.left() + from, rect.left() + to);
        let y = y_of(window);
        marks.add_colored_rect(
            Rect::from_x_y_ranges(x0..=x1, y..=y + theme::STROKE_THIN),
            pal.strip_window,
        );
        let y = y_of(surface_engine::meter::threshold(window, ratio));
        let mut x = x0;
        while x < x1 {
            let end = (x + theme::STRIP_DASH).min(x1);
            marks.add_colored_rect(
                Rect::from_x_y_ranges(x..=end, y..=y + theme::STROKE_THIN),
                pal.warning,
            );
            x += theme::STRIP_DASH * 2.0;
        }
    }
    // Dots; small translucent ticks when nearly every column has one.
    let dots = columns.reported.iter().flatten().count() as f32;
    let (size, dot_color) = if dots > rect.width() / theme::SCRUBBER_MARKER_SPACING {
        (Vec2::new(1.0, 2.0), pal.strip_reported.gamma_multiply(0.6))
    } else {
        (
            Vec2::splat(2.0 * theme::STRIP_DOT_RADIUS),
            pal.strip_reported,
        )
    };
    for (c, reported) in columns.reported.iter().enumerate() {
        if let Some(tokens) = reported {
            let center = Pos2::new(rect.left() + c as f32 + 0.5, y_of(*tokens));
            marks.add_colored_rect(Rect::from_center_size(center, size), dot_color);
        }
    }
    if let Some(layer) = layer {
        layer.paint(&mut marks, rect, pal);
    } else {
        let crowded = columns.ops.len() as f32 > rect.width() / theme::SCRUBBER_MARKER_SPACING;
        let op = pal.marker_stroke(true, crowded);
        for &x in &columns.ops {
            let x = rect.left() + x - op.width / 2.0;
            marks.add_colored_rect(
                Rect::from_x_y_ranges(
                    x..=x + op.width,
                    rect.top()..=rect.top() + theme::STRIP_OP_MARK,
                ),
                op.color,
            );
        }
    }
    painter.add(Shape::mesh(marks));
    if let Some(window) = columns.off_scale {
        let galley = painter.layout_no_wrap(
            format!(
                "window {window} · threshold {} — above the scale",
                surface_engine::meter::threshold(window, ratio)
            ),
            egui::FontId::proportional(theme::STRIP_LABEL_SIZE),
            pal.weak_text,
        );
        let at =
            rect.right_top() + Vec2::new(-theme::SPACE - galley.size().x, theme::STRIP_PADDING);
        painter.rect_filled(
            Rect::from_min_size(at, galley.size()).expand(theme::STRIP_PADDING),
            theme::CORNER_RADIUS,
            pal.strip_bg,
        );
        painter.galley(at, galley, pal.weak_text);
    }
    let cx = rect.left() + fraction_from_cursor(session.cursor(), columns.key.1) * rect.width();
    painter.vline(
        cx,
        rect.y_range(),
        Stroke::new(theme::STROKE_MEDIUM, pal.text),
    );
}

/// The figures at cursor `cursor`, for the hover text.
pub fn hover_text(session: &Session, cursor: usize, ratio: f64) -> String {
    let Some(meter) = session.meter() else {
        return PENDING_METER_HOVER.to_string();
    };
    let f = meter.at(cursor);
    let at = cursor
        .checked_sub(1)
        .map_or("start (nothing read)".to_string(), |i| {
            let idx = EventIdx(i as u32);
            format!(
                "after seq {} ({})",
                session.log.event(idx).seq,
                session.log.type_name(idx)
            )
        });
    let mut text = format!(
        "{at}\nmeter: {} tokens ({} baseline) · surface {} · header {}",
        f.total,
        f.baseline_kind.as_str(),
        f.surface,
        meter.header_price_at(cursor)
    );
    match (meter.window_at(cursor), meter.threshold_at(cursor, ratio)) {
        (Some(w), Some(t)) => text.push_str(&format!(
            "\nwindow {w} · threshold {t} ({:.0} %) · {:.1} % full",
            ratio * 100.0,
            f.total as f64 * 100.0 / w as f64
        )),
        _ => text.push_str("\nno context window known yet"),
    }
    if let Some(u) = meter.anchor_at(cursor).and_then(|a| a.usage) {
        text.push_str(&format!(
            "\nlast model call: {} prompt tokens reported (input {} + cache {} / {}), {} output",
            u.prompt(),
            u.input,
            u.cache_read,
            u.cache_write,
            u.output
        ));
    }
    text.push_str("\nclick or drag to move the cursor · right-click: threshold");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_join_neighbouring_columns() {
        // Cursors 0..=8 hold 0, 0, 10, 20, 5, 5, 40, 40, 40.
        let totals = [0, 10, 20, 5, 5, 40, 40, 40];
        let (low, high) = column_extents(totals.len(), |i| totals[i], 4);
        assert_eq!(low, vec![0, 0, 5, 5]);
        assert_eq!(high, vec![0, 20, 20, 40]);
        // Fewer events than columns: a cursor covers several columns.
        let (low, high) = column_extents(2, |i| [3, 9][i], 4);
        assert_eq!((low, high), (vec![0, 0, 0, 3], vec![0, 0, 3, 9]));
        assert_eq!(column_extents(0, |_| 9, 2), (vec![0, 0], vec![0, 0]));
    }

    #[test]
    fn the_window_sets_the_scale_only_when_the_log_comes_near_it() {
        assert_eq!(y_scale(4_000, Some(128_000)), (4_333, Some(128_000)));
        assert_eq!(y_scale(40_000, Some(128_000)), (138_666, None));
        assert_eq!(y_scale(0, None), (1, None));
    }

    #[test]
    fn hover_names_the_figures() {
        let s = super::super::session::test_session();
        let text = hover_text(&s, 2, 0.8);
        assert!(text.starts_with("after seq 1 (user/message)"), "{text}");
        assert!(
            text.contains("meter: 18 tokens (estimated baseline) · surface 18"),
            "{text}"
        );
        assert!(text.contains("no context window"), "{text}");
    }
}
