//! The desktop viewer (feature `gui`): an eframe app over the shared engine. Panels read the
//! loaded session and push [`command::UiCommand`]s; [`app::ViewerApp`] applies them once per
//! frame. `theme` is the only place with colours and sizes.

#![forbid(unsafe_code)]

mod app;
mod apply;
mod arrows;
mod browser;
mod chrome;
mod cjk_font;
pub mod command;
mod compactions;
mod compare;
mod findings;
mod icon;
mod inspector;
mod layout;
mod main_layout;
mod nav;
mod panels;
mod policy;
mod preview;
mod prices;
mod ready_report;
mod replay;
mod request_bill;
mod request_change;
mod request_view;
mod seq_width;
mod session;
mod strip;
mod summary_cache;
mod surface_panel;
pub mod theme;
mod threshold;
mod timeline;
mod tune;
mod view;
mod wording;

pub use browser::rows as browser_rows;
pub use nav::navigate;
pub use strip::zoom;

use std::path::PathBuf;

pub use app::ViewerApp;
pub use cjk_font::{CJK_FONT_NAME, CjkFallback};
pub use command::{
    BrowserCommand, CompareCommand, NavCommand, PolicyCommand, PreviewCommand, PriceCommand,
    ReplayCommand, SessionCommand, SideTab, StripCommand, TimelineCommand, TuneCommand, TuneTarget,
    UiCommand, WindowCommand,
};

/// Opens the desktop viewer on `file` (or the bundled sample when `None`; the sessions
/// browser when it is a folder), optionally on one session of a SQLite file, optionally
/// following it live. Returns when the window closes.
pub fn run(file: Option<PathBuf>, session: Option<String>, follow: bool) -> anyhow::Result<()> {
    ready_report::mark_start();
    surface_store::install_map_guard();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("surface-viewer")
            .with_app_id("surface-viewer")
            .with_inner_size(theme::WINDOW_SIZE)
            .with_min_inner_size(theme::WINDOW_MIN_SIZE)
            .with_drag_and_drop(true)
            .with_icon(icon::window_icon()),
        ..Default::default()
    };
    // A file (not a folder) starts loading now, on its own thread, while the window and the
    // GPU are set up: start-up costs the longer of the two, not their sum.
    let started = file.as_ref().filter(|f| !f.is_dir()).map(|f| {
        session::loader::LoadJob::spawn(
            session::loader::Source::Path(f.clone()),
            session.clone(),
            None,
            follow,
        )
    });
    eframe::run_native(
        "surface-viewer",
        options,
        Box::new(move |cc| {
            Ok(Box::new(ViewerApp::new_with_load(
                cc, file, session, follow, started,
            )))
        }),
    )
    .map_err(|e| {
        anyhow::anyhow!(
            "the desktop viewer could not start ({e}); without a display, use the headless commands (surface-viewer --help)"
        )
    })
}
