//! The timeline panel: the panel and its toolbar (`panel`), row painting (`rows`), what it
//! keeps between frames (`state`), and the full-text search behind its search box (`search`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod panel;
pub(crate) mod rows;
pub(crate) mod search;
pub(crate) mod state;
