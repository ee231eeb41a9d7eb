//! The log's compactions as its own events record them: the one scan that brackets each
//! `compaction/*` event group with its replace op ([`scan_compactions`]), the fields those
//! events carry, the overflow finish, and the `compaction.*` findings `check` reports. The
//! analyses (the audit, the policy replay, the cost ledger) read the log through this scan.

mod brackets;
mod events;
mod findings;
mod overflow;

pub use brackets::{Bracket, Link, Prune, Scan, scan as scan_compactions};
pub use events::{CompactionEvent, CompactionFields, TurnField, read_fields};
pub use findings::{compaction_findings, mismatch_findings};
pub use overflow::{OVERFLOW_CODE, OverflowWatch};
