//! The context strip above the replay scrubber: the meter's total after every event over the
//! whole log (a sawtooth that climbs with each message and drops at each compaction), the
//! provider-reported input tokens of each model call as dots, the context window and the
//! threshold as lines, replace ops marked. Hover shows the figures; click or drag seeks.
//! Once the compaction audit is known, the ops' marks take their trigger's colour and the
//! requests made over the threshold are marked along the bottom ([`AuditLayer`]).
//!
//! The strip zooms and pans ([`Zoom`]): Ctrl+wheel (or W/S) zooms at the pointer, the wheel,
//! Shift+drag, middle-drag (or A/D) pan, a drag brushes a range and zooms to it, a
//! double-click shows the whole log again. The curve is drawn from a min/max per pixel column
//! read from a pyramid built once per log length ([`MinMax`]), and the columns are kept while
//! the width, length and range do not change, so a frame costs O(pixels), zoomed or not, and
//! a new range O(pixels · log events + marks). Marks that share a pixel column are drawn once;
//! the hover counts them. While the meter is still being computed the strip says so, and
//! click or drag still seek.

use std::sync::Arc;

use egui::WidgetInfo;
use egui::text::LayoutJob;
use egui::{
    Color32, Mesh, Pos2, Rect, Role, Sense, Shape, Stroke, TextFormat, TextStyle, Ui, Vec2,
};

use surface_analysis::audit::Audit;
use surface_engine::{EventIdx, Meter};

use crate::command::StripCommand;
use crate::command::UiCommand;
use crate::compactions::request_changes::RequestChanges;
use crate::session::loaded::{PENDING_METER_HOVER, Session};
use crate::strip::audit_layer::{AuditLayer, hover_lines};
use crate::strip::axis::{Axis, ColumnsKey, key_of};
use crate::strip::breaks_layer::BreaksLayer;
use crate::strip::minmax::MinMax;
use crate::strip::time_bands::TimeLayer;
use crate::strip::track::{fraction_from_cursor, seek_on_click_or_drag};
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// Threshold ratios offered in the strip's menu.
pub const RATIOS: [f64; 8] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

/// UI-only state of the strip: its per-column caches and the audit it colours ops from.
#[derive(Debug, Default)]
pub struct StripState {
    columns: Option<Columns>,
    audit: Option<Arc<Audit>>,
    layer: Option<AuditLayer>,
    /// The Policy tab's latest what-if, drawn over the curve unless hidden, and its per-column
    /// cache.
    what_if: Option<Arc<surface_analysis::policy::PolicyReport>>,
    /// The user hid the what-if (the toggle under the strip).
    pub(crate) hide_what_if: bool,
    /// Each model call's prompt is drawn split into cache read and the rest (the toggle under
    /// the strip; remembered in the preferences).
    pub(crate) show_cache: bool,
    what_if_layer: Option<crate::strip::what_if_layer::WhatIfLayer>,
    /// Every request's first change (why the cache missed), and its marks' per-column cache.
    changes: Option<Arc<RequestChanges>>,
    breaks_layer: Option<BreaksLayer>,
    /// The cache breaks are marked (the toggle under the strip; remembered in the preferences).
    pub(crate) show_breaks: bool,
    /// A compared run's curve (docs/compare.md), drawn over the curve unless hidden.
    pub(crate) compare: crate::compare::curve::CompareCurve,
    /// The meter's totals per cursor, for the min/max of any range.
    pyramid: Option<MinMax>,
    /// The pointer gestures in progress.
    gestures: crate::strip::input::Gestures,
}

impl StripState {
    /// Drops the caches (a new log was loaded).
    pub fn reset(&mut self) {
        *self = StripState::default();
    }

    /// The compaction audit to colour the marks from (the latest one computed; `None` while
    /// none is). Cheap when it did not change.
    pub fn set_audit(&mut self, audit: Option<&Arc<Audit>>) {
        if replaced(&mut self.audit, audit) {
            self.layer = None;
        }
    }

    /// Every request's first change, to mark the cache breaks from (`None` while computed).
    /// Cheap when it did not change.
    pub fn set_changes(&mut self, changes: Option<&Arc<RequestChanges>>) {
        if replaced(&mut self.changes, changes) {
            self.breaks_layer = None;
        }
    }

    /// The cache breaks' layer drawn this frame (`None`: not computed, or hidden).
    pub(crate) fn shown_breaks(&self) -> Option<&BreaksLayer> {
        self.breaks_layer.as_ref().filter(|_| self.show_breaks)
    }

    /// `Some(shown)` once the first changes are known: whether the cache breaks are marked.
    pub fn breaks_toggle(&self) -> Option<bool> {
        self.changes.as_ref().map(|_| self.show_breaks)
    }

    /// Idle columns of the last frame's columns (`None`: none drawn yet).
    pub fn idle_columns(&self) -> Option<usize> {
        self.columns
            .as_ref()
            .map(|c| c.idle.iter().filter(|&&i| i).count())
    }

