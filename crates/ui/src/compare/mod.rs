//! Two runs side by side (docs/compare.md) in the viewer: a second log (B) read and compared
//! with the open one (A) off the UI thread (`job`), what the room keeps (`state`), its commands
//! and their effects (`command`, `apply`, the per-frame `tick`), the sessions browser's row
//! menu (`browse`), the Compare tab (`tab`) with B's read-only timeline (`b_timeline`), B's
//! context curve on the strip aligned by turn and step (`curve`), and what tests read of it
//! (`access`).

pub(crate) mod access;
pub(crate) mod apply;
pub(crate) mod b_timeline;
pub(crate) mod browse;
pub(crate) mod command;
pub(crate) mod curve;
pub(crate) mod job;
pub(crate) mod pick;
pub(crate) mod state;
pub(crate) mod tab;
pub(crate) mod tick;
