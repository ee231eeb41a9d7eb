//! The Policy tab's what-if over the context strip, in its own colour: the hypothetical total
//! as a second line, the what-if's own threshold as a dashed line (its dashes fill the gaps of
//! the log's threshold, so equal thresholds read as one line of both colours), and a tick at the
//! foot of the strip for each hypothetical compaction. Laid out per pixel column of the range
//! shown, on either axis, once per report, width, length and range.

use std::sync::Arc;

use egui::{Mesh, Rect, Shape, Ui, Vec2};

use surface_analysis::policy::{PolicyReport, WhatIfCurve};
use surface_engine::Meter;

use crate::strip::axis::{Axis, ColumnsKey, key_of};
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// The what-if line per pixel column, for one report, width, length and range.
#[derive(Debug)]
pub struct WhatIfLayer {
    report: Arc<PolicyReport>,
    key: ColumnsKey,
    points: Vec<u64>,
    /// Columns of the hypothetical compactions inside the range shown.
    marks: Vec<f32>,
}

impl WhatIfLayer {
    /// The layer of `report` (a what-if) on a `width`-column strip showing `zoom` on `axis`.
    pub fn compute(
        report: &Arc<PolicyReport>,
        meter: &Meter,
        (axis, zoom): (&Axis<'_>, &Zoom),
        width: usize,
    ) -> Self {
        let marks = report
            .curve
            .marks
            .iter()
            .filter_map(|m| {
                let f = axis.fraction(zoom, m.cursor);
                (0.0..=1.0).contains(&f).then_some(f as f32 * width as f32)
            })
            .collect();
        WhatIfLayer {
            report: Arc::clone(report),
            key: key_of(width, meter.len(), axis, zoom),
            points: what_if_points(&report.curve, meter, (axis, zoom), width),
            marks,
        }
    }

    /// Whether this layer was computed for `report` at `width` over `len` events showing
    /// `zoom` on `axis`.
    pub fn is_for(
        &self,
        report: &Arc<PolicyReport>,
        (axis, zoom): (&Axis<'_>, &Zoom),
        width: usize,
        len: usize,
    ) -> bool {
        Arc::ptr_eq(&self.report, report) && self.key == key_of(width, len, axis, zoom)
    }

    /// The what-if's threshold ratio.
    pub fn ratio(&self) -> f64 {
        self.report.settings.threshold_ratio
    }

    /// The what-if total at pixel column `column` (for the hover).
    pub fn total_at_column(&self, column: usize) -> Option<u64> {
        self.points.get(column).copied()
    }

    /// Paints the line, the threshold of each window stretch (`(from, to, window)` columns)
    /// and the marks over the strip's `rect` scaled to `y_max` tokens.
    pub fn paint(
        &self,
        ui: &Ui,
        rect: Rect,
        (y_max, windows): (u64, &[(f32, f32, u64)]),
        pal: &Palette,
    ) {
        let plot = rect.shrink2(Vec2::new(0.0, theme::STRIP_PADDING));
        let y_of = |tokens: u64| {
            plot.bottom() - (tokens as f32 / y_max.max(1) as f32).min(1.0) * plot.height()
        };
        let mut mesh = Mesh::default();
        for (c, &tokens) in self.points.iter().enumerate() {
            let x = rect.left() + c as f32;
            let y = y_of(tokens);
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(x..=x + 1.0, y..=y + theme::STROKE_MEDIUM),
                pal.what_if,
            );
        }
        for &(from, to, window) in windows {
            let threshold = surface_engine::meter::threshold(window, self.ratio());
            if threshold > y_max {
                continue;
            }
            let y = y_of(threshold);
            let (x0, x1) = (rect.left() + from, rect.left() + to);
            // Offset by one dash: in the gaps of the log's threshold.
            let mut x = x0 + theme::STRIP_DASH;
            while x < x1 {
                let end = (x + theme::STRIP_DASH).min(x1);
                mesh.add_colored_rect(
                    Rect::from_x_y_ranges(x..=end, y..=y + theme::STROKE_THIN),
                    pal.what_if,
                );
                x += theme::STRIP_DASH * 2.0;
            }
        }
        let half = theme::STRIP_OP_MARK_WIDTH / 2.0;
        for &column in &self.marks {
            let x = rect.left() + column;
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(
                    x - half..=x + half,
                    rect.bottom() - theme::STRIP_OP_MARK..=rect.bottom(),
                ),
                pal.what_if,
            );
        }
        ui.painter_at(rect).add(Shape::mesh(mesh));
    }
}

/// The what-if total at the last cursor of each of `width` columns of the range `zoom` shown
/// on `axis` (a column without an event holds the total of the cursor before it).
pub fn what_if_points(
    curve: &WhatIfCurve,
    meter: &Meter,
    (axis, zoom): (&Axis<'_>, &Zoom),
    width: usize,
) -> Vec<u64> {
    let len = meter.len();
    (0..width)
        .map(|c| curve.total_at(meter, axis.column_cursor(zoom, c, width, len)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};

    #[test]
    fn the_line_follows_the_curve_and_ends_at_the_last_event() {
        let session = crate::session::loaded::test_session();
        let meter = session.meter().expect("a meter");
        let surface = surface_engine::Surface::at_end(&session.log);
        let input = PolicyInput::build(&session.log, &surface, meter);
        let settings = PolicySettings::default().validate(None).unwrap();
        let report = replay(&session.log, meter, &input, &settings, ReplayMode::WhatIf);
        let axis = Axis::Index { len: meter.len() };
        let whole = axis.whole();
        let points = what_if_points(&report.curve, meter, (&axis, &whole), 7);
        assert_eq!(points.len(), 7);
        assert_eq!(
            points[6],
            report.curve.total_at(meter, meter.len()),
            "the last column is the end of the log"
        );
        assert!(what_if_points(&report.curve, meter, (&axis, &whole), 0).is_empty());
        // Zoomed to the first half: the last column is the middle of the log.
        let half = Zoom {
            start: 0.0,
            end: (meter.len() / 2) as f64,
        };
        let zoomed = what_if_points(&report.curve, meter, (&axis, &half), 7);
        assert_eq!(
            zoomed[6],
            report.curve.total_at(meter, meter.len() / 2),
            "{zoomed:?}"
        );
    }
}
