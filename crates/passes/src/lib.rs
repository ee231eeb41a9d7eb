//! The engine's whole-log passes run on every core, shared by the command line and the desktop
//! viewer: the token meter, pipelined over threads ([`meter_of`]; beside the surface's build,
//! [`surface_and_meter_of`]), `check` with its two independent halves side by side
//! ([`check_report_of`]), the compaction brackets scanned once beside the meter
//! ([`surface_meter_and_scan_of`]; the ledger's parts from it, [`ledger_parts_of`]), the policy
//! replay's input beside the cost ledger's parts ([`policy_parts_of`]), and a compared run's
//! audit beside its ledger ([`analyse_of`]), and two runs' first divergence walked in ranges
//! beside both runs' analyses ([`compared_runs_of`]). The engine stays single-threaded and pure; the
//! threads live here, in one place, so neither shell has to call the other. They are rayon's:
//! the global pool (a thread per core) by default, or the pool given to the `_in` variants
//! (tests run 1, 2 and 8 workers). The audit reads its texts a block ahead of its walk
//! ([`audit_read_ahead`]).

#![forbid(unsafe_code)]

mod audit_threads;
mod check_threads;
mod compare_threads;
mod ledger_threads;
mod meter_threads;
mod policy_threads;
#[cfg(test)]
mod test_logs;
mod tune_threads;

pub use audit_threads::audit_read_ahead;
pub use check_threads::{check_report_of, check_report_of_in};
pub use compare_threads::{analyse_of, analysis_of, compared_runs_of, first_split_of};
pub use ledger_threads::{
    ledger_parts_and_breaks_of, ledger_parts_of, meter_and_scan_of, surface_meter_and_scan_of,
};
pub use meter_threads::{meter_of, meter_of_in, surface_and_meter_of};
pub use policy_threads::{
    policy_input_and_parts, policy_parts_of, policy_parts_of_in, policy_parts_with,
};
pub use tune_threads::{TuneWatch, TunedSession, tune_session, tune_session_watched};
