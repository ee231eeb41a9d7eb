//! The scenario tests, one module per subject, in one test binary: every test binary links
//! the whole product (the GUI included), so one binary instead of thirty saves CI most of its
//! link time. Modules that drive the window need the `gui` feature (on by default).
//!
//! Run one subject with a filter: `cargo test --test suite policy::`.

// Test code: an unwrap that fails fails the test, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod binary;
mod common;
mod invariants;

mod architecture;
mod audit;
mod bombs;
mod cache_breaks;
mod check_parallel;
mod cli;
mod cli_outputs;
mod compare;
mod cost;
mod csv_out;
mod envelope_scan;
mod era_bounds;
mod export;
mod fidelity;
mod findings;
mod fleet;
mod follow;
mod formats;
mod hostile;
mod json_pinned;
mod mapped;
mod mcp;
mod meter;
mod meter_scenarios;
mod policy;
mod policy_generated;
mod policy_spec;
mod policy_whatif;
mod properties;
mod readme_examples;
mod rewritten;
mod samples;
mod store;
mod surface;
mod tune;
#[cfg(feature = "gui")]
mod ui;
#[cfg(feature = "gui")]
mod ui_cache_breaks;
mod ui_compare;
#[cfg(feature = "gui")]
mod ui_cost;
#[cfg(feature = "gui")]
mod ui_file_changes;
#[cfg(feature = "gui")]
mod ui_fleet;
#[cfg(feature = "gui")]
mod ui_keys;
#[cfg(feature = "gui")]
mod ui_nav;
#[cfg(feature = "gui")]
mod ui_policy;
#[cfg(feature = "gui")]
mod ui_policy_beside;
#[cfg(feature = "gui")]
mod ui_policy_tab;
#[cfg(feature = "gui")]
mod ui_save;
#[cfg(feature = "gui")]
mod ui_snapshot;
#[cfg(feature = "gui")]
mod ui_support;
#[cfg(feature = "gui")]
mod ui_time_axis;
#[cfg(feature = "gui")]
mod ui_tune;
mod unpriced;
mod write_rule;
