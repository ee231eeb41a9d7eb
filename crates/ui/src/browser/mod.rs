//! The sessions browser: every session under a folder in one table (`table`), its model free of
//! egui (`rows`), the discovery off the UI thread (`job`), and the browser as a mode of the app
//! (`mode`).

pub(crate) mod browsing;
pub(crate) mod command;
pub mod export;
pub(crate) mod export_mode;
pub mod fleet;
pub(crate) mod fleet_cells;
pub(crate) mod job;
pub(crate) mod mode;
pub mod rows;
pub(crate) mod table;
