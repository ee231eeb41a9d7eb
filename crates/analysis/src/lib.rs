//! The analyses over the pure engine's log, surface and meter: the compaction audit
//! ([`audit`]), the policy replay with its tuner ([`policy`]), what context costs ([`cost`])
//! and two runs side by side ([`compare`]). Pure like the engine: no egui, no file I/O, no
//! clock, no threads; the engine never uses this crate (the crate graph holds it).

#![forbid(unsafe_code)]

pub mod audit;
pub mod compare;
pub mod cost;
pub mod policy;
