//! Provenance arrows from `sourceEventSeqs`: for the selected event, curves to its sources and
//! from the events citing it, in the timeline gutter and from surface nodes to the timeline.
//! Geometry is pure (tested); painting is thin.

use std::collections::{HashSet, VecDeque};

use egui::epaint::CubicBezierShape;
use egui::{Color32, Id, LayerId, Order, Pos2, Rect, Shape, Stroke, Ui};

use surface_engine::EventIdx;

use crate::session::loaded::Session;
use crate::theme;
use crate::view::{RowGeometry, ViewState};

/// Most edges computed for the whole chain.
const MAX_EDGES: usize = 400;

/// One provenance link: `from` cites `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The citing event.
    pub from: EventIdx,
    /// The source event.
    pub to: EventIdx,
    /// Hops from the selected event (1 = direct).
    pub hop: u32,
    /// True when the edge leads towards sources of the selection (upstream).
    pub upstream: bool,
}

/// Cached edges of the current selection.
#[derive(Debug, Default)]
pub struct ArrowState {
    key: Option<(EventIdx, bool)>,
    edges: Vec<Edge>,
}

impl ArrowState {
    /// Drops the cache (a new log was loaded).
    pub fn reset(&mut self) {
        *self = ArrowState::default();
    }

    /// The edges for `selected` (recomputed when the selection or depth changed).
    pub fn edges(&mut self, session: &Session, selected: EventIdx, whole_chain: bool) -> &[Edge] {
        if self.key != Some((selected, whole_chain)) {
            self.edges = compute_edges(session, selected, whole_chain);
            self.key = Some((selected, whole_chain));
        }
        &self.edges
    }
}

/// Edges one hop around `selected`, or the whole chain both ways (bounded by [`MAX_EDGES`]).
pub fn compute_edges(session: &Session, selected: EventIdx, whole_chain: bool) -> Vec<Edge> {
    let mut edges = Vec::new();
    for upstream in [true, false] {
        let mut seen = HashSet::from([selected]);
        let mut queue = VecDeque::from([(selected, 0u32)]);
        while let Some((at, hop)) = queue.pop_front() {
            if (!whole_chain && hop >= 1) || edges.len() >= MAX_EDGES {
                break;
            }
            let next = if upstream {
                session.sources_of(at)
            } else {
                session.cited_by(at)
            };
            for n in next {
                let (from, to) = if upstream { (at, n) } else { (n, at) };
                edges.push(Edge {
                    from,
                    to,
                    hop: hop + 1,
                    upstream,
                });
                if seen.insert(n) {
                    queue.push_back((n, hop + 1));
                }
            }
        }
    }
    edges
}

// --- Pure geometry ----------------------------------------------------------------------

/// Control points of a curve inside the timeline gutter, bulging left from `x` between two rows.
pub fn gutter_curve(x: f32, y_from: f32, y_to: f32, max_bulge: f32) -> [Pos2; 4] {
    let (share, min) = theme::ARROW_BULGE;
    let bulge = ((y_to - y_from).abs() * share).clamp(min, max_bulge);
    [
        Pos2::new(x, y_from),
        Pos2::new(x - bulge, y_from),
        Pos2::new(x - bulge, y_to),
        Pos2::new(x, y_to),
    ]
}

/// Control points of a curve from a surface node (its left edge) to a timeline row (its right edge).
pub fn bridge_curve(from: Pos2, to: Pos2) -> [Pos2; 4] {
    let dx = ((from.x - to.x).abs() * 0.5).max(20.0);
    [
        from,
        Pos2::new(from.x - dx, from.y),
        Pos2::new(to.x + dx, to.y),
        to,
    ]
}

/// `y` clamped into `clip`, and whether it was outside (the row is off screen).
pub fn clamp_y(y: f32, clip: Rect) -> (f32, bool) {
    let c = y.clamp(
        clip.top() + theme::ARROW_EDGE_INSET,
        clip.bottom() - theme::ARROW_EDGE_INSET,
    );
    (c, (c - y).abs() > 0.5)
}

/// Shortest distance from `p` to a polyline.
pub fn distance_to_polyline(p: Pos2, points: &[Pos2]) -> f32 {
    let mut best = f32::INFINITY;
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let ab = b - a;
        let len2 = ab.length_sq();
        let t = if len2 > 0.0 {
            ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        best = best.min(p.distance(a + ab * t));
    }
    best
}

// --- Painting -------------------------------------------------------------------------

