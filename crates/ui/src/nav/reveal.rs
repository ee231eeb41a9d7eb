//! A list's scroll kept on its selection: a list asks to reveal the selected row's span when the
//! selection moves (a key, a jump), and its scroll area scrolls there — again on the next frames
//! until the row is seen whole, because an area clamps an offset to the content height of the
//! frame before, and the panels around it may still change size.

use egui::scroll_area::ScrollAreaOutput;
use egui::{Context, ScrollArea};

/// Frames a reveal is retried before it is given up (a row taller than the view).
const ATTEMPTS: u8 = 8;

/// The scroll offset that shows the span `top .. top + height` (centred), or `None` when it is
/// already whole in the view `offset .. offset + viewport`. An unknown (NaN) offset scrolls.
pub fn offset_to_show(top: f32, height: f32, offset: f32, viewport: f32) -> Option<f32> {
    if top >= offset && top + height <= offset + viewport {
        return None;
    }
    Some((top - (viewport - height) / 2.0).max(0.0))
}

/// One list's scroll position and the row it is asked to reveal.
#[derive(Debug, Default)]
pub struct ListScroll {
    offset: f32,
    viewport: f32,
    /// `(top, height)` of the row to reveal, in the list's content, and the attempts left.
    pending: Option<(f32, f32, u8)>,
}

impl ListScroll {
    /// Asks to show the row spanning `top .. top + height` of the list's content.
    pub fn reveal(&mut self, top: f32, height: f32) {
        self.pending = Some((top, height, ATTEMPTS));
    }

    /// Asks to show row `row` of a list whose rows are `height` high.
    pub fn reveal_row(&mut self, row: usize, height: f32) {
        self.reveal(row as f32 * height, height);
    }

    /// `area`, scrolled to the pending row when it is not whole in the view.
    pub fn area(&self, area: ScrollArea) -> ScrollArea {
        match self.pending {
            Some((top, height, _)) => {
                match offset_to_show(top, height, self.offset, self.viewport) {
                    Some(offset) => area.vertical_scroll_offset(offset),
                    None => area,
                }
            }
            None => area,
        }
    }

    /// Records where the area is after this frame; the reveal is done once its row is whole in
    /// the view (asks `ctx` for another frame until then).
    pub fn update<R>(&mut self, output: &ScrollAreaOutput<R>, ctx: &Context) {
        self.offset = output.state.clamped_offset().y;
        self.viewport = output.inner_rect.height();
        if let Some((top, height, left)) = self.pending {
            let seen =
                offset_to_show(top, height, self.offset - 0.5, self.viewport + 1.0).is_none();
            self.pending = (!seen && left > 1).then_some((top, height, left - 1));
            if self.pending.is_some() {
                ctx.request_repaint();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_in_view_needs_no_scroll() {
        assert_eq!(offset_to_show(0.0, 18.0, 0.0, 180.0), None);
        assert_eq!(offset_to_show(162.0, 18.0, 0.0, 180.0), None);
        assert_eq!(offset_to_show(180.0, 18.0, 0.0, 180.0), Some(99.0));
        assert_eq!(offset_to_show(18.0, 18.0, 100.0, 180.0), Some(0.0));
        assert_eq!(offset_to_show(40.0, 36.0, f32::NAN, 100.0), Some(8.0));
    }
}
