//! The application icon (`assets/icon.png`, drawn from `assets/icon.svg`), compiled in and
//! given to the window.

use std::sync::Arc;

/// The icon's PNG bytes.
pub static ICON_PNG: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/icon.png"
));

/// The window icon; egui's default icon if the PNG could not be decoded (never expected).
pub fn window_icon() -> Arc<egui::IconData> {
    Arc::new(eframe::icon_data::from_png_bytes(ICON_PNG).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_icon_decodes() {
        let icon = super::window_icon();
        assert_eq!((icon.width, icon.height), (256, 256));
        assert_eq!(icon.rgba.len(), 256 * 256 * 4);
        // Transparent corners, opaque middle.
        assert_eq!(icon.rgba[3], 0);
        let mid = (128 * 256 + 128) * 4;
        assert_eq!(icon.rgba[mid + 3], 255);
    }
}
