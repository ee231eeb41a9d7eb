//! Moving around the log: keyboard navigation (`navigate`), the back/forward history of jumps
//! (`history`), the list that has the keyboard (`lists`), a list's scroll kept on its
//! selection (`reveal`), and applying the navigation commands (`apply`).

pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod history;
pub(crate) mod lists;
pub mod navigate;
pub(crate) mod reveal;
pub(crate) mod state;
