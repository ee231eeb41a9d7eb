//! The Policy tab (viewer-spec §10): the tab itself (`tab`), its verdict table (`table`), its
//! settings as typed text (`fields`), its table text (`rows`), the replays off the UI thread
//! (`job`), and what tests read of it (`access`).

pub(crate) mod access;
pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod fields;
pub(crate) mod job;
pub(crate) mod rows;
pub(crate) mod tab;
pub(crate) mod table;
