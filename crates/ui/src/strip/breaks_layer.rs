//! Why the cache missed, on the context strip (docs/cost.md): a small mark under the replace
//! ops' marks at each model call whose request's first change breaks the cache (any cause but
//! append-only growth), its colour and shape by cause — a diamond for a compaction's replace,
//! a square for the header (model, system prompt, tools), a triangle for an earlier message
//! edited or inserted. Columns are computed once per first changes, width and range shown
//! (O(breaks)), so a frame costs O(marks); the hover and a click find the mark under the
//! pointer by binary search.

use std::sync::Arc;

use egui::{Mesh, Pos2, Rect, Vec2};

use surface_analysis::cost::{CallKind, Cause};

use crate::command::{NavCommand, SideTab, UiCommand, WindowCommand};
use crate::compactions::request_changes::RequestChanges;
use crate::strip::axis::{Axis, LayerKey, layer_key};
use crate::strip::zoom::Zoom;
use crate::theme::{self, Palette};

/// Which causes a set of breaks has, in `Cause::ALL`'s order (the legend's entries).
pub type Causes = [bool; 7];

/// The marks of the cache breaks for one `(width, range, first changes)`.
#[derive(Debug)]
pub struct BreaksLayer {
    key: LayerKey,
    /// `(column, cause, request)` of each break inside the range shown, one per column (the
    /// one that resent the most), in column order.
    pub marks: Vec<(f32, Cause, usize)>,
    /// The causes of every break of the log (the range shown or not).
    pub causes: Causes,
}

/// The position of `cause` in `Cause::ALL`.
fn cause_index(cause: Cause) -> usize {
    Cause::ALL.iter().position(|&c| c == cause).unwrap_or(0)
}

/// The vertical centre of the marks, from the strip's top: just under the replace ops' marks.
pub fn mark_y() -> f32 {
    theme::STRIP_OP_MARK + theme::STRIP_BREAK_MARK + 2.0
}

impl BreaksLayer {
    /// The marks of `changes` on a `width`-column strip showing `zoom` on `axis`.
    pub fn compute(
        changes: &Arc<RequestChanges>,
        axis: &Axis<'_>,
        zoom: &Zoom,
        width: usize,
    ) -> BreaksLayer {
        let w = width as f32;
        let mut causes = [false; 7];
        let mut marks: Vec<(f32, Cause, usize)> = Vec::new();
        for (k, r) in changes.breaks() {
            let cause = r.first_change.cause;
            causes[cause_index(cause)] = true;
            // Where the strip draws the call's reported prompt: just after its event.
            let Some(event) = changes.event(k) else {
                continue;
            };
            let f = axis.fraction(zoom, event.get() + 1);
            if !(0.0..=1.0).contains(&f) {
                continue;
            }
            let c = (f as f32 * w).floor().clamp(0.0, (w - 1.0).max(0.0));
            match marks.last_mut() {
                Some(last) if last.0 == c => {
                    if r.resent_tokens > changes.requests()[last.2].resent_tokens {
                        *last = (c, cause, k);
                    }
                }
                _ => marks.push((c, cause, k)),
            }
        }
        BreaksLayer {
            key: layer_key(changes, axis, zoom, width),
            marks,
            causes,
        }
    }

    /// True when this layer was computed for these figures.
    pub fn is_for(
        &self,
        changes: &Arc<RequestChanges>,
        axis: &Axis<'_>,
        zoom: &Zoom,
        width: usize,
    ) -> bool {
        self.key == layer_key(changes, axis, zoom, width)
    }

    /// Adds the marks to `mesh` over the strip's `rect`.
    pub fn paint(&self, mesh: &mut Mesh, rect: Rect, pal: &Palette) {
        let crowded = self.marks.len() as f32 > rect.width() / theme::SCRUBBER_MARKER_SPACING;
        let h = if crowded {
            theme::STRIP_BREAK_MARK * 0.6
        } else {
            theme::STRIP_BREAK_MARK
        };
        let y = rect.top() + mark_y();
        for &(column, cause, _) in &self.marks {
            let center = Pos2::new(rect.left() + column + 0.5, y);
            add_mark(mesh, center, h, cause, pal.cache_break(cause));
        }
    }

