//! The Compactions tab: the table of replace ops (`tab`), one replace before | after
//! (`compare`), the audit computed off the UI thread (`job`), and the policy's verdict on each
//! compaction (`verdicts`).

pub(crate) mod compare;
pub(crate) mod job;
pub(crate) mod tab;
pub(crate) mod verdicts;