    /// The longest idle stretch of the last frame, in milliseconds (`None`: not on the time
    /// axis).
    pub fn longest_idle_ms(&self) -> Option<u64> {
        let time = self.columns.as_ref()?.time.as_ref()?;
        Some(time.idle.iter().map(|r| r.2).max().unwrap_or(0))
    }

    /// True when the last frame's columns were laid out on the time axis.
    pub fn drawn_on_time(&self) -> bool {
        self.columns.as_ref().is_some_and(|c| c.time.is_some())
    }

    /// The what-if report whose curve is drawn over the strip unless hidden (`None`: none).
    pub fn set_what_if(&mut self, report: Option<Arc<surface_analysis::policy::PolicyReport>>) {
        self.what_if = report;
    }

    /// `Some(shown)` when a what-if exists: whether its curve is drawn.
    pub fn what_if_toggle(&self) -> Option<bool> {
        self.what_if.as_ref().map(|_| !self.hide_what_if)
    }

    /// What the legend under the strip names: the audit's colours once known, the what-if's
    /// threshold ratio while one exists.
    pub fn legend(&self, time: bool) -> crate::strip::legend::Legend {
        crate::strip::legend::Legend {
            time,
            cache_split: self.show_cache,
            audited: self.audit.is_some(),
            what_if: self.what_if.as_ref().map(|r| r.settings.threshold_ratio),
            breaks: self.shown_breaks().map(|l| l.causes),
        }
    }

    /// Model calls whose cache split the last frame drew (`None`: the split is off).
    pub fn cache_bars(&self) -> Option<usize> {
        let columns = self.columns.as_ref().filter(|_| self.show_cache)?;
        Some(columns.cache_read.iter().flatten().count())
    }

    /// The threshold ratio of the what-if drawn over the last frame (`None`: none, or hidden).
    pub fn what_if_drawn(&self) -> Option<f64> {
        self.shown_what_if().map(|l| l.ratio())
    }

    /// The what-if layer drawn this frame (`None`: none, or hidden).
    fn shown_what_if(&self) -> Option<&crate::strip::what_if_layer::WhatIfLayer> {
        self.what_if_layer.as_ref().filter(|_| !self.hide_what_if)
    }
}

/// What the strip draws, per pixel column, for one `(width, events, range)`.
#[derive(Debug, PartialEq)]
pub struct Columns {
    key: ColumnsKey,
    /// Lowest and highest total in each column, joined to the previous column's last value so
    /// that a jump between columns draws as a line.
    pub low: Vec<u32>,
    /// See `low`.
    pub high: Vec<u32>,
    /// The highest provider-reported prompt size of a model call in each column.
    pub reported: Vec<Option<u64>>,
    /// The cache read of that call (the cache split's lower part).
    pub cache_read: Vec<Option<u64>>,
    /// `(from column, to column, window)` segments.
    pub windows: Vec<(f32, f32, u64)>,
    /// Columns of replace ops, with how many share each.
    pub ops: Vec<(f32, usize)>,
    /// The largest value drawn (the y scale).
    pub y_max: u64,
    /// The largest window, when it is left off the scale (the log stays far below it).
    pub off_scale: Option<u64>,
    /// Columns in which no event happened (time axis: idle time; never on the index axis).
    pub idle: Vec<bool>,
    /// Idle stretches, model calls and compactions (time axis only).
    pub time: Option<TimeLayer>,
}

/// The min/max of the meter's total per column of a `width`-column strip over `n` events,
/// each joined to the previous column's last value. The value at cursor `k` is 0 for `k = 0`,
/// else `total_after(k - 1)` (the figure after the first `k` events), and sits at `x = k / n · width`,
/// where the scrubber puts cursor `k`: column `c` covers the cursors `c·n/width ..
/// (c+1)·n/width` (at least one; the last column also the end, cursor `n`). The reference
/// [`zoomed_extents`] is tested against.
#[cfg(test)]
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

/// The column of the event at index `event` on a `width`-column strip showing `zoom` (the
/// position of the cursor just after it), clamped to the strip.
fn column_of(event: usize, axis: &Axis<'_>, zoom: &Zoom, width: f32) -> f32 {
    (axis.fraction(zoom, event + 1) as f32 * width)
        .min(width - 1.0)
        .max(0.0)
}

/// The event indices that can fall inside the range shown (a little wider, never narrower):
/// event `e` sits at cursor `e + 1`.
fn visible_events(axis: &Axis<'_>, zoom: &Zoom, len: usize) -> std::ops::Range<usize> {
    let first = match axis {
        Axis::Time(t) => t.first_cursor_at_or_after(zoom.start),
        Axis::Index { .. } => axis.cursor_at(zoom.start),
    };
    let from = first.saturating_sub(2);
    let to = axis.cursor_at(zoom.end).saturating_add(2).min(len);
    from..to.max(from)
}

