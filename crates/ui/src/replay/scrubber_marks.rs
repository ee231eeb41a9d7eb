//! What the scrubber adds to its replace-op and finding markers: the search hits, the range
//! the zoomed context strip shows (the scrubber is the whole-log overview), and per-column
//! counts for the hover. Columns are cached per width and counts, so a frame is O(pixels).

use egui::{Rect, Stroke};

use surface_engine::EventIdx;

use crate::strip::axis::Axis;
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// Pixel columns with how many marks share each, for one `(width, events, marks, axis)` key.
#[derive(Debug, Default)]
pub struct ScrubberMarks {
    key: (u32, usize, usize, usize, usize, bool),
    ops: Vec<(f32, usize)>,
    findings: Vec<(f32, usize)>,
    hits: Vec<(f32, usize)>,
}

/// Distinct columns of events `positions` (sorted) on a `width`-pixel track over the whole
/// log along `axis`, with how many share each.
pub fn columns_with_counts(
    positions: impl Iterator<Item = usize>,
    axis: &Axis<'_>,
    width: f32,
) -> Vec<(f32, usize)> {
    let mut out: Vec<(f32, usize)> = Vec::new();
    for p in positions {
        let x = (axis.whole_fraction(p + 1) * width).round();
        match out.last_mut() {
            Some((last, n)) if *last == x => *n += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

fn count_near(columns: &[(f32, usize)], x: f32, reach: f32) -> usize {
    let first = columns.partition_point(|c| c.0 < x - reach);
    columns[first..]
        .iter()
        .take_while(|c| c.0 <= x + reach)
        .map(|c| c.1)
        .sum()
}

impl ScrubberMarks {
    /// Recomputes the columns when the width, the axis or any count changed.
    pub fn refresh(
        &mut self,
        width: f32,
        axis: &Axis<'_>,
        ops: &[EventIdx],
        findings: &[EventIdx],
        hits: &[EventIdx],
    ) {
        let len = axis.len();
        let key = (
            width as u32,
            len,
            ops.len(),
            findings.len(),
            hits.len(),
            axis.is_time(),
        );
        if key == self.key && !axis.is_empty() {
            return;
        }
        self.key = key;
        let cols = |v: &[EventIdx]| columns_with_counts(v.iter().map(|e| e.get()), axis, width);
        self.ops = cols(ops);
        self.findings = cols(findings);
        let mut sorted: Vec<EventIdx> = hits.to_vec();
        sorted.sort_unstable();
        self.hits = cols(&sorted);
    }

    /// Draws the search hits along the bottom edge and the zoomed range (in the units of
    /// an axis `extent` long) as a band.
    pub fn paint(
        &self,
        painter: &egui::Painter,
        rect: Rect,
        zoom: Option<Zoom>,
        extent: usize,
        pal: &Palette,
    ) {
        let len = extent;
        for &(x, _) in &self.hits {
            let x = rect.left() + x;
            painter.vline(
                x,
                rect.bottom() - theme::SCRUBBER_HIT_MARK..=rect.bottom(),
                Stroke::new(theme::STROKE_MEDIUM, pal.search_hit),
            );
        }
        if let Some(z) = zoom.filter(|z| !z.is_whole(len)) {
            let f = |c: f64| (c / len.max(1) as f64) as f32 * rect.width();
            let band = Rect::from_x_y_ranges(
                rect.left() + f(z.start)
                    ..=(rect.left() + f(z.end)).max(rect.left() + f(z.start) + 2.0),
                rect.y_range(),
            );
            painter.rect(
                band,
                0.0,
                pal.range_bg.gamma_multiply(theme::RANGE_BAND_ALPHA),
                Stroke::new(theme::STROKE_THIN, pal.text),
                egui::StrokeKind::Inside,
            );
        }
    }

    /// How many marks of each kind are within `reach` points of `x` (track coordinates),
    /// as a hover line; `None` when there are none.
    pub fn hover_counts(&self, x: f32, reach: f32) -> Option<String> {
        let parts: Vec<String> = [
            (count_near(&self.ops, x, reach), "replace op"),
            (count_near(&self.findings, x, reach), "finding"),
            (count_near(&self.hits, x, reach), "search hit"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
        .collect();
        (!parts.is_empty()).then(|| format!("here: {}", parts.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_sharing_a_column_are_counted() {
        let cols = columns_with_counts(
            [0usize, 1, 2, 50, 99].into_iter(),
            &Axis::Index { len: 100 },
            10.0,
        );
        assert_eq!(cols, vec![(0.0, 3), (5.0, 1), (10.0, 1)]);
        assert_eq!(count_near(&cols, 0.5, 1.0), 3);
        assert_eq!(count_near(&cols, 7.0, 1.0), 0);
    }

    #[test]
    fn the_hover_names_what_is_under_the_pointer() {
        let mut m = ScrubberMarks::default();
        let e = |v: &[u32]| v.iter().map(|&i| EventIdx(i)).collect::<Vec<_>>();
        m.refresh(
            100.0,
            &Axis::Index { len: 100 },
            &e(&[10, 10]),
            &e(&[]),
            &e(&[11, 90]),
        );
        let text = m.hover_counts(11.0, 1.0).unwrap();
        assert_eq!(text, "here: 2 replace ops, 1 search hit");
        assert_eq!(m.hover_counts(50.0, 1.0), None);
    }
}