/// Where an event's row is (`false`), or the edge of the view it lies beyond (`true`).
fn timeline_anchor(geometry: &RowGeometry, idx: EventIdx) -> Option<(f32, bool)> {
    if let Some(r) = geometry.timeline_rect(idx) {
        return Some((r.center().y, false));
    }
    let first = geometry.timeline.first()?.0;
    let last = geometry.timeline.last()?.0;
    let clip = geometry.timeline_clip;
    if idx < first {
        Some(clamp_y(clip.top() - 10.0, clip))
    } else if idx > last {
        Some(clamp_y(clip.bottom() + 10.0, clip))
    } else {
        None // Filtered out of the timeline.
    }
}

/// A curve to draw: its control points, stroke, the edge it stands for and how many edges
/// share it (several off-screen ends collapse into one curve with a count).
struct Curve {
    points: [Pos2; 4],
    stroke: Stroke,
    edge: Edge,
    count: usize,
    off_screen_end: Option<Pos2>,
}

fn push_curve(
    curves: &mut Vec<Curve>,
    points: [Pos2; 4],
    stroke: Stroke,
    edge: Edge,
    off_screen_end: Option<Pos2>,
) {
    if off_screen_end.is_some()
        && let Some(c) = curves
            .iter_mut()
            .find(|c| c.points == points && c.stroke == stroke)
    {
        c.count += 1;
        return;
    }
    curves.push(Curve {
        points,
        stroke,
        edge,
        count: 1,
        off_screen_end,
    });
}

/// Paints the arrows of the selection and names both ends of the hovered one.
pub fn arrows_ui(
    ui: &Ui,
    session: &Session,
    view: &ViewState,
    state: &mut ArrowState,
    geometry: &RowGeometry,
) {
    let Some(selected) = view.selected else {
        return;
    };
    if geometry.timeline.is_empty() || session.is_empty() {
        return;
    }
    let pal = theme::palette(ui);
    let edges = state.edges(session, selected, view.whole_chain).to_vec();
    let clip = geometry.timeline_clip.union(geometry.surface_clip);
    let painter = ui
        .ctx()
        .layer_painter(LayerId::new(Order::Middle, Id::unique("provenance-arrows")))
        .with_clip_rect(clip);
    let curves = curves_of(&edges, geometry, &pal);
    let pointer = ui.input(|i| i.pointer.hover_pos());
    let mut hovered: Option<(&Curve, Vec<Pos2>)> = None;
    for curve in &curves {
        let shape = CubicBezierShape::from_points_stroke(
            curve.points,
            false,
            Color32::TRANSPARENT,
            curve.stroke,
        );
        if let Some(p) = pointer
            && hovered.is_none()
        {
            let flat = shape.flatten(Some(1.0));
            if distance_to_polyline(p, &flat) < theme::ARROW_HOVER_DISTANCE {
                hovered = Some((curve, flat));
            }
        }
        painter.add(Shape::CubicBezier(shape));
        arrow_head(
            &painter,
            curve.points[2],
            curve.points[3],
            curve.stroke.color,
        );
        if let Some(end) = curve.off_screen_end {
            let above = end.y < clip.center().y;
            let label = format!("{}{}", if above { "↑" } else { "↓" }, curve.count);
            painter.text(
                end + egui::vec2(-4.0, 0.0),
                egui::Align2::RIGHT_CENTER,
                label,
                egui::FontId::proportional(11.0),
                curve.stroke.color,
            );
        }
    }
    if let Some((curve, flat)) = hovered {
        hovered_ui(ui, &painter, session, curve, flat, &pal);
    }
}

/// The curves of `edges`: in the timeline's gutter between two rows (one end may be off the
/// view), and from a surface node to its row in the timeline.
fn curves_of(edges: &[Edge], geometry: &RowGeometry, pal: &theme::Palette) -> Vec<Curve> {
    let mut curves: Vec<Curve> = Vec::new();
    for &edge in edges {
        let stroke = pal.arrow_stroke(edge.upstream, edge.hop > 1);
        let from = timeline_anchor(geometry, edge.from);
        let to = timeline_anchor(geometry, edge.to);
        if let (Some((y_from, off_from)), Some((y_to, off_to))) = (from, to)
            && !(off_from && off_to)
        {
            let pts = gutter_curve(
                geometry.gutter_right - 2.0,
                y_from,
                y_to,
                theme::GUTTER_WIDTH - theme::SPACE,
            );
            let off = if off_to {
                Some(pts[3])
            } else if off_from {
                Some(pts[0])
            } else {
                None
            };
            push_curve(&mut curves, pts, stroke, edge, off);
        }
        if let Some(from) = geometry.surface_rect(edge.from)
            && let Some((y_to, off_to)) = to
        {
            let pts = bridge_curve(
                from.left_center(),
                Pos2::new(geometry.timeline_clip.right(), y_to),
            );
            push_curve(&mut curves, pts, stroke, edge, off_to.then_some(pts[3]));
        }
    }
    curves
}