/// The column of the event at index `event` when it is inside the range shown.
fn column_in(event: usize, axis: &Axis<'_>, zoom: &Zoom, width: f32) -> Option<f32> {
    let f = axis.fraction(zoom, event + 1);
    (0.0..=1.0)
        .contains(&f)
        .then(|| (f as f32 * width).floor().min(width - 1.0).max(0.0))
}

/// The meter's total per pixel column: lowest and highest, and which columns hold no event.
#[derive(Debug, PartialEq)]
pub struct Extents {
    /// Lowest total in each column (joined to the previous column's last value).
    pub low: Vec<u32>,
    /// Highest total in each column.
    pub high: Vec<u32>,
    /// Columns in which no event happened (time axis): the total stays what it was.
    pub idle: Vec<bool>,
}

/// The min/max of the meter's total per column of a `width`-column strip showing `zoom` on
/// `axis` (see [`column_extents`]; the same values for the whole log), read from `pyramid`.
/// A column that holds no event (idle time) keeps the total of the cursor before it.
pub fn zoomed_extents(
    len: usize,
    total_after: impl Fn(usize) -> u32,
    pyramid: &MinMax,
    (axis, zoom): (&Axis<'_>, &Zoom),
    width: usize,
) -> Extents {
    let value = |k: usize| k.checked_sub(1).map_or(0, &total_after);
    let mut low = Vec::with_capacity(width);
    let mut high = Vec::with_capacity(width);
    let mut idle = Vec::with_capacity(width);
    let mut last: Option<u32> = None;
    for c in 0..width {
        let (from, to) = axis.column_bounds(zoom, c, width);
        let to = to.min(len + 1);
        let empty = from >= to;
        idle.push(empty);
        let (mut lo, mut hi) = if empty {
            let held = value(from.saturating_sub(1).min(len));
            (held, held)
        } else {
            pyramid.range(from, to, value)
        };
        if let Some(prev) = last {
            lo = lo.min(prev);
            hi = hi.max(prev);
        }
        if !empty {
            last = Some(value(to.saturating_sub(1)));
        }
        low.push(lo.min(hi));
        high.push(hi);
    }
    Extents { low, high, idle }
}

/// Distinct columns of the events at `positions` (sorted) inside the range shown, with how
/// many events share each.
pub fn counted_columns(
    positions: impl Iterator<Item = usize>,
    axis: &Axis<'_>,
    zoom: &Zoom,
    width: f32,
) -> Vec<(f32, usize)> {
    let mut out: Vec<(f32, usize)> = Vec::new();
    for c in positions.filter_map(|p| column_in(p, axis, zoom, width)) {
        match out.last_mut() {
            Some((x, n)) if *x == c => *n += 1,
            _ => out.push((c, 1)),
        }
    }
    out
}

impl Columns {
    fn compute(
        session: &Session,
        meter: &Meter,
        pyramid: &MinMax,
        (axis, zoom): (&Axis<'_>, &Zoom),
        width: usize,
    ) -> Columns {
        let len = meter.len();
        let w = width as f32;
        let Extents { low, high, idle } =
            zoomed_extents(len, |i| meter.total_after(i), pyramid, (axis, zoom), width);
        // Only the events of the range shown are looked at (binary searches), so a frame of a
        // zoomed strip costs O(pixels + marks shown), not O(marks in the log).
        let events = visible_events(axis, zoom, len);
        let mut reported: Vec<Option<u64>> = vec![None; width];
        let mut cache_read: Vec<Option<u64>> = vec![None; width];
        for a in meter.anchors_in(events.clone()) {
            if let Some(u) = a.usage
                && let Some(c) = column_in(a.message.get(), axis, zoom, w)
            {
                let c = c as usize;
                if let Some(slot) = reported.get_mut(c)
                    && slot.is_none_or(|r| u.prompt() >= r)
                {
                    *slot = Some(u.prompt());
                    cache_read[c] = Some(u.cache_read);
                }
            }
        }
        let changes = meter.window_changes();
        let windows: Vec<(f32, f32, u64)> = changes
            .iter()
            .enumerate()
            .map(|(k, &(e, window))| {
                let from = column_of(e as usize, axis, zoom, w);
                let to = changes
                    .get(k + 1)
                    .map_or(w, |&(next, _)| column_of(next as usize, axis, zoom, w));
                (from, to, window)
            })
            .filter(|(from, to, _)| to > from || *to >= w - 1.0)
            .collect();
        let ops_from = session
            .replace_ops
            .partition_point(|e| e.get() < events.start);
        let ops_to = session
            .replace_ops
            .partition_point(|e| e.get() < events.end);
        let ops = counted_columns(
            session.replace_ops[ops_from..ops_to.max(ops_from)]
                .iter()
                .map(|e| e.get()),
            axis,
            zoom,
            w,
        );
        let time = axis
            .is_time()
            .then(|| TimeLayer::compute(&session.time, axis, zoom, width, &idle));
        let data_max = high
            .iter()
            .copied()
            .max()
            .map_or(0, u64::from)
            .max(reported.iter().flatten().copied().max().unwrap_or(0));
        let (y_max, off_scale) = y_scale(data_max, windows.iter().map(|w| w.2).max());
        Columns {
            key: key_of(width, len, axis, zoom),
            low,
            high,
            reported,
            cache_read,
            windows,
            ops,
            y_max,
            off_scale,
            idle,
            time,
        }
    }
}

/// Puts `new` in `slot` unless it holds the same data already; true when it changed.
fn replaced<T>(slot: &mut Option<Arc<T>>, new: Option<&Arc<T>>) -> bool {
    let same = match (&*slot, new) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    };
    if !same {
        *slot = new.cloned();
    }
    !same
}

/// Shows the strip over the range `zoom` (the whole log for `None`), on the time axis when
/// `time` is set and the log has times (a zoom is in the axis's units).
pub fn context_strip_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut StripState,
    (ratio, time): (f64, bool),
    zoom: Option<Zoom>,
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
    let axis = if session.time.len() == len {
        Axis::of(session, time)
    } else {
        Axis::Index { len }
    };
    let zoom = zoom.map_or(axis.whole(), |z| z.clamped(axis.extent()));
    state.refresh(session, meter, (&axis, &zoom), width);
    let Some(columns) = &state.columns else {
        return;
    };
    paint(
        ui,
        rect,
        session,
        (columns, state.show_cache),
        (state.layer.as_ref(), state.shown_breaks()),
        (ratio, &axis, &zoom),
        &pal,
    );
    if let Some(layer) = state.shown_what_if() {
        layer.paint(ui, rect, (columns.y_max, &columns.windows), &pal);
    }
    let y_max = columns.y_max;
    state
        .compare
        .paint(ui, rect, (&axis, &zoom), (len, y_max), &pal);
    // A click on a cache break's mark opens its request; any other gesture is the strip's.
    let on_break = response
        .interact_pointer_pos()
        .and_then(|p| state.break_at(rect, p));
    match (&state.changes, on_break) {
        (Some(changes), Some(k)) if response.clicked() => {
            crate::strip::breaks_layer::open_request(changes, k, commands);
        }
        _ => crate::strip::input::strip_input(
            ui,
            &response,
            rect,
            (&zoom, &axis),
            &mut state.gestures,
            session.cursor(),
            &pal,
            commands,
        ),
    }
    response.context_menu(|ui| threshold_menu_ui(ui, ratio, commands));
    if let Some(pos) = response.hover_pos()
        && !response.context_menu_opened()
    {
        let job = hover_job(
            ui,
            session,
            state,
            (rect, pos),
            (&axis, &zoom),
            (ratio, len),
            &pal,
        );
        response.on_hover_text_at_pointer(job);
    }
}

