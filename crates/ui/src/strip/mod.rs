//! The context strip above the scrubber and what it is built from: its x axis (`axis`, `zoom`,
//! `ticks`, `time_bands`), the bars over the whole log (`track`), range extremes (`minmax`),
//! its layers (`audit_layer`, `what_if_layer`, `cache_split`, `breaks_layer`), gestures (`input`), legend, and what tests read
//! of it (`access`).

pub(crate) mod access;
pub(crate) mod apply;
pub(crate) mod audit_layer;
pub(crate) mod axis;
pub(crate) mod breaks_layer;
pub(crate) mod cache_split;
pub(crate) mod command;
pub(crate) mod context_strip;
pub(crate) mod input;
pub(crate) mod legend;
pub(crate) mod minmax;
pub(crate) mod ticks;
pub(crate) mod time_bands;
pub(crate) mod track;
pub(crate) mod what_if_layer;
pub mod zoom;