/// The hovered curve, thicker, and a tooltip naming the events it links.
fn hovered_ui(
    ui: &Ui,
    painter: &egui::Painter,
    session: &Session,
    curve: &Curve,
    flat: Vec<Pos2>,
    pal: &theme::Palette,
) {
    let edge = curve.edge;
    let stroke = Stroke::new(
        theme::ARROW_WIDTH + theme::ARROW_HOVER_EXTRA,
        pal.arrow_stroke(edge.upstream, false).color,
    );
    painter.add(Shape::line(flat, stroke));
    let name = |i: EventIdx| {
        format!(
            "seq {} ({})",
            session.log.event(i).seq,
            session.log.type_name(i)
        )
    };
    egui::Tooltip::always_open(
        ui.ctx().clone(),
        painter.layer_id(),
        Id::unique("arrow-tip"),
        egui::PopupAnchor::Pointer,
    )
    .show(|ui| {
        if curve.count > 1 {
            ui.label(format!(
                "{} provenance links to events outside the view, e.g. {} cites {}",
                curve.count,
                name(edge.from),
                name(edge.to)
            ));
        } else {
            ui.label(format!("{} cites {}", name(edge.from), name(edge.to)));
        }
        if edge.hop > 1 {
            ui.label(format!("{} hops from the selection", edge.hop));
        }
    });
}

fn arrow_head(painter: &egui::Painter, from: Pos2, tip: Pos2, color: Color32) {
    let dir = (tip - from).normalized();
    if !dir.x.is_finite() || !dir.y.is_finite() {
        return;
    }
    let normal = egui::vec2(-dir.y, dir.x);
    let size = theme::ARROW_HEAD;
    let base = tip - dir * size;
    painter.add(Shape::convex_polygon(
        vec![tip, base + normal * size * 0.5, base - normal * size * 0.5],
        color,
        Stroke::NONE,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hop_and_whole_chain() {
        let s = crate::session::loaded::test_session();
        let e = |i| EventIdx(i);
        // Selecting 1: it cites 0 (upstream) and 2 cites it (downstream).
        let hop = compute_edges(&s, e(1), false);
        assert_eq!(hop.len(), 2);
        assert!(hop.contains(&Edge {
            from: e(1),
            to: e(0),
            hop: 1,
            upstream: true
        }));
        assert!(hop.contains(&Edge {
            from: e(2),
            to: e(1),
            hop: 1,
            upstream: false
        }));
        // Selecting 0 with the whole chain reaches 2 through 1 as well.
        let chain = compute_edges(&s, e(0), true);
        assert!(
            chain
                .iter()
                .any(|x| x.from == e(2) && x.to == e(1) && x.hop == 2)
        );
        assert!(compute_edges(&s, e(0), false).iter().all(|x| x.hop == 1));
    }

    #[test]
    fn curves_and_distance() {
        let c = gutter_curve(40.0, 10.0, 110.0, 30.0);
        assert_eq!(c[0], Pos2::new(40.0, 10.0));
        assert_eq!(c[1].x, 10.0);
        assert_eq!(c[3], Pos2::new(40.0, 110.0));
        let short = gutter_curve(40.0, 10.0, 12.0, 30.0);
        assert_eq!(short[1].x, 32.0);
        let b = bridge_curve(Pos2::new(500.0, 20.0), Pos2::new(400.0, 80.0));
        assert_eq!(b[1], Pos2::new(450.0, 20.0));
        assert_eq!(b[2], Pos2::new(450.0, 80.0));
        let clip = Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(100.0, 100.0));
        assert_eq!(clamp_y(50.0, clip), (50.0, false));
        assert_eq!(clamp_y(-20.0, clip), (6.0, true));
        let line = [Pos2::new(0.0, 0.0), Pos2::new(10.0, 0.0)];
        assert_eq!(distance_to_polyline(Pos2::new(5.0, 3.0), &line), 3.0);
        assert_eq!(distance_to_polyline(Pos2::new(13.0, 4.0), &line), 5.0);
    }
}