impl StripState {
    /// The request of the cache break's mark under `pos` on the strip's `rect`, if any.
    fn break_at(&self, rect: Rect, pos: Pos2) -> Option<usize> {
        self.shown_breaks()?
            .hit(pos.x - rect.left(), pos.y - rect.top())
    }

    /// Recomputes what is stale for this frame: the extremes pyramid (per length), the
    /// columns (per width, length, axis and range), the audit's and the what-if's layers.
    fn refresh(
        &mut self,
        session: &Session,
        meter: &Meter,
        (axis, zoom): (&Axis, &Zoom),
        width: usize,
    ) {
        let len = meter.len();
        if self.pyramid.as_ref().is_none_or(|p| p.len() != len + 1) {
            let value = |k: usize| k.checked_sub(1).map_or(0, |i| meter.total_after(i));
            self.pyramid = Some(MinMax::build(len + 1, value));
            self.columns = None;
        }
        if self
            .columns
            .as_ref()
            .is_none_or(|c| c.key != key_of(width, len, axis, zoom))
            && let Some(pyramid) = &self.pyramid
        {
            self.columns = Some(Columns::compute(
                session,
                meter,
                pyramid,
                (axis, zoom),
                width,
            ));
        }
        if let Some(audit) = &self.audit
            && self
                .layer
                .as_ref()
                .is_none_or(|l| !l.is_for(audit, axis, zoom, width))
        {
            self.layer = Some(AuditLayer::compute(audit, axis, zoom, width));
        }
        if let Some(changes) = &self.changes
            && self
                .breaks_layer
                .as_ref()
                .is_none_or(|l| !l.is_for(changes, axis, zoom, width))
        {
            self.breaks_layer = Some(BreaksLayer::compute(changes, axis, zoom, width));
        }
        match &self.what_if {
            Some(report)
                if self
                    .what_if_layer
                    .as_ref()
                    .is_none_or(|l| !l.is_for(report, (axis, zoom), width, len)) =>
            {
                self.what_if_layer = Some(crate::strip::what_if_layer::WhatIfLayer::compute(
                    report,
                    meter,
                    (axis, zoom),
                    width,
                ));
            }
            Some(_) => {}
            None => self.what_if_layer = None,
        }
    }
}

