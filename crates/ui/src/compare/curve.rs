//! B's context curve over A's strip (docs/compare.md), in B's colour: per pixel column of the
//! range shown, the meter total of B's event at the same turn, step and offset as the column's
//! last event of A (none where B has no such step), B's compactions as ticks above the foot
//! of the strip, a legend line with the toggle. Laid out once per comparison, width, length and
//! range; zoom and pan are the strip's.

use std::sync::Arc;

use egui::text::LayoutJob;
use egui::{FontId, Mesh, Rect, Shape, TextFormat, Ui, Vec2};

use crate::command::UiCommand;
use crate::compare::command::CompareCommand;
use crate::compare::job::Compared;
use crate::strip::axis::{Axis, ColumnsKey, key_of};
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// B's line and marks per pixel column.
#[derive(Debug)]
struct Layer {
    run: Arc<Compared>,
    key: ColumnsKey,
    points: Vec<Option<u64>>,
    marks: Vec<f32>,
}

/// The comparison the strip draws, whether it is hidden, and its per-column cache.
#[derive(Debug, Default)]
pub struct CompareCurve {
    run: Option<Arc<Compared>>,
    hidden: bool,
    layer: Option<Layer>,
}

impl CompareCurve {
    /// The comparison to draw (`None`: none) and whether the user hid it.
    pub fn set(&mut self, run: Option<Arc<Compared>>, hidden: bool) {
        self.run = run;
        self.hidden = hidden;
        if self.run.is_none() {
            self.layer = None;
        }
    }

    /// `Some(shown)` while a comparison exists.
    pub fn toggle(&self) -> Option<(bool, &str)> {
        self.run
            .as_ref()
            .map(|r| (!self.hidden, r.b_label.as_str()))
    }

    /// True when B's curve was drawn on the last frame.
    pub fn drawn(&self) -> bool {
        !self.hidden && self.run.is_some() && self.layer.is_some()
    }

    /// Paints B's line and compactions over the strip's `rect` (A's `len` events shown as
    /// `zoom` on `axis`), scaled to `y_max` tokens.
    pub fn paint(
        &mut self,
        ui: &Ui,
        rect: Rect,
        (axis, zoom): (&Axis<'_>, &Zoom),
        (len, y_max): (usize, u64),
        pal: &Palette,
    ) {
        let Some(run) = self.run.as_ref().filter(|_| !self.hidden) else {
            return;
        };
        let width = rect.width().max(1.0) as usize;
        let key = key_of(width, len, axis, zoom);
        if self
            .layer
            .as_ref()
            .is_none_or(|l| l.key != key || !Arc::ptr_eq(&l.run, run))
        {
            self.layer = Some(Layer::compute(run, (axis, zoom), width, key));
        }
        let Some(layer) = &self.layer else {
            return;
        };
        let plot = rect.shrink2(Vec2::new(0.0, theme::STRIP_PADDING));
        let y_of = |tokens: u64| {
            plot.bottom() - (tokens as f32 / y_max.max(1) as f32).min(1.0) * plot.height()
        };
        let mut mesh = Mesh::default();
        for (c, tokens) in layer.points.iter().enumerate() {
            let Some(tokens) = *tokens else { continue };
            let x = rect.left() + c as f32;
            let y = y_of(tokens);
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(x..=x + 1.0, y..=y + theme::STROKE_MEDIUM),
                pal.run_b,
            );
        }
        let half = theme::STRIP_OP_MARK_WIDTH / 2.0;
        let foot = rect.bottom() - theme::STRIP_OP_MARK;
        for &column in &layer.marks {
            let x = rect.left() + column;
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(x - half..=x + half, foot - theme::STRIP_OP_MARK..=foot),
                pal.run_b,
            );
        }
        ui.painter_at(rect).add(Shape::mesh(mesh));
    }
}

impl Layer {
    fn compute(
        run: &Arc<Compared>,
        (axis, zoom): (&Axis<'_>, &Zoom),
        width: usize,
        key: ColumnsKey,
    ) -> Layer {
        let len = run.a_to_b.len();
        let points = (0..width)
            .map(|c| {
                let cursor = axis.column_cursor(zoom, c, width, len);
                match cursor.checked_sub(1) {
                    None => Some(0),
                    Some(i) => run
                        .a_to_b
                        .get(i)
                        .copied()
                        .flatten()
                        .map(|j| u64::from(run.b_meter.total_after(j as usize))),
                }
            })
            .collect();
        let marks = run
            .b_marks
            .iter()
            .filter_map(|&i| {
                let f = axis.fraction(zoom, i + 1);
                (0.0..=1.0).contains(&f).then_some(f as f32 * width as f32)
            })
            .collect();
        Layer {
            run: Arc::clone(run),
            key,
            points,
            marks,
        }
    }
}

/// The legend line of B under the strip: the toggle, B's name, its curve and compactions.
pub fn curve_legend_ui(ui: &mut Ui, curve: &CompareCurve, commands: &mut Vec<UiCommand>) {
    let Some((shown, name)) = curve.toggle() else {
        return;
    };
    let pal = theme::palette(ui);
    let size = theme::STRIP_LEGEND_SIZE;
    ui.horizontal_wrapped(|ui| {
        let mut on = shown;
        let toggle = ui
            .checkbox(
                &mut on,
                egui::RichText::new("run B's curve")
                    .size(size)
                    .color(pal.run_b),
            )
            .on_hover_text(
                "Draw the compared run's context curve over the strip, aligned by turn and step",
            );
        if toggle.changed() {
            commands.push(CompareCommand::ShowCurve(on).into());
        }
        if shown {
            let font = FontId::proportional(size);
            let mut job = LayoutJob::default();
            let text = TextFormat::simple(font.clone(), pal.weak_text);
            job.append("—", 0.0, TextFormat::simple(font.clone(), pal.run_b));
            job.append(
                &format!("B context tokens ({name}, aligned by turn and step)"),
                3.0,
                text.clone(),
            );
            job.append(" · ", 0.0, text.clone());
            job.append("▮", 0.0, TextFormat::simple(font, pal.run_b));
            job.append("B compaction", 3.0, text);
            ui.add(egui::Label::new(job).wrap());
        }
    });
}
