//! The window's background, laid once per frame instead of once per panel.
//!
//! egui paints every panel's rectangle with `Visuals::panel_fill`, and panels nest (the
//! timeline's central panel inside the window's, the surface panel beside it), so a frame
//! shaded the window's area about 1.7 times over before any row was drawn: on a million-event
//! log 2.2 of the frame's 2.7 million shaded pixels. Under a software rasterizer (Mesa's
//! lavapipe or llvmpipe: virtual machines, remote desktops, CI) every shaded pixel runs egui's
//! fragment shader on the CPU, and those fills were most of a frame's cost (tens of
//! milliseconds of both cores for each window-sized fill on a 2-core machine; figures in
//! docs/performance.md, round twenty-four). So panels paint no fill
//! ([`theme::install_panel_style`]) and the background is laid once:
//!
//! - [`Background::Cleared`] (the desktop window): the render pass clears to the background
//!   colour (`eframe::App::clear_color`), which costs a memory fill, not a shader run;
//! - [`Background::Painted`] (renderers that clear to transparent, like egui_kittest's): one
//!   window-sized rectangle is painted under the panels, so pixel snapshots show what the
//!   window shows.

use crate::theme;

/// How the window's background is laid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Background {
    /// The renderer clears to [`theme::window_background`] before the frame is drawn.
    Cleared,
    /// The app paints it, under the panels, each frame.
    Painted,
}

impl Background {
    /// Lays the background for this frame: nothing for [`Background::Cleared`], one rectangle
    /// behind everything else for [`Background::Painted`]. Call before any panel is shown.
    pub(crate) fn lay(self, ui: &egui::Ui) {
        if self == Background::Painted {
            let rect = ui.ctx().content_rect();
            ui.painter()
                .rect_filled(rect, 0.0, theme::window_background(ui.visuals()));
        }
    }
}

/// The colour the render pass clears to, in the normalized gamma space eframe expects.
pub(crate) fn clear_color(visuals: &egui::Visuals) -> [f32; 4] {
    theme::window_background(visuals).to_normalized_gamma_f32()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clear_colour_is_the_background_and_opaque() {
        for visuals in [egui::Visuals::dark(), egui::Visuals::light()] {
            let c = theme::window_background(&visuals);
            let expected = [c.r(), c.g(), c.b()].map(|v| f32::from(v) / 255.0);
            let got = clear_color(&visuals);
            assert_eq!(got[..3], expected);
            assert_eq!(got[3], 1.0);
        }
    }

    #[test]
    fn a_painted_background_is_one_rectangle_under_the_panels_and_a_cleared_one_none() {
        for (background, shapes) in [(Background::Painted, 1), (Background::Cleared, 0)] {
            let ctx = egui::Context::default();
            theme::install_panel_style(&ctx);
            let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                background.lay(ui);
                egui::CentralPanel::default().show(ui, |_| {});
            });
            // The font atlas's upload is no renderer's here.
            output.textures_delta.clear();
            let fills: Vec<_> = output
                .shapes
                .iter()
                .filter_map(|s| match &s.shape {
                    egui::Shape::Rect(r) if r.fill != egui::Color32::TRANSPARENT => Some(r.fill),
                    _ => None,
                })
                .collect();
            assert_eq!(fills.len(), shapes, "{background:?}: {fills:?}");
            if let Some(fill) = fills.first() {
                assert_eq!(*fill, theme::window_background(&egui::Visuals::dark()));
            }
        }
    }
}
