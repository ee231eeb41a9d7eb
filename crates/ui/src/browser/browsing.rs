//! The sessions browser as the app owns it: the browser of the folder opened last (kept while
//! one of its sessions is viewed), whether it is shown, the recently browsed folders, and the
//! folder's Tune view.

use std::path::PathBuf;
use std::sync::Arc;

use surface_analysis::cost::PriceTable;

use crate::browser::export::ExportJob;
use crate::browser::table::BrowserState;

/// The app's browsing state.
#[derive(Default)]
pub(crate) struct Browsing {
    /// The sessions browser of an opened folder (kept while one of its sessions is viewed).
    pub(crate) state: Option<BrowserState>,
    /// The browser is shown instead of the viewer.
    pub(crate) shown: bool,
    /// Recently browsed folders, newest first (persisted).
    pub(crate) recent_folders: Vec<PathBuf>,
    /// The prices of the fleet columns' cost (`None`: no cost column); set by
    /// [`ViewerApp::set_fleet_prices`](crate::app::ViewerApp::set_fleet_prices) whenever the
    /// price file of File ▸ Prices changes (`prices/apply.rs`).
    pub(crate) fleet_prices: Option<Arc<PriceTable>>,
    /// "Export this folder…" running.
    pub(crate) export: Option<ExportJob>,
    /// The program run as `PROGRAM export` (`None`: this executable; tests name the binary).
    pub(crate) export_program: Option<PathBuf>,
    /// "Tune this folder…": the folder's Tune view (kept while one of its sessions is
    /// viewed, and when the price file changes; a new folder starts afresh).
    pub(crate) tune: crate::tune::view::TuneView,
    /// The browser shows its Tune view instead of its sessions.
    pub(crate) tune_shown: bool,
}
