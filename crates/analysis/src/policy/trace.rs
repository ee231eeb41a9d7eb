//! What a what-if replay did to its surface after the first divergence, kept for the
//! hypothetical ledger (docs/cost.md, "In the what-if"): each hypothetical compaction with
//! where on the surface it began, each summary attempt (a failed one is a summarizer call
//! too), the replace that later shadowed a compaction's replacement, and at the first model
//! request after hypothetical compactions the meter price of the surface from the earliest
//! changed position to the end — the part of that prompt the cache could not hold.

use std::collections::HashMap;

/// One compaction the what-if made up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HypCompaction {
    /// The check that made it (index into the report's checks).
    pub check: usize,
    /// The replay cursor of that check: the compaction lies between events `cursor − 1` and
    /// `cursor`.
    pub cursor: usize,
    /// A summary (else a prune).
    pub summary: bool,
    /// The surface position of its first shadowed node.
    pub position: usize,
    /// The meter price of the nodes it shadowed.
    pub shadowed_tokens: u64,
    /// The meter price of its replacement.
    pub replacement_tokens: u64,
    /// Its replacement node's (made-up) event number.
    pub node: u32,
}

/// One summary attempt the what-if made up (its summarizer was called, ok or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HypAttempt {
    /// The check (index into the report's checks).
    pub check: usize,
    /// The check's replay cursor.
    pub cursor: usize,
    /// The meter price of the range it summarised.
    pub shadowed_tokens: u64,
    /// The summary replaced the range.
    pub ok: bool,
}

/// The first model request after hypothetical compactions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestTail {
    /// The request's cursor.
    pub cursor: usize,
    /// The meter price of the hypothetical surface from the earliest position the compactions
    /// changed to its end, when the request's messages were fixed.
    pub tail: u64,
    /// That call's reported prompt over the meter's estimate (`None`: no usage).
    pub ratio: Option<f64>,
}

/// The what-if's record (empty in verify mode and before the first divergence).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WhatIfTrace {
    /// The replay cursor of the first divergent check.
    pub divergence_cursor: Option<usize>,
    /// The hypothetical compactions, in order.
    pub compactions: Vec<HypCompaction>,
    /// The hypothetical summary attempts, in order.
    pub attempts: Vec<HypAttempt>,
    /// The requests after hypothetical compactions.
    pub tails: Vec<RequestTail>,
    /// For a compaction's replacement node (a log event before the divergence, or a made-up
    /// one) that a later replace shadowed on the what-if surface: the event index a call's
    /// cursor must pass to no longer see it (the shadowing replace's event, or `cursor − 1` of
    /// a hypothetical compaction's check).
    pub until: HashMap<u32, usize>,
}
