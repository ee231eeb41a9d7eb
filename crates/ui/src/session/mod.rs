//! The open session and the work behind it: the session as the UI sees it (`loaded`), loading
//! it off the UI thread (`loader`, `indexes`, `analysis`), watching a mapped log's file
//! for other programs' changes (`file_watch`), and following it live (`follow`,
//! `follow_state`).

pub(crate) mod analysis;
pub(crate) mod apply;
pub(crate) mod command;
pub(crate) mod file_watch;
pub(crate) mod follow;
pub(crate) mod follow_state;
pub(crate) mod indexes;
pub(crate) mod jobs;
pub(crate) mod loaded;
pub(crate) mod loader;
