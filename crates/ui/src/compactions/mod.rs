//! The Compactions tab: the table of replace ops (`tab`), one replace before | after
//! (`compare`), the audit computed off the UI thread (`job`), what each compaction cost
//! (`cost_job`, `cost_columns`), why the cache missed at each request (`request_changes`,
//! read by the Request view and the strip too), what each summary kept (`fidelity`), and the policy's verdict on each compaction (`verdicts`).

pub(crate) mod access;
pub(crate) mod compare;
pub(crate) mod cost_columns;
pub(crate) mod cost_job;
pub(crate) mod fidelity;
pub(crate) mod job;
pub(crate) mod request_changes;
pub(crate) mod tab;
pub(crate) mod verdicts;
