//! The replace preview: the pane (`pane`), whether the proposed op holds at the end of the log,
//! where saving appends it (`end`), and saving it as a new log (`save`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod end;
pub(crate) mod pane;
pub(crate) mod save;
