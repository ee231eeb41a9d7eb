//! The replace preview: the pane (`pane`) and what it keeps (`state`), whether the proposed op
//! holds at the end of the log, where saving appends it (`end`), what `check` would say about
//! the saved file (`saved_check`), and saving it as a new log (`save`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod end;
pub(crate) mod pane;
pub(crate) mod save;
pub(crate) mod saved_check;
pub(crate) mod state;
