//! The compaction audit's layer on the context strip: each replace op's mark in its trigger's
//! colour, and a mark along the bottom wherever a model request was made over the threshold.
//! Columns are computed once per audit, width and range shown (O(replaces + requests)), so a
//! frame costs O(pixels); the hover finds the marks under the pointer by binary search.

use std::sync::Arc;

use egui::{Mesh, Pos2, Rect};

use surface_analysis::audit::{Audit, Trigger};

use crate::strip::axis::{Axis, LayerKey, layer_key};
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// The audit's marks for one `(width, range, audit)`.
#[derive(Debug)]
pub struct AuditLayer {
    key: LayerKey,
    /// Column of each replace op with the trigger it shows (the most urgent of the ops that
    /// share the column), in column order.
    pub ops: Vec<(f32, Option<Trigger>)>,
    /// Columns where a model request was made over the threshold.
    pub over: Vec<f32>,
}

/// How urgent a trigger is, to choose one colour when several ops share a pixel column.
fn urgency(trigger: Option<Trigger>) -> u8 {
    match trigger {
        Some(Trigger::Overflow) => 4,
        Some(Trigger::Command) => 3,
        Some(Trigger::Pressure) => 2,
        Some(Trigger::BelowThreshold) => 1,
        None => 0,
    }
}

/// The column of cursor `cursor` on a `width`-column strip showing `zoom` on `axis`, when
/// inside it.
fn column(cursor: usize, axis: &Axis<'_>, zoom: &Zoom, width: f32) -> Option<f32> {
    let f = axis.fraction(zoom, cursor);
    (0.0..=1.0).contains(&f).then(|| {
        (f as f32 * width)
            .round()
            .clamp(0.0, (width - 1.0).max(0.0))
    })
}

impl AuditLayer {
    /// The marks of `audit` on a `width`-column strip showing `zoom` on `axis`.
    pub fn compute(audit: &Arc<Audit>, axis: &Axis<'_>, zoom: &Zoom, width: usize) -> AuditLayer {
        let w = width as f32;
        let mut ops: Vec<(f32, Option<Trigger>)> = Vec::new();
        for r in &audit.replaces {
            // A replace op sits where the cursor stands just after it.
            let Some(c) = column(r.event.get() + 1, axis, zoom, w) else {
                continue;
            };
            match ops.last_mut() {
                Some((last, t)) if *last == c => {
                    if urgency(r.trigger) > urgency(*t) {
                        *t = r.trigger;
                    }
                }
                _ => ops.push((c, r.trigger)),
            }
        }
        let mut over: Vec<f32> = audit
            .over_threshold_requests
            .iter()
            .filter_map(|q| column(q.cursor, axis, zoom, w))
            .collect();
        over.dedup();
        AuditLayer {
            key: layer_key(audit, axis, zoom, width),
            ops,
            over,
        }
    }

    /// True when this layer was computed for these figures.
    pub fn is_for(&self, audit: &Arc<Audit>, axis: &Axis<'_>, zoom: &Zoom, width: usize) -> bool {
        self.key == layer_key(audit, axis, zoom, width)
    }

    /// Adds the marks to `mesh`: ops as ticks from the top, over-threshold requests as small
    /// triangles on the bottom edge of `rect` (1-pixel ticks when they crowd).
    pub fn paint(&self, mesh: &mut Mesh, rect: Rect, pal: &Palette) {
        let room = rect.width() / theme::SCRUBBER_MARKER_SPACING;
        let (width, alpha) = if self.ops.len() as f32 > room {
            (1.0, 0.75)
        } else {
            (theme::STRIP_OP_MARK_WIDTH, 1.0)
        };
        for &(x, trigger) in &self.ops {
            let x = rect.left() + x + 0.5 - width / 2.0;
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(
                    x..=x + width,
                    rect.top()..=rect.top() + theme::STRIP_OP_MARK,
                ),
                pal.trigger(trigger).gamma_multiply(alpha),
            );
        }
        let color = pal.strip_over_threshold;
        let crowded = self.over.len() as f32 > room;
        let h = theme::STRIP_OVER_MARK;
        for &x in &self.over {
            let x = rect.left() + x + 0.5;
            if crowded {
                mesh.add_colored_rect(
                    Rect::from_x_y_ranges(x - 0.5..=x + 0.5, rect.bottom() - h..=rect.bottom()),
                    color,
                );
            } else {
                let i = mesh.vertices.len() as u32;
                mesh.colored_vertex(Pos2::new(x - h * 0.6, rect.bottom()), color);
                mesh.colored_vertex(Pos2::new(x + h * 0.6, rect.bottom()), color);
                mesh.colored_vertex(Pos2::new(x, rect.bottom() - h), color);
                mesh.add_triangle(i, i + 1, i + 2);
            }
        }
    }
}

