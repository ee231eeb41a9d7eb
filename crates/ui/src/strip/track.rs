//! A horizontal bar over the whole log (the scrubber, the context strip): where a cursor sits
//! on it and which cursor a click or drag on it means.

use egui::Rect;

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::strip::axis::Axis;

/// Fraction of the track (0..=1) for cursor `cursor` of `len` events.
pub fn fraction_from_cursor(cursor: usize, len: usize) -> f32 {
    if len == 0 {
        0.0
    } else {
        cursor as f32 / len as f32
    }
}

/// A click or drag on a horizontal bar over the whole log (`len` events across `rect`) seeks
/// the cursor to the event under the pointer.
pub fn seek_on_click_or_drag(
    response: &egui::Response,
    rect: egui::Rect,
    len: usize,
    commands: &mut Vec<UiCommand>,
) {
    // The release too: a fast drag ends where the button was released.
    if let Some(pos) = response.interact_pointer_pos()
        && (response.clicked() || response.dragged() || response.drag_stopped())
    {
        commands
            .push(NavCommand::Seek(cursor_from_x(pos.x, rect.left(), rect.width(), len)).into());
    }
}

/// The cursor for a position `x` on a track spanning `left..left+width`.
pub fn cursor_from_x(x: f32, left: f32, width: f32, len: usize) -> usize {
    if width <= 0.0 {
        return 0;
    }
    let f = ((x - left) / width).clamp(0.0, 1.0);
    (f * len as f32).round() as usize
}

/// The cursor under `x` on a bar over the whole log along `axis` spanning `rect`.
pub fn cursor_on_axis(x: f32, rect: Rect, axis: &Axis<'_>) -> usize {
    let f = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
    axis.cursor_at(f64::from(f) * axis.extent() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_and_fraction_round_trip() {
        assert_eq!(cursor_from_x(50.0, 0.0, 100.0, 10), 5);
        assert_eq!(cursor_from_x(-5.0, 0.0, 100.0, 10), 0);
        assert_eq!(cursor_from_x(500.0, 0.0, 100.0, 10), 10);
        assert_eq!(cursor_from_x(10.0, 0.0, 0.0, 10), 0);
        assert_eq!(fraction_from_cursor(5, 10), 0.5);
        assert_eq!(fraction_from_cursor(3, 0), 0.0);
    }
}
