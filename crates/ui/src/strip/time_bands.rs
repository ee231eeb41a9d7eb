//! What the context strip adds on the time axis: idle stretches (pixel columns in which no
//! event happened) as empty, labelled bands, compactions (`compaction/start` → `end`) as
//! shaded bands and model calls (request → response) as bars along the bottom. Computed once
//! per range and width with binary searches over the spans (O(pixels + spans shown)).

use egui::{Align2, FontId, Mesh, Painter, Rect, Vec2};

use surface_engine::time_column::{Span, TimeColumn};

use crate::strip::axis::Axis;
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// The time axis's marks for one range and width, in pixel columns.
#[derive(Debug, Default, PartialEq)]
pub struct TimeLayer {
    /// Model calls, merged where they touch: `(from, to)` columns.
    pub calls: Vec<(f32, f32)>,
    /// Compactions, merged where they touch.
    pub compactions: Vec<(f32, f32)>,
    /// Runs of columns with no event: `(from, to, milliseconds)`.
    pub idle: Vec<(f32, f32, u64)>,
}

/// Pixel runs of the spans inside the range shown, merged where they touch; a span shorter
/// than a column still gets one.
pub fn span_runs(spans: &[Span], axis: &Axis<'_>, zoom: &Zoom, width: f32) -> Vec<(f32, f32)> {
    // An event sits where the cursor just after it does.
    let x = |event: usize| axis.fraction(zoom, event + 1) * f64::from(width);
    // Spans of one kind do not overlap, so their ends are sorted too.
    let first = spans.partition_point(|s| x(s.to.get()) < 0.0);
    let mut out: Vec<(f32, f32)> = Vec::new();
    for s in &spans[first..] {
        let from = x(s.from.get());
        if from > f64::from(width) {
            break;
        }
        let a = (from.floor() as f32).clamp(0.0, width - 1.0);
        let b = (x(s.to.get()).ceil() as f32).clamp(a + 1.0, width);
        match out.last_mut() {
            Some((_, end)) if a <= *end => *end = end.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Runs of empty columns (`idle[c]`), with the time each run spans.
pub fn idle_runs(idle: &[bool], zoom: &Zoom) -> Vec<(f32, f32, u64)> {
    let ms_per_column = zoom.span() / idle.len().max(1) as f64;
    let mut out = Vec::new();
    let mut start = None;
    for (c, &empty) in idle.iter().chain(std::iter::once(&false)).enumerate() {
        match (empty, start) {
            (true, None) => start = Some(c),
            (false, Some(s)) => {
                out.push((s as f32, c as f32, ((c - s) as f64 * ms_per_column) as u64));
                start = None;
            }
            _ => {}
        }
    }
    out
}

impl TimeLayer {
    /// The marks of `time` on a `width`-column strip showing `zoom` on `axis`, with the
    /// columns that hold no event (`idle`).
    pub fn compute(
        time: &TimeColumn,
        axis: &Axis<'_>,
        zoom: &Zoom,
        width: usize,
        idle: &[bool],
    ) -> TimeLayer {
        let w = width as f32;
        TimeLayer {
            calls: span_runs(time.model_calls(), axis, zoom, w),
            compactions: span_runs(time.compactions(), axis, zoom, w),
            idle: idle_runs(idle, zoom),
        }
    }

    /// Bands behind the curve: idle stretches and compactions.
    pub fn paint_behind(&self, mesh: &mut Mesh, rect: Rect, pal: &Palette) {
        for &(a, b, _) in &self.idle {
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(rect.left() + a..=rect.left() + b, rect.y_range()),
                pal.strip_idle(),
            );
        }
        for &(a, b) in &self.compactions {
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(rect.left() + a..=rect.left() + b, rect.y_range()),
                pal.strip_compaction_span(),
            );
        }
    }

    /// Model-call bars along the bottom edge, and the length of each idle stretch wide
    /// enough to be named.
    pub fn paint_over(&self, mesh: &mut Mesh, painter: &Painter, rect: Rect, pal: &Palette) {
        let bottom = rect.bottom() - theme::STRIP_CALL_BAR;
        for &(a, b) in &self.calls {
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(rect.left() + a..=rect.left() + b, bottom..=rect.bottom()),
                pal.strip_call_span(),
            );
        }
        for &(a, b, ms) in &self.idle {
            if b - a < theme::STRIP_IDLE_LABEL_MIN {
                continue;
            }
            painter.text(
                rect.left_center() + Vec2::new((a + b) / 2.0, 0.0),
                Align2::CENTER_CENTER,
                format!("idle {}", crate::strip::ticks::duration_text(ms)),
                FontId::proportional(theme::STRIP_LABEL_SIZE),
                pal.weak_text,
            );
        }
    }

    /// What column `x` is in: an idle stretch, a compaction, a model call (for the hover).
    pub fn hover(&self, x: f32) -> Option<String> {
        let within = |a: f32, b: f32| a <= x && x < b.max(a + 1.0);
        let mut lines = Vec::new();
        if let Some(&(_, _, ms)) = self.idle.iter().find(|r| within(r.0, r.1)) {
            lines.push(format!(
                "idle: no event for about {}",
                crate::strip::ticks::duration_text(ms)
            ));
        }
        if self.compactions.iter().any(|r| within(r.0, r.1)) {
            lines.push("during a compaction (compaction/start → end)".to_string());
        }
        if self.calls.iter().any(|r| within(r.0, r.1)) {
            lines.push("during a model call (request → response)".to_string());
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::EventIdx;

    #[test]
    fn spans_become_merged_pixel_runs() {
        let mut t = TimeColumn::default();
        let events = [
            (0, "request/context"),
            (1_000, "assistant/message"),
            (1_001, "request/context"),
            (1_050, "assistant/message"),
            (9_000, "request/context"),
            (9_500, "assistant/message"),
        ];
        t.extend_with(
            events
                .iter()
                .map(|&(ms, k)| (Some(ms), surface_engine::EventType::of(k))),
        );
        let axis = Axis::Time(&t);
        let z = axis.whole();
        // 95 ms a column: the first two calls touch and merge.
        let runs = span_runs(t.model_calls(), &axis, &z, 100.0);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(runs[0].0, 0.0);
        assert!(runs[1].0 >= 94.0 && runs[1].1 <= 100.0, "{runs:?}");
        // Zoomed to the last call only.
        let late = Zoom {
            start: 8_000.0,
            end: 9_500.0,
        };
        let runs = span_runs(t.model_calls(), &axis, &late, 150.0);
        assert_eq!(runs.len(), 1);
        assert_eq!(
            t.model_calls()[2],
            Span {
                from: EventIdx(4),
                to: EventIdx(5)
            }
        );
    }

    #[test]
    fn idle_runs_name_their_length() {
        let idle = [false, true, true, false, true];
        let z = Zoom {
            start: 0.0,
            end: 5_000.0,
        };
        assert_eq!(
            idle_runs(&idle, &z),
            vec![(1.0, 3.0, 2_000), (4.0, 5.0, 1_000)]
        );
    }
}
