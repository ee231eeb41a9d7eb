//! The engine's whole-log passes run on every core, shared by the command line and the desktop
//! viewer: the token meter, pipelined over threads ([`meter_of`]), and `check` with its two
//! independent halves side by side ([`check_report_of`]). The engine stays single-threaded and
//! pure; the threads live here, in one place, so neither shell has to call the other.

#![forbid(unsafe_code)]

mod check_threads;
mod meter_threads;

pub use check_threads::check_report_of;
pub use meter_threads::meter_of;