/// The strip's context menu: the compaction threshold as a share of the window.
fn threshold_menu_ui(ui: &mut Ui, ratio: f64, commands: &mut Vec<UiCommand>) {
    ui.label("Compaction threshold (share of the window)");
    for r in RATIOS {
        if ui
            .selectable_label((ratio - r).abs() < 1e-9, format!("{:.0} %", r * 100.0))
            .clicked()
        {
            commands.push(StripCommand::SetThresholdRatio(r).into());
            ui.close();
        }
    }
}

/// The strip's tooltip at `pos`: the figures at that cursor (the what-if's too when it is
/// drawn), the time, the range shown (of `len` events) and the marks near the pointer. The
/// legend is under the strip and the gestures in the F1 help: neither is repeated here.
fn hover_job(
    ui: &Ui,
    session: &Session,
    state: &StripState,
    (rect, pos): (Rect, Pos2),
    (axis, zoom): (&Axis, &Zoom),
    (ratio, len): (f64, usize),
    pal: &Palette,
) -> LayoutJob {
    let at = |x: f32| axis.cursor_at_fraction(zoom, f64::from((x - rect.left()) / rect.width()));
    let c = at(pos.x);
    let mut text = hover_text(session, c, ratio);
    let column = (pos.x - rect.left()).floor().max(0.0);
    if let Some(layer) = state.shown_what_if()
        && let Some(total) = layer.total_at_column(column as usize)
    {
        text.push_str(&format!(
            "\nwhat-if (T {}): {total} tokens",
            surface_analysis::policy::four_digits(layer.ratio())
        ));
    }
    if let Some(layer) = state.columns.as_ref().and_then(|c| c.time.as_ref()) {
        let ms = zoom.start + f64::from((pos.x - rect.left()) / rect.width()) * zoom.span();
        text.push_str(&format!(
            "\ntime {}",
            crate::strip::ticks::elapsed_and_clock(ms, session.time.origin())
        ));
        if let Some(more) = layer.hover(column) {
            text.push('\n');
            text.push_str(&more);
        }
    }
    if !zoom.is_whole(axis.extent()) {
        text.push_str(&format!(
            "\nshowing cursors {}..{} of {len}",
            axis.cursor_at(zoom.start),
            axis.cursor_at(zoom.end)
        ));
    }
    if let Some(audit) = &state.audit {
        // The marks within a few pixels of the pointer: cursors k are events k - 1.
        let reach = theme::SCRUBBER_MARKER_SPACING / 2.0;
        let from = at(pos.x - reach);
        let to = at(pos.x + reach);
        if let Some(lines) = hover_lines(audit, from.saturating_sub(1), to.saturating_sub(1)) {
            text.push('\n');
            text.push_str(&lines);
        }
    }
    if let (Some(changes), Some(k)) = (&state.changes, state.break_at(rect, pos))
        && let Some(line) = crate::strip::breaks_layer::hover_line(changes, k)
    {
        text.push('\n');
        text.push_str(&line);
    }
    let font = TextStyle::Body.resolve(ui.style());
    let mut job = LayoutJob::default();
    job.append(&text, 0.0, TextFormat::simple(font.clone(), pal.text));
    job.append(
        "\nclick: move the cursor · F1: every gesture",
        0.0,
        TextFormat::simple(font, pal.weak_text),
    );
    job
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
    (columns, cache_split): (&Columns, bool),
    (layer, breaks): (
        Option<&AuditLayer>,
        Option<&crate::strip::breaks_layer::BreaksLayer>,
    ),
    (ratio, axis, zoom): (f64, &Axis<'_>, &Zoom),
    pal: &Palette,
) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, theme::CORNER_RADIUS, pal.strip_bg);
    if let Some(time) = &columns.time {
        let mut behind = Mesh::default();
        time.paint_behind(&mut behind, rect, pal);
        painter.add(Shape::mesh(behind));
    }
    let plot = rect.shrink2(Vec2::new(0.0, theme::STRIP_PADDING));
    let y_of = |tokens: u64| {
        plot.bottom() - (tokens as f32 / columns.y_max as f32).min(1.0) * plot.height()
    };
    // The area under the curve, then the curve itself: one mesh each.
    let mut fill = Mesh::default();
    let mut curve = Mesh::default();
    let dense = is_dense(
        visible_events(axis, zoom, session.len()).len(),
        rect.width(),
    );
    for (c, (&lo, &hi)) in columns.low.iter().zip(&columns.high).enumerate() {
        let x = rect.left() + c as f32;
        let top = y_of(u64::from(hi));
        // Idle time: the total holds (the line goes on) but nothing happened (no fill).
        if !columns.idle.get(c).copied().unwrap_or(false) {
            fill.add_colored_rect(
                Rect::from_x_y_ranges(x..=x + 1.0, top..=plot.bottom()),
                pal.strip_fill,
            );
        }
        let bottom = y_of(u64::from(lo)).max(top + theme::STROKE_THIN);
        add_column_curve(&mut curve, (x, top, bottom), dense, pal.strip_curve);
    }
    painter.add(Shape::mesh(fill));
    if cache_split {
        painter.add(Shape::mesh(crate::strip::cache_split::bars(
            (&columns.reported, &columns.cache_read),
            rect,
            &y_of,
            pal,
        )));
    }
    painter.add(Shape::mesh(curve));
    // Lines, dashes, dots and marks: one more mesh, a few vertices per column at most.
    let mut marks = Mesh::default();
    add_windows(&mut marks, columns, rect, &y_of, ratio, pal);
    add_dots_and_ops(&mut marks, columns, layer, rect, &y_of, pal);
    if let Some(time) = &columns.time {
        time.paint_over(&mut marks, &painter, rect, pal);
    }
    painter.add(Shape::mesh(marks));
    if let Some(breaks) = breaks {
        // Under the labels: on a crowded strip a mark stands in every column.
        let mut marks = Mesh::default();
        breaks.paint(&mut marks, rect, pal);
        painter.add(Shape::mesh(marks));
    }
    if let Some(window) = columns.off_scale {
        off_scale_label(&painter, rect, window, ratio, pal);
    }
    axis_labels(&painter, rect, session, (axis, zoom), columns.y_max, pal);
    let f = axis.fraction(zoom, session.cursor());
    if (0.0..=1.0).contains(&f) {
        let cx = rect.left() + f as f32 * rect.width();
        painter.vline(
            cx,
            rect.y_range(),
            Stroke::new(theme::STROKE_MEDIUM, pal.text),
        );
    } else if let Some((align, text)) = off_zoom_hint(f) {
        // Home, End or go to seq took the cursor out of the zoomed range: say which way.
        let at = align.pos_in_rect(&rect.shrink(theme::SPACE_SMALL));
        let font = egui::FontId::proportional(theme::STRIP_LABEL_SIZE);
        painter.text(at, align, text, font, pal.text);
    }
}

