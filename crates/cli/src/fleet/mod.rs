//! Folders for the per-session reports (docs/export.md): `policy DIR` and `cost DIR` run the
//! per-file command on every session under a folder in parallel, with a progress bar on a
//! terminal, one row per session and the fleet's totals.

pub mod cost_dir;
mod cost_row;
mod ledger_sums;
pub mod policy_dir;
mod policy_totals;
mod progress;
pub mod sessions;
pub mod table;
