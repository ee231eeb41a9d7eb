//! The comparison of two runs as reported (docs/compare.md): the first divergence with both
//! events, the turns paired, the totals with B − A and B / A, and which run was cheaper.

use serde::Serialize;

use super::alignment::{TurnPair, align};
use super::analysed::Analysed;
use super::divergence::{DivergenceKind, Split, first_split};
use super::position::Position;
use super::row::{Difference, Ratio, Row};

use crate::cost::BreakTotals;
use surface_engine::{EventIdx, EventLog, summarize_with_op};

/// One run for [`compare`]: its log and its analysis.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The log.
    pub log: &'a EventLog,
    /// Its analysis ([`super::analyse`]).
    pub analysed: &'a Analysed,
}

/// The first divergence, as reported: both events (`null` on a side that ended).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// A's event's seq.
    pub a_seq: Option<u64>,
    /// A's event's type.
    pub a_type: Option<String>,
    /// B's event's seq.
    pub b_seq: Option<u64>,
    /// B's event's type.
    pub b_type: Option<String>,
    /// What differs: `type`, `content`, `a-ended`, `b-ended`.
    pub kind: DivergenceKind,
    /// Events of each log before the pair, all equal pair by pair.
    pub index: usize,
    /// For `content`, the path of the first differing value.
    pub path: Option<String>,
    /// A's event's turn and step.
    pub a_position: Option<Position>,
    /// B's event's turn and step.
    pub b_position: Option<Position>,
    /// A's event in one line (the timeline's summary).
    pub a_summary: Option<String>,
    /// B's event in one line.
    pub b_summary: Option<String>,
    /// A's event.
    #[serde(skip)]
    pub a_event: Option<EventIdx>,
    /// B's event.
    #[serde(skip)]
    pub b_event: Option<EventIdx>,
}

/// Which run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Run {
    /// The first run.
    A,
    /// The second run.
    B,
}

/// What "cheaper" was measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Money: both runs priced.
    Cost,
    /// Tokens: the prompt and output of every call, agent and summarizer (no price file, or
    /// a run with an unpriced call).
    Tokens,
}

/// Which run was cheaper.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cheaper {
    /// The cheaper run (`null`: they cost the same).
    pub run: Option<Run>,
    /// What was compared.
    pub measure: Measure,
    /// A's amount.
    pub a: f64,
    /// B's amount.
    pub b: f64,
    /// A has calls the price file has no price for (so the runs were set side by side in
    /// tokens).
    pub a_unpriced: bool,
    /// B has calls the price file has no price for.
    pub b_unpriced: bool,
}

impl Cheaper {
    /// The measure fell back to tokens although there is a price file: a run is unpriced.
    pub fn fell_back(&self) -> bool {
        self.a_unpriced || self.b_unpriced
    }
}

/// The session totals of both runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Totals {
    /// A's.
    pub a: Row,
    /// B's.
    pub b: Row,
    /// B − A.
    pub b_minus_a: Difference,
    /// B / A.
    pub b_over_a: Ratio,
    /// Which run was cheaper: in money when both are wholly priced, else in tokens.
    pub cheaper: Cheaper,
}

impl Totals {
    /// The totals of two rows.
    pub fn of(a: &Row, b: &Row) -> Totals {
        let (measure, x, y) = match (a.cost, b.cost) {
            (Some(x), Some(y)) => (Measure::Cost, x, y),
            _ => (Measure::Tokens, a.tokens() as f64, b.tokens() as f64),
        };
        let run = match x.partial_cmp(&y) {
            Some(std::cmp::Ordering::Less) => Some(Run::A),
            Some(std::cmp::Ordering::Greater) => Some(Run::B),
            _ => None,
        };
        Totals {
            a: *a,
            b: *b,
            b_minus_a: Difference::of(a, b),
            b_over_a: Ratio::of(a, b),
            cheaper: Cheaper {
                run,
                measure,
                a: x,
                b: y,
                a_unpriced: a.unpriced_calls > 0,
                b_unpriced: b.unpriced_calls > 0,
            },
        }
    }
}

/// Two runs compared (docs/compare.md's document, less the files the shells add).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The first pair of events that differ (`null`: none).
    pub first_divergence: Option<Divergence>,
    /// The turns, paired by index.
    pub turns: Vec<TurnPair>,
    /// The session totals.
    pub totals: Totals,
    /// Why each run's cache missed: resent tokens by cause, provider misses.
    pub cache_misses: CacheMisses,
}

/// Both runs' cache breaks summed (docs/cost.md#why-the-cache-missed).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheMisses {
    /// A's.
    pub a: BreakTotals,
    /// B's.
    pub b: BreakTotals,
}

/// Compares two analysed runs.
pub fn compare(a: Side<'_>, b: Side<'_>) -> Comparison {
    compare_split(a, b, first_split(a.log, b.log))
}

/// [`compare`] with the first divergence the caller found ([`first_split`] of the two logs,
/// walked on other threads with [`super::first_split_in`]).
pub fn compare_split(a: Side<'_>, b: Side<'_>, split: Option<Split>) -> Comparison {
    let first_divergence = split.map(|s| divergence(a, b, s));
    Comparison {
        first_divergence,
        turns: align(a.analysed, b.analysed),
        totals: Totals::of(&a.analysed.total, &b.analysed.total),
        cache_misses: CacheMisses {
            a: a.analysed.cache_misses.clone(),
            b: b.analysed.cache_misses.clone(),
        },
    }
}

fn divergence(a: Side<'_>, b: Side<'_>, split: Split) -> Divergence {
    let seq = |s: Side<'_>, i: Option<EventIdx>| i.map(|i| s.log.event(i).seq);
    let kind = |s: Side<'_>, i: Option<EventIdx>| i.map(|i| s.log.type_name(i).to_string());
    let position = |s: Side<'_>, i: Option<EventIdx>| i.map(|i| s.analysed.positions.of(i));
    let summary = |s: Side<'_>, i: Option<EventIdx>| i.map(|i| summarize_with_op(s.log, i));
    Divergence {
        a_seq: seq(a, split.a),
        a_type: kind(a, split.a),
        b_seq: seq(b, split.b),
        b_type: kind(b, split.b),
        kind: split.kind,
        index: split.index,
        path: split.path,
        a_position: position(a, split.a),
        b_position: position(b, split.b),
        a_summary: summary(a, split.a),
        b_summary: summary(b, split.b),
        a_event: split.a,
        b_event: split.b,
    }
}