/// What the audit says about events `from..=to` (the ones under the pointer): the replace
/// ops with their kind and trigger, and the requests made over the threshold. `None` when
/// there is nothing there.
pub fn hover_lines(audit: &Audit, from: usize, to: usize) -> Option<String> {
    let mut lines = Vec::new();
    let first = audit.replaces.partition_point(|r| r.event.get() < from);
    let here: Vec<_> = audit.replaces[first..]
        .iter()
        .take_while(|r| r.event.get() <= to)
        .collect();
    for r in here.iter().take(HOVER_MAX) {
        let trigger = r.trigger.map_or("without a trigger".to_string(), |t| {
            format!("trigger {}", t.as_str())
        });
        let saved = r.tokens_saved();
        lines.push(format!(
            "replace seq {}: {}, {trigger}, {saved} tokens freed",
            r.seq,
            r.kind.as_str()
        ));
    }
    if here.len() > HOVER_MAX {
        lines.push(format!("… {} more replace ops", here.len() - HOVER_MAX));
    }
    // A request's mark sits at its cursor; the events from..=to are cursors from+1..=to+1.
    let first = audit
        .over_threshold_requests
        .partition_point(|q| q.cursor <= from);
    let over: Vec<_> = audit.over_threshold_requests[first..]
        .iter()
        .take_while(|q| q.cursor <= to + 1)
        .collect();
    for q in over.iter().take(HOVER_MAX) {
        lines.push(format!(
            "request at seq {} over the threshold: {} tokens ≥ {} (window {})",
            q.seq, q.tokens, q.threshold, q.window
        ));
    }
    if over.len() > HOVER_MAX {
        lines.push(format!(
            "… {} more requests over the threshold",
            over.len() - HOVER_MAX
        ));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// At most this many marks of one kind are named in the hover.
const HOVER_MAX: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_audit() -> Arc<Audit> {
        let session = crate::session::loaded::test_session();
        let a = surface_analysis::audit::audit(
            &session.log,
            &session.surface,
            session.meter().unwrap(),
            0.8,
        );
        Arc::new(a)
    }

    #[test]
    fn one_mark_per_column_in_the_most_urgent_colour() {
        let audit = sample_audit();
        assert_eq!(audit.replaces.len(), 2);
        let whole = Zoom::whole(1000);
        let axis = Axis::Index { len: 1000 };
        // Wide: each op its own column.
        let wide = AuditLayer::compute(&audit, &axis, &whole, 1000);
        assert_eq!(wide.ops.len(), 2);
        assert!(wide.ops.windows(2).all(|p| p[0].0 < p[1].0));
        assert!(wide.is_for(&audit, &axis, &whole, 1000));
        assert!(!wide.is_for(&audit, &axis, &whole, 999));
        // Zoomed to a range around the first op only (the cursor just after it): the second
        // is off the strip.
        let first = audit.replaces[0].event.get() as f64 + 1.0;
        let around = Zoom {
            start: first - 0.5,
            end: first + 0.5,
        };
        let zoomed = AuditLayer::compute(&audit, &axis, &around, 1000);
        assert_eq!(zoomed.ops.len(), 1);
        assert!(!zoomed.is_for(&audit, &axis, &whole, 1000));
        // One column: both ops share it and the most urgent trigger wins.
        let narrow = AuditLayer::compute(&audit, &axis, &whole, 1);
        assert_eq!(narrow.ops.len(), 1);
        let best = audit.replaces.iter().map(|r| urgency(r.trigger)).max();
        assert_eq!(Some(urgency(narrow.ops[0].1)), best);
    }

    #[test]
    fn urgency_orders_the_triggers() {
        assert!(urgency(Some(Trigger::Overflow)) > urgency(Some(Trigger::Command)));
        assert!(urgency(Some(Trigger::Command)) > urgency(Some(Trigger::Pressure)));
        assert!(urgency(Some(Trigger::Pressure)) > urgency(Some(Trigger::BelowThreshold)));
        assert!(urgency(Some(Trigger::BelowThreshold)) > urgency(None));
    }

    #[test]
    fn hover_names_the_ops_under_the_pointer() {
        let audit = sample_audit();
        let r = &audit.replaces[0];
        let e = r.event.get();
        let text = hover_lines(&audit, e, e).unwrap();
        assert!(
            text.starts_with(&format!("replace seq {}: {}", r.seq, r.kind.as_str())),
            "{text}"
        );
        assert!(text.contains("trigger"), "{text}");
        let last = audit.replaces.last().unwrap().event.get();
        assert!(hover_lines(&audit, last + 1, last + 1).is_none());
    }
}
