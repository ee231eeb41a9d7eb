//! The Findings tab: every finding of `check` (`panel`) and the text of one of its rows
//! (`row`).

pub(crate) mod panel;
pub(crate) mod row;