/// Events per pixel column past which a column's low and high are a compaction's floor and
/// peak rather than one step of the curve.
const DENSE_EVENTS_PER_COLUMN: f32 = 4.0;

/// Whether `events` over a strip `width` pixels wide put many events in each column.
fn is_dense(events: usize, width: f32) -> bool {
    events as f32 > DENSE_EVENTS_PER_COLUMN * width.max(1.0)
}

/// One column of the curve from `top` (its highest total) to `bottom` (its lowest) at `x`: a
/// solid bar where the column is one step of the curve; where it holds many events (a whole
/// log of compactions), the peak and the floor as lines over a faint band between them, so
/// that the trend of both reads instead of a solid block.
fn add_column_curve(
    curve: &mut Mesh,
    (x, top, bottom): (f32, f32, f32),
    dense: bool,
    color: Color32,
) {
    let column = |top: f32, bottom: f32| Rect::from_x_y_ranges(x..=x + 1.0, top..=bottom);
    if !dense || bottom - top <= 2.0 * theme::STROKE_MEDIUM {
        curve.add_colored_rect(column(top, bottom), color);
        return;
    }
    curve.add_colored_rect(
        column(top, bottom),
        color.gamma_multiply(DENSE_BAND_OPACITY),
    );
    curve.add_colored_rect(column(top, top + theme::STROKE_MEDIUM), color);
    curve.add_colored_rect(column(bottom - theme::STROKE_MEDIUM, bottom), color);
}

/// Opacity of the band between a dense column's floor and peak.
const DENSE_BAND_OPACITY: f32 = 0.3;

/// Where the cursor is when it is off the zoomed strip (`f`, its fraction of the zoom, is
/// below 0 or above 1): the edge to say it at, and what to say.
fn off_zoom_hint(f: f64) -> Option<(egui::Align2, &'static str)> {
    if f < 0.0 {
        Some((egui::Align2::LEFT_TOP, "◀ cursor (before the zoomed range)"))
    } else if f > 1.0 {
        Some((egui::Align2::RIGHT_TOP, "cursor (after the zoomed range) ▶"))
    } else {
        None
    }
}

/// The window (a line) and the threshold (a dashed line) of every stretch of columns under
/// one window.
fn add_windows(
    marks: &mut Mesh,
    columns: &Columns,
    rect: Rect,
    y_of: &impl Fn(u64) -> f32,
    ratio: f64,
    pal: &Palette,
) {
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
}

