//! The replace preview: the pane (`pane`) and whether the proposed op holds at the end of the
//! log, where saving appends it (`end`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod end;
pub(crate) mod pane;
