//! The Policy tab's what-if over the context strip: the hypothetical total as a second line,
//! and a tick at the foot of the strip for each hypothetical compaction.

use std::sync::Arc;

use egui::{Mesh, Rect, Shape, Ui, Vec2};

use surface_engine::Meter;
use surface_engine::policy::{PolicyReport, WhatIfCurve};

use crate::strip::track::fraction_from_cursor;
use crate::theme::{self, Palette};

/// The what-if line per pixel column, for one report, width and length.
#[derive(Debug)]
pub struct WhatIfLayer {
    report: Arc<PolicyReport>,
    key: (usize, usize),
    points: Vec<u64>,
}

impl WhatIfLayer {
    /// The layer of `report` (a what-if) on a `width`-column strip over the meter's events.
    pub fn compute(report: &Arc<PolicyReport>, meter: &Meter, width: usize) -> Self {
        WhatIfLayer {
            report: Arc::clone(report),
            key: (width, meter.len()),
            points: what_if_points(&report.curve, meter, width),
        }
    }

    /// Whether this layer was computed for `report` at `width` over `len` events.
    pub fn is_for(&self, report: &Arc<PolicyReport>, width: usize, len: usize) -> bool {
        Arc::ptr_eq(&self.report, report) && self.key == (width, len)
    }

    /// Paints the line and the marks over the strip's `rect` scaled to `y_max` tokens.
    pub fn paint(&self, ui: &Ui, rect: Rect, y_max: u64, pal: &Palette) {
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
                pal.warning,
            );
        }
        let len = self.key.1;
        for mark in &self.report.curve.marks {
            let x = rect.left() + fraction_from_cursor(mark.cursor, len) * rect.width();
            let half = theme::STRIP_OP_MARK_WIDTH / 2.0;
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(
                    x - half..=x + half,
                    rect.bottom() - theme::STRIP_OP_MARK..=rect.bottom(),
                ),
                pal.warning,
            );
        }
        ui.painter_at(rect).add(Shape::mesh(mesh));
    }
}

/// The what-if total at the last cursor of each of `width` columns over the meter's events.
pub fn what_if_points(curve: &WhatIfCurve, meter: &Meter, width: usize) -> Vec<u64> {
    let len = meter.len();
    (0..width)
        .map(|c| {
            let cursor = ((c + 1) * len).div_ceil(width.max(1)).min(len);
            curve.total_at(meter, cursor)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::policy::{PolicyInput, PolicySettings, ReplayMode, replay};

    #[test]
    fn the_line_follows_the_curve_and_ends_at_the_last_event() {
        let session = crate::session::loaded::test_session();
        let meter = session.meter().expect("a meter");
        let surface = surface_engine::Surface::at_end(&session.log);
        let input = PolicyInput::build(&session.log, &surface, meter);
        let settings = PolicySettings::default().validate(None).unwrap();
        let report = replay(&session.log, meter, &input, &settings, ReplayMode::WhatIf);
        let points = what_if_points(&report.curve, meter, 7);
        assert_eq!(points.len(), 7);
        assert_eq!(
            points[6],
            report.curve.total_at(meter, meter.len()),
            "the last column is the end of the log"
        );
        assert!(what_if_points(&report.curve, meter, 0).is_empty());
    }
}
