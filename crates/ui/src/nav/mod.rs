//! Moving around the log: keyboard navigation (`navigate`), the back/forward history of jumps
//! (`history`), and applying the navigation commands (`apply`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod history;
pub(crate) mod lists;
pub mod navigate;
pub(crate) mod state;
