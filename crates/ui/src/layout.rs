//! The main window's panel layout: the surface panel and the side panel (Inspector, Preview,
//! Compactions, Findings, Request) keep the width the user gives them — their content never
//! widens them — each can be collapsed, both are remembered across runs, and their widths are
//! bounded so that the timeline always keeps its payload column.

use egui::{Rect, Ui, UiBuilder};
use serde::{Deserialize, Serialize};

use crate::theme;

/// Which panels are open and how wide they are (persisted with the preferences).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelLayout {
    /// The side panel (tabs) is shown.
    pub side_open: bool,
    /// The surface panel is shown.
    pub surface_open: bool,
    /// Width of the side panel the last frame it was drawn (`None` before the first).
    pub side_width: Option<f32>,
    /// Width of the surface panel the last frame it was drawn.
    pub surface_width: Option<f32>,
}

impl Default for PanelLayout {
    fn default() -> Self {
        PanelLayout {
            side_open: true,
            surface_open: true,
            side_width: None,
            surface_width: None,
        }
    }
}

/// Width the timeline needs to show its fixed columns and a readable payload column.
pub fn timeline_min_width() -> f32 {
    theme::GUTTER_WIDTH
        + theme::SEQ_WIDTH
        + theme::TIME_WIDTH
        + theme::TYPE_WIDTH
        + theme::STATE_WIDTH
        + theme::PAYLOAD_MIN_WIDTH
        + theme::TIMELINE_CHROME_WIDTH
}

/// The `(default, min, max)` width of a panel in a `window`-wide window whose other panel
/// takes `other` points: the maximum leaves the timeline [`timeline_min_width`].
pub fn panel_bounds(window: f32, other: f32, share: (f32, f32, f32)) -> (f32, f32, f32) {
    let min = share.1.min(window * theme::PANEL_MAX_SHARE);
    let room = window - other - timeline_min_width();
    let max = room.min(window * theme::PANEL_MAX_SHARE).max(min);
    let default = theme::panel_width(window, share).clamp(min, max);
    (default, min, max)
}

impl PanelLayout {
    /// The side panel's bounds this frame.
    pub fn side_bounds(&self, window: f32) -> (f32, f32, f32) {
        let surface = self.surface_taken(window);
        panel_bounds(window, surface, theme::SIDE_PANEL_SHARE)
    }

    /// The surface panel's bounds this frame.
    pub fn surface_bounds(&self, window: f32) -> (f32, f32, f32) {
        let side = if self.side_open {
            self.side_width
                .unwrap_or_else(|| theme::panel_width(window, theme::SIDE_PANEL_SHARE))
        } else {
            theme::COLLAPSED_PANEL_WIDTH
        };
        panel_bounds(window, side, theme::SURFACE_PANEL_SHARE)
    }

    fn surface_taken(&self, window: f32) -> f32 {
        if self.surface_open {
            self.surface_width
                .unwrap_or_else(|| theme::panel_width(window, theme::SURFACE_PANEL_SHARE))
        } else {
            theme::COLLAPSED_PANEL_WIDTH
        }
    }
}

/// Runs `add` in the whole of `ui`'s remaining room without letting it grow `ui`: content
/// wider than the room is clipped (lists scroll inside), so a panel keeps the width its user
/// gave it whatever its tabs hold.
pub fn pinned<R>(ui: &mut Ui, add: impl FnOnce(&mut Ui) -> R) -> R {
    let rect: Rect = ui.available_rect_before_wrap();
    let mut child = ui.new_child(
        UiBuilder::new()
            .max_rect(rect)
            .layout(egui::Layout::top_down(egui::Align::Min)),
    );
    child.shrink_clip_rect(rect);
    child.set_max_width(rect.width());
    let out = add(&mut child);
    ui.advance_cursor_after_rect(rect);
    out
}

/// The thin strip a collapsed right-hand panel leaves: one button that opens it again.
pub fn collapsed_strip_ui(ui: &mut Ui, what: &str, keys: &str) -> bool {
    ui.vertical_centered(|ui| {
        ui.button("◀")
            .on_hover_text(format!("Show the {what} ({keys})"))
            .clicked()
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_keeps_its_minimum_at_a_laptop_width() {
        let layout = PanelLayout::default();
        let window = 1280.0;
        let (side, _, side_max) = layout.side_bounds(window);
        let (surface, _, surface_max) = layout.surface_bounds(window);
        assert!(window - side - surface >= timeline_min_width());
        // Dragging one panel to its maximum still leaves the timeline its minimum.
        assert!(window - side_max - surface >= timeline_min_width() - 0.5);
        assert!(window - side - surface_max >= timeline_min_width() - 0.5);
    }

    #[test]
    fn a_collapsed_panel_gives_its_room_to_the_others() {
        let mut layout = PanelLayout::default();
        let open = layout.side_bounds(1280.0).2;
        layout.surface_open = false;
        assert!(layout.side_bounds(1280.0).2 > open);
    }

    #[test]
    fn bounds_stay_ordered_in_a_narrow_window() {
        let (default, min, max) = panel_bounds(900.0, 400.0, theme::SIDE_PANEL_SHARE);
        assert!(min <= default && default <= max, "{min} {default} {max}");
    }
}
