//! The Policy tab (docs/policy.md): the tab itself (`tab`), its verdict table (`table`), its
//! settings as typed text (`fields`), its table text (`rows`), the replays off the UI thread
//! (`job`), the what-if's two ledgers (`ledgers`, `ledgers_ui`), the what-if held against a
//! real run (`beside`), and what tests read of it (`access`).

pub(crate) mod access;
pub(crate) mod apply;
pub(crate) mod beside;
pub(crate) mod command;
pub(crate) mod fields;
pub(crate) mod job;
pub mod ledgers;
pub(crate) mod ledgers_ui;
pub(crate) mod rows;
pub(crate) mod tab;
pub(crate) mod table;
