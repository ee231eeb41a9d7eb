//! The compaction audit (docs/audit.md): for every replace op, what kind of compaction made
//! it and why it ran, how full the context was before and after (the meter's figures), what
//! the compaction's own events recorded, which salient terms it lost and which tool calls had
//! to fetch again what it dropped; plus the compactions that failed and the model requests
//! made over the threshold; and what each summary kept of the shadowed text's facts, by kind.
//!
//! Pure and O(log): one scan of the compaction events (the engine's [`surface_engine::compactions`]), one pass over the
//! surface's processed effects, and lookups into the meter's per-event arrays.

mod answered;
mod build;
mod detail;
mod facts;
mod fidelity;
mod kept;
mod lost;
mod model;
mod reads;
mod refetch;
mod terms;
mod text;

pub use build::{AuditWalk, LostTerms, audit, audit_scanned, audit_without_terms};
pub use detail::{Detail, ShadowedText, detail};
pub use facts::{FactKind, facts, for_each_fact};
pub use fidelity::{ByKind, FactRecord, Fidelity, FidelityTotals, KindFidelity, KindTotals};
pub use model::{
    Audit, CompactionRecord, FailedCompaction, LostTerm, OverThresholdRequest, Refetch,
    ReplaceAudit, ReplaceKind, Trigger,
};
pub use reads::{AuditReading, NodeReads};
pub use refetch::canonical_arguments;
pub use terms::{
    MIN_NUMBER_DIGITS, MIN_TERM_LEN, Term, TermClass, for_each_term, spans_where, terms,
};
pub use text::{NodeText, node_text};