/// The provider's reported usage as dots, and the replace ops as marks along the top (the
/// audit's layer when it is computed).
fn add_dots_and_ops(
    marks: &mut Mesh,
    columns: &Columns,
    layer: Option<&AuditLayer>,
    rect: Rect,
    y_of: &impl Fn(u64) -> f32,
    pal: &Palette,
) {
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
        layer.paint(marks, rect, pal);
    } else {
        let crowded = columns.ops.len() as f32 > rect.width() / theme::SCRUBBER_MARKER_SPACING;
        let op = pal.marker_stroke(true, crowded);
        for &(x, _) in &columns.ops {
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
}

/// Names a window (and its threshold) above the strip's scale in its top-right corner.
fn off_scale_label(painter: &egui::Painter, rect: Rect, window: u64, ratio: f64, pal: &Palette) {
    let galley = painter.layout_no_wrap(
        format!(
            "window {window} · threshold {} — above the scale",
            surface_engine::meter::threshold(window, ratio)
        ),
        egui::FontId::proportional(theme::STRIP_LABEL_SIZE),
        pal.weak_text,
    );
    let at = rect.right_top() + Vec2::new(-theme::SPACE - galley.size().x, theme::STRIP_PADDING);
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(theme::STRIP_PADDING),
        theme::CORNER_RADIUS,
        pal.strip_bg,
    );
    painter.galley(at, galley, pal.weak_text);
}

