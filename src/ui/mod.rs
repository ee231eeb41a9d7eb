//! The desktop viewer (feature `gui`): an eframe app over the shared engine. Panels read the
//! loaded session and push [`command::UiCommand`]s; [`app::ViewerApp`] applies them once per
//! frame. `theme` is the only place with colours and sizes.

mod app;
mod apply;
mod arrows;
mod chrome;
pub mod command;
mod compactions;
mod compactions_compare;
mod compactions_job;
mod findings_panel;
mod follow;
mod inspector;
mod loader;
mod preview_pane;
mod replay_bar;
mod search;
mod session;
mod shortcuts;
mod surface_panel;
pub mod theme;
mod timeline;
mod timeline_rows;
mod view;

use std::path::PathBuf;

pub use app::ViewerApp;
pub use command::{SideTab, UiCommand};

/// Opens the desktop viewer on `file` (or the bundled sample when `None`), optionally on one
/// session of a SQLite file, optionally following it live. Returns when the window closes.
pub fn run(file: Option<PathBuf>, session: Option<String>, follow: bool) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("surface-viewer")
            .with_inner_size([1600.0, 1000.0])
            .with_min_inner_size([900.0, 560.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "surface-viewer",
        options,
        Box::new(move |cc| Ok(Box::new(ViewerApp::new(cc, file, session, follow)))),
    )
    .map_err(|e| {
        anyhow::anyhow!(
            "the desktop viewer could not start ({e}); without a display, use the headless commands (surface-viewer --help)"
        )
    })
}