    /// The request of the mark within reach of `x` points from the strip's left edge, when the
    /// pointer's `y` (from the strip's top) is on the marks' row.
    pub fn hit(&self, x: f32, y: f32) -> Option<usize> {
        let reach = theme::STRIP_BREAK_REACH;
        if (y - mark_y()).abs() > theme::STRIP_BREAK_MARK + reach {
            return None;
        }
        let k = self.marks.partition_point(|m| m.0 + 0.5 < x - reach);
        self.marks[k..]
            .iter()
            .take_while(|m| m.0 + 0.5 <= x + reach)
            .min_by(|a, b| (a.0 + 0.5 - x).abs().total_cmp(&(b.0 + 0.5 - x).abs()))
            .map(|m| m.2)
    }
}

/// One mark: a diamond (replace), a square (the header's causes) or a triangle (a message
/// edited or inserted) of half-size `h` at `center`.
fn add_mark(mesh: &mut Mesh, center: Pos2, h: f32, cause: Cause, color: egui::Color32) {
    let i = mesh.vertices.len() as u32;
    let at = |dx: f32, dy: f32| center + Vec2::new(dx, dy);
    match cause {
        Cause::Replace => {
            for p in [at(0.0, -h), at(h, 0.0), at(0.0, h), at(-h, 0.0)] {
                mesh.colored_vertex(p, color);
            }
            mesh.add_triangle(i, i + 1, i + 2);
            mesh.add_triangle(i, i + 2, i + 3);
        }
        Cause::Model | Cause::System | Cause::Tools => {
            let s = h * 0.8;
            mesh.add_colored_rect(Rect::from_center_size(center, Vec2::splat(2.0 * s)), color);
        }
        Cause::Edit | Cause::Insert | Cause::None => {
            for p in [at(-h, -h * 0.8), at(h, -h * 0.8), at(0.0, h)] {
                mesh.colored_vertex(p, color);
            }
            mesh.add_triangle(i, i + 1, i + 2);
        }
    }
}

/// The glyph the legend shows for `cause` (the mark's shape).
pub fn glyph(cause: Cause) -> &'static str {
    match cause {
        Cause::Replace => "◆",
        Cause::Model | Cause::System | Cause::Tools => "■",
        Cause::Edit | Cause::Insert | Cause::None => "▼",
    }
}

/// What the hover says of request `k`'s break.
pub fn hover_line(changes: &RequestChanges, k: usize) -> Option<String> {
    let r = changes.requests().get(k)?;
    let open = match r.kind {
        CallKind::Agent => "click: open it in the Request view",
        CallKind::Summarizer => "click: select the summary",
    };
    Some(format!(
        "cache break at the {} call seq {}: {} · {} tokens sent again uncached\n{open}",
        r.kind.as_str(),
        r.seq,
        r.first_change.describe(),
        r.resent_tokens
    ))
}

/// What a click on request `k`'s mark does: select its call, and for an agent call show the
/// Request view at it.
pub fn open_request(changes: &RequestChanges, k: usize, commands: &mut Vec<UiCommand>) {
    let (Some(r), Some(event)) = (changes.requests().get(k), changes.event(k)) else {
        return;
    };
    commands.push(NavCommand::JumpTo(event).into());
    if r.kind == CallKind::Agent {
        commands.push(WindowCommand::ShowTab(SideTab::Request).into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_hit_only_on_its_row_and_within_reach() {
        let layer = BreaksLayer {
            key: (0, 0, 0, 0, false),
            marks: vec![(10.0, Cause::Replace, 3), (40.0, Cause::Tools, 7)],
            causes: [false; 7],
        };
        let y = mark_y();
        assert_eq!(layer.hit(10.5, y), Some(3));
        assert_eq!(layer.hit(14.0, y), Some(3));
        assert_eq!(layer.hit(38.0, y + 2.0), Some(7));
        assert_eq!(layer.hit(25.0, y), None);
        assert_eq!(layer.hit(10.5, y + 30.0), None);
        assert_eq!(glyph(Cause::Replace), "◆");
        assert_eq!(cause_index(Cause::None), 6);
    }
}