/// The strip's axes: the seqs at its left and right edges (the range shown; on the time axis
/// with the wall clock at the left edge) and ticks between them along the bottom, and the
/// top of the token scale.
fn axis_labels(
    painter: &egui::Painter,
    rect: Rect,
    session: &Session,
    (axis, zoom): (&Axis<'_>, &Zoom),
    y_max: u64,
    pal: &Palette,
) {
    let font = egui::FontId::proportional(theme::STRIP_LABEL_SIZE);
    let seq_at = |pos: f64| {
        let k = axis.cursor_at(pos);
        k.checked_sub(1)
            .filter(|&i| i < session.len())
            .map_or("start".to_string(), |i| {
                format!("seq {}", session.log.event(EventIdx(i as u32)).seq)
            })
    };
    let pad = Vec2::new(theme::SPACE_SMALL, theme::STRIP_PADDING);
    let left = match (axis.is_time(), session.time.origin()) {
        (true, Some(origin)) => format!(
            "{} · {} UTC",
            seq_at(zoom.start),
            crate::strip::ticks::clock_text(origin.saturating_add(zoom.start as i64))
        ),
        _ => seq_at(zoom.start),
    };
    let label = |at: Pos2, align: egui::Align2, text: String| {
        let galley = painter.layout_no_wrap(text, font.clone(), pal.weak_text);
        let r = align.anchor_size(at, galley.size());
        painter.rect_filled(
            r.expand(1.0),
            theme::CORNER_RADIUS,
            pal.strip_bg.gamma_multiply(0.8),
        );
        painter.galley(r.min, galley, pal.weak_text);
    };
    // Ticks first: the edge labels are drawn over them.
    for tick in crate::strip::ticks::ticks(axis, zoom, rect.width()) {
        let x = rect.left() + tick.at as f32 * rect.width();
        painter.vline(
            x,
            rect.bottom() - theme::STRIP_TICK..=rect.bottom(),
            Stroke::new(theme::STROKE_THIN, pal.text),
        );
        // Labels clear of the edge labels.
        let edge = theme::STRIP_TICK_SPACING;
        if x - rect.left() > edge && rect.right() - x > edge {
            label(
                egui::pos2(x, rect.bottom() - theme::STRIP_TICK),
                egui::Align2::CENTER_BOTTOM,
                tick.label,
            );
        }
    }
    label(
        rect.left_bottom() + Vec2::new(pad.x, -pad.y),
        egui::Align2::LEFT_BOTTOM,
        left,
    );
    label(
        rect.right_bottom() - pad,
        egui::Align2::RIGHT_BOTTOM,
        seq_at(zoom.end),
    );
    label(
        rect.left_top() + Vec2::new(pad.x, theme::STRIP_OP_MARK),
        egui::Align2::LEFT_TOP,
        format!("{y_max} tokens"),
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
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_column_draws_its_peak_and_floor_over_a_faint_band() {
        assert!(!is_dense(4_000, 1_000.0) && is_dense(4_001, 1_000.0));
        let mut solid = Mesh::default();
        add_column_curve(&mut solid, (0.0, 10.0, 50.0), false, Color32::WHITE);
        assert_eq!(solid.vertices.len(), 4, "one bar");
        let mut dense = Mesh::default();
        add_column_curve(&mut dense, (0.0, 10.0, 50.0), true, Color32::WHITE);
        assert_eq!(dense.vertices.len(), 12, "a band and two lines");
        let band = &dense.vertices[0];
        assert!(band.color.a() < 255, "the band is faint");
        assert_eq!(
            dense.vertices[4].color,
            Color32::WHITE,
            "the peak is the curve's colour"
        );
        let mut thin = Mesh::default();
        add_column_curve(&mut thin, (0.0, 10.0, 12.0), true, Color32::WHITE);
        assert_eq!(
            thin.vertices.len(),
            4,
            "a dense column with no spread stays a bar"
        );
    }

    #[test]
    fn a_cursor_off_the_zoom_is_said_at_the_edge_it_went_past() {
        assert_eq!(off_zoom_hint(0.5), None);
        assert_eq!(off_zoom_hint(1.0), None);
        assert_eq!(
            off_zoom_hint(-0.2).map(|h| h.0),
            Some(egui::Align2::LEFT_TOP)
        );
        assert_eq!(
            off_zoom_hint(3.0).map(|h| h.0),
            Some(egui::Align2::RIGHT_TOP)
        );
    }

    #[test]
    fn the_visible_events_hold_every_event_inside_the_range_shown() {
        let len = 1000;
        let axis = Axis::Index { len };
        for (start, end) in [(100.0, 200.0), (0.0, 7.5), (993.0, 1000.0), (0.0, 1000.0)] {
            let zoom = Zoom { start, end };
            let events = visible_events(&axis, &zoom, len);
            for e in 0..len {
                if column_in(e, &axis, &zoom, 300.0).is_some() {
                    assert!(
                        events.contains(&e),
                        "{e} outside {events:?} for {start}..{end}"
                    );
                }
            }
            assert!(events.len() <= (end - start) as usize + 6, "{events:?}");
        }
    }

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
    fn zoomed_extents_match_the_plain_scan() {
        let totals: Vec<u32> = (0..5000u32).map(|i| (i * 37) % 1001 + i / 7).collect();
        let value = |k: usize| k.checked_sub(1).map_or(0, |i| totals[i]);
        let pyramid = MinMax::build(totals.len() + 1, value);
        for width in [1, 7, 300, 6000] {
            let whole = Zoom::whole(totals.len());
            let axis = Axis::Index { len: totals.len() };
            let e = zoomed_extents(
                totals.len(),
                |i| totals[i],
                &pyramid,
                (&axis, &whole),
                width,
            );
            assert_eq!(
                (e.low, e.high),
                column_extents(totals.len(), |i| totals[i], width),
                "width {width}"
            );
            assert!(e.idle.iter().all(|&i| !i));
        }
        // Zoomed to cursors 1000..1100 over 100 columns: one cursor per column, joined.
        let z = Zoom {
            start: 1000.0,
            end: 1100.0,
        };
        let axis = Axis::Index { len: totals.len() };
        let Extents { low, high, .. } =
            zoomed_extents(totals.len(), |i| totals[i], &pyramid, (&axis, &z), 100);
        for c in 1..99 {
            let (a, b) = (value(1000 + c - 1), value(1000 + c));
            assert_eq!((low[c], high[c]), (a.min(b), a.max(b)), "column {c}");
        }
    }

    #[test]
    fn idle_columns_hold_the_total_of_the_event_before_them() {
        // Four events in the first 30 ms, then nothing until 1 s.
        let mut time = surface_engine::time_column::TimeColumn::default();
        let times = [0, 10, 20, 30, 1_000];
        time.extend_with(
            times
                .iter()
                .map(|&t| (Some(t), surface_engine::EventType::Other)),
        );
        let totals = [5, 9, 40, 7, 12];
        let value = |k: usize| k.checked_sub(1).map_or(0, |i| totals[i]);
        let pyramid = MinMax::build(totals.len() + 1, value);
        let axis = Axis::Time(&time);
        let e = zoomed_extents(
            totals.len(),
            |i| totals[i],
            &pyramid,
            (&axis, &axis.whole()),
            100,
        );
        // 10 ms a column: columns 4..=98 hold no event.
        let idle: Vec<usize> = (0..100).filter(|&c| e.idle[c]).collect();
        assert_eq!(idle.first(), Some(&4));
        assert_eq!(idle.len(), 95);
        assert!(idle.iter().all(|&c| e.low[c] == 7 && e.high[c] == 7));
        // The last column joins the held 7 to the last event's 12.
        assert_eq!((e.low[99], e.high[99]), (7, 12));
    }

    #[test]
    fn the_window_sets_the_scale_only_when_the_log_comes_near_it() {
        assert_eq!(y_scale(4_000, Some(128_000)), (4_333, Some(128_000)));
        assert_eq!(y_scale(40_000, Some(128_000)), (138_666, None));
        assert_eq!(y_scale(0, None), (1, None));
    }

    #[test]
    fn hover_names_the_figures() {
        let s = crate::session::loaded::test_session();
        let text = hover_text(&s, 2, 0.8);
        assert!(text.starts_with("after seq 1 (user/message)"), "{text}");
        assert!(
            text.contains("meter: 18 tokens (estimated baseline) · surface 18"),
            "{text}"
        );
        assert!(text.contains("no context window"), "{text}");
        // Short: the gestures are in the F1 help, the legend under the strip.
        assert!(
            !text.contains("Ctrl+wheel") && !text.contains("right-click"),
            "{text}"
        );
        assert!(text.lines().count() <= 4, "{text}");
    }
}
