//! The pure surface engine: events, the surface with replay, messages, findings, repair and
//! replace preview, the meter, the log's compaction brackets. No egui, no file I/O, no clock, no
//! threads. The analyses over it (audit, policy, cost, compare) are `surface-analysis`.
//!
//! Data flow: a store fills [`EventBatch`]es → [`EventLog`] → [`Surface`] (replay cursor) →
//! [`derive_messages`], [`check`], [`closers`], [`preview_replace`].

#![forbid(unsafe_code)]

mod check;
pub mod compactions;
mod data_diff;
mod delta_kind;
mod effect;
mod effect_slot;
mod era;
mod event;
mod event_type;
mod finding;
mod header;
mod key_map;
mod links;
mod log;
mod message_shape;
mod messages;
pub mod meter;
mod packed;
mod preview;
mod problem;
mod readable;
mod repair;
mod request;
mod revisit;
mod skipped;
mod summary;
mod surface;
mod text_arena;
pub mod time_column;
mod turn_fields;
mod turns;
mod types;

pub use check::{
    CheckReport, Join, RestFindings, RestPass, Rewrite, TurnsFindings, TurnsPass, check,
    check_report, check_report_and_surface_joined, check_report_joined, tool_result_rewrite,
};
pub use data_diff::{
    DataDiff, DiffEntry, DiffKind, MarkedLine, diff_pruned, diff_values, marked_lines,
    prunable_content,
};
pub use effect::{AppliedReplace, Effect, EventState, RejectReason};
pub use era::{Era, EraGuess, detect_era};
pub use event::{
    EventExtra, EventIdx, EventRecord, EventText, MalformedOp, NO_EXTRA, NO_SOURCES, NO_TIME,
    OpSlot, SurfaceOp, TypeId,
};
pub use event_type::EventType;
pub use finding::{Finding, Rule, Severity};
pub use header::SessionHeader;
pub use key_map::KeyMap;
pub use log::{BatchRemap, EventBatch, EventLog, NewEvent};
pub use messages::{Message, derive_messages, message_from, message_of, read_message};
pub use meter::{BaselineKind, DEFAULT_THRESHOLD_RATIO, Figure, Meter};
pub use packed::{ChunkKind, PackedData, PackedRow};
pub use preview::{Preview, PreviewRequest, Totals, preview_replace};
pub use problem::{LogProblem, ProblemKind, human_bytes};
pub use readable::{ReadScan, Unreadable, read_value, scan as scan_readable};
pub use repair::{Closer, apply_closers, closers};
pub use request::{
    Estimate, Reported, Request, may_be_usage_chunk, reported_usage, request_at, request_cursor,
    request_of_step,
};
pub use revisit::Revisit;
pub use skipped::{Skipped, skipped, skipped_warning};
pub use summary::{SUMMARY_CHARS, one_line, summarize, summarize_with_op, text_of_blocks};
pub use surface::{Mode, ReplaceCheck, Surface};
pub use text_arena::{SharedBytes, SharedText, TextArena};
pub use turn_fields::{TurnFields, turn_fields_of_bytes};
pub use turns::{OpenTurn, PendingCall, TurnScan, scan_checked, scan_turns, turn_and_step};
pub use types::TypeTable;
