//! `check`: every finding of docs/check.md for a log, in seq order, with severities for the
//! log's era (docs/parity.md; the per-rule table is `docs/parity.md`).
//!
//! Each pass looks at every event once: the problems met while reading, a seq pass, a
//! provenance pass, the turn/message pass (one parse per boundary, tool and surface event) and
//! a pass over the surface's effects. Era detection reads only the header and a few events.

use std::collections::HashSet;

use serde_json::Value;

use super::data_diff::{DataDiff, diff_pruned, prunable_content};
use super::effect::{AppliedReplace, Effect, RejectReason};
use super::era::{Era, EraGuess, detect_era};
use super::event::{EventIdx, MalformedOp, SurfaceOp};
use super::event_type::EventType;
use super::finding::{Finding, Rule, Severity};
use super::log::EventLog;
use super::problem::ProblemKind;
use super::readable::read_value;
use super::surface::{Mode, Surface};
use super::turns::{TurnScan, scan_checked};

/// Which seqs exist in the log, answered in O(1) for the usual contiguous `0..N` case.
enum SeqIndex {
    Contiguous(u64),
    Sorted(Vec<u64>),
}

impl SeqIndex {
    fn new(log: &EventLog) -> Self {
        let contiguous = log
            .events
            .iter()
            .enumerate()
            .all(|(i, e)| e.seq == i as u64);
        if contiguous {
            SeqIndex::Contiguous(log.len() as u64)
        } else {
            let mut seqs: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
            seqs.sort_unstable();
            seqs.dedup();
            SeqIndex::Sorted(seqs)
        }
    }

    fn contains(&self, seq: u64) -> bool {
        match self {
            SeqIndex::Contiguous(n) => seq < *n,
            SeqIndex::Sorted(v) => v.binary_search(&seq).is_ok(),
        }
    }
}

/// What `check` found: the findings and the era whose rules decided their severities.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// The detected era and why.
    pub era: EraGuess,
    /// Every finding, in file order.
    pub findings: Vec<Finding>,
}

/// All findings for `log`, using `surface` processed to the end (see [`Surface::at_end`]).
pub fn check(log: &EventLog, surface: &Surface) -> Vec<Finding> {
    check_report(log, surface).findings
}

/// [`check`] with the era it detected.
pub fn check_report(log: &EventLog, surface: &Surface) -> CheckReport {
    check_report_joined(log, surface, |turns, rest| (turns(), rest()))
}

/// The turn/message pass of `check` (the heaviest: one payload parse per boundary, tool and
/// surface event), then the seq and provenance passes, handed to a [`Join`].
pub type TurnsPass<'a> = Box<dyn FnOnce() -> TurnsFindings + Send + 'a>;

/// Every other pass of `check` (problems, surface, meter, audit), handed to a [`Join`].
pub type RestPass<'a> = Box<dyn FnOnce() -> RestFindings + Send + 'a>;

/// Runs two independent passes and returns both results: `|a, b| (a(), b())` runs them one
/// after the other; a shell may run them on two threads. The engine itself starts no thread.
pub trait Join<'a>: FnOnce(TurnsPass<'a>, RestPass<'a>) -> (TurnsFindings, RestFindings) {}
impl<'a, F: FnOnce(TurnsPass<'a>, RestPass<'a>) -> (TurnsFindings, RestFindings)> Join<'a> for F {}

/// What the turn/message half found. The seq and provenance passes read only the log; they
/// run in this half so that the two halves take about as long (on the 1M packed log: turn
/// pass 51 ms + 12 ms, against 70 ms for the surface, the meter's and the audit's passes).
pub struct TurnsFindings {
    /// The turn/message pass.
    scan: TurnScan,
    /// Seq and provenance findings, in that order.
    seqs_and_provenance: Vec<Finding>,
}

/// The findings of the passes other than the turn/message pass, kept apart so that the
/// report lists them in the same order whichever way the passes ran.
pub struct RestFindings {
    /// Problems met while reading.
    before_surface: Vec<Finding>,
    /// Surface findings, when they did not need the turn pass (see [`check_report_joined`]).
    surface: Option<Vec<Finding>>,
    /// Meter and audit findings.
    after_turns: Vec<Finding>,
    /// The surface this half built, when the caller gave none.
    built: Option<Surface>,
}

/// [`check_report`] with its two independent halves run by `join` — the same findings, in the
/// same order. The surface rules of a legacy-mode log need the turn pass (whether its harness
/// marks messages), so there they run after both halves.
pub fn check_report_joined<'a>(
    log: &'a EventLog,
    surface: &'a Surface,
    join: impl Join<'a>,
) -> CheckReport {
    check_joined(log, Some(surface), join).0
}

/// [`check_report_joined`] for a caller without a surface: the half that needs one builds it
/// at the end of the log ([`Surface::at_end`]), so that building it overlaps the turn pass.
/// Returns that surface with the report.
pub fn check_report_and_surface_joined<'a>(
    log: &'a EventLog,
    join: impl Join<'a>,
) -> (CheckReport, Surface) {
    let (report, built) = check_joined(log, None, join);
    (report, built.unwrap_or_else(|| Surface::at_end(log)))
}

/// Both entry points: with `given`, that surface; without, one built in the second half and
/// returned.
fn check_joined<'a>(
    log: &'a EventLog,
    given: Option<&'a Surface>,
    join: impl Join<'a>,
) -> (CheckReport, Option<Surface>) {
    let guess = detect_era(log);
    let era = guess.era;
    let legacy = given.map_or_else(|| Mode::of(log), Surface::mode) == Mode::Legacy;
    let last_turn_end = last_turn_end(log);
    let turns: TurnsPass<'a> = Box::new(move || {
        let scan = scan_checked(log, era);
        let mut seqs_and_provenance = Vec::new();
        seq_findings(log, last_turn_end, &mut seqs_and_provenance);
        provenance_findings(log, era, &mut seqs_and_provenance);
        TurnsFindings {
            scan,
            seqs_and_provenance,
        }
    });
    let rest: RestPass<'a> = Box::new(move || {
        let mut built = None;
        let surface: &Surface = match given {
            Some(s) => s,
            None => built.insert(Surface::at_end(log)),
        };
        let mut before_surface = Vec::new();
        problem_findings(log, last_turn_end, &mut before_surface);
        let surface_found = (!legacy).then(|| {
            let mut found = Vec::new();
            surface_findings(log, surface, era, None, &mut found);
            found
        });
        let mut after_turns = super::meter::meter_findings(log);
        after_turns.extend(super::compactions::compaction_findings(log, surface));
        RestFindings {
            before_surface,
            surface: surface_found,
            after_turns,
            built,
        }
    });
    let (turns, mut rest) = join(turns, rest);
    let TurnsFindings {
        scan,
        seqs_and_provenance,
    } = turns;
    let mut out = std::mem::take(&mut rest.before_surface);
    out.extend(seqs_and_provenance);
    match rest.surface.take() {
        Some(found) => out.extend(found),
        None => {
            let marking = marking_harness(log, scan.message_ids);
            let surface: &Surface = match given {
                Some(s) => s,
                None => rest.built.get_or_insert_with(|| Surface::at_end(log)),
            };
            surface_findings(log, surface, era, marking, &mut out);
        }
    }
    out.extend(scan.findings);
    out.extend(std::mem::take(&mut rest.after_turns));
    // Stable order: file order. A finding's place is its line; one with only a seq takes the
    // line of that event (SQLite rows have none, so there seqs order them); frame problems
    // without either come first, by offset.
    out.sort_by_cached_key(|f| {
        let line = f.line.or_else(|| {
            f.seq
                .and_then(|s| log.find_seq(s))
                .map(|i| log.event(i).line)
                .filter(|&l| l > 0)
        });
        (
            f.seq.is_some() || f.line.is_some(),
            line.unwrap_or(0),
            f.seq.unwrap_or(0),
            f.offset.unwrap_or(0),
        )
    });
    let report = CheckReport {
        era: guess,
        findings: out,
    };
    (report, rest.built)
}

/// The last `turn/end` read from the file: everything at or before it is the committed region.
fn last_turn_end(log: &EventLog) -> Option<EventIdx> {
    let turn_end = log.types.id_of(EventType::TurnEnd)?;
    log.indices().rev().find(|&i| {
        let e = log.event(i);
        e.kind == turn_end && !e.is_synthesized()
    })
}

/// Why an unmarked log must have been marked: its harness writes `surfaceOp` on every surface
/// event (docs/format.md rule 5).
fn marking_harness(log: &EventLog, message_ids: bool) -> Option<&'static str> {
    // Ids first: they are in the events, so every storage format tells the same reason.
    if message_ids {
        Some("its messages carry ids")
    } else if log
        .header
        .as_ref()
        .is_some_and(|h| h.delegation_depth.is_some())
    {
        Some("its header carries delegationDepth")
    } else {
        None
    }
}

fn line_of(log: &EventLog, idx: EventIdx) -> Option<u32> {
    let l = log.event(idx).line;
    (l > 0).then_some(l)
}

fn problem_findings(log: &EventLog, last_turn_end: Option<EventIdx>, out: &mut Vec<Finding>) {
    let last_turn_end = last_turn_end.map(|i| log.event(i));
    for p in &log.problems {
        let finding = match p.kind {
            ProblemKind::HeaderMissing => {
                Finding::new(Rule::HeaderMissing, None, p.line, &p.message)
            }
            ProblemKind::HeaderVersion => {
                Finding::new(Rule::HeaderVersion, None, p.line, &p.message)
            }
            ProblemKind::CorruptFrame => Finding {
                offset: p.offset,
                ..Finding::new(Rule::FrameCorrupt, p.seq, p.line, &p.message)
            },
            ProblemKind::BadProvenance => {
                Finding::new(Rule::ProvenanceMalformed, p.seq, p.line, &p.message)
            }
            ProblemKind::TooLong => Finding::new(Rule::LineTooLong, p.seq, p.line, &p.message),
            ProblemKind::LineCountOverflow => {
                Finding::new(Rule::LineCountOverflow, p.seq, p.line, &p.message)
            }
            ProblemKind::BadRecord => {
                let committed = match (last_turn_end, p.line, p.seq) {
                    (Some(end), Some(line), _) if end.line > 0 => line < end.line,
                    (Some(end), _, Some(seq)) => seq < end.seq,
                    _ => false,
                };
                let rule = if committed {
                    Rule::LineUnparseable
                } else {
                    Rule::LineTornTail
                };
                Finding {
                    offset: p.offset,
                    ..Finding::new(rule, p.seq, p.line, &p.message)
                }
            }
        };
        out.push(finding);
    }
}

/// Where the records that could not be read lie: JSONL lines, SQLite row seqs.
struct BadRecords {
    lines: Vec<u32>,
    seqs: Vec<u64>,
}

impl BadRecords {
    fn of(log: &EventLog) -> Self {
        let bad = || {
            log.problems.iter().filter(|p| {
                matches!(
                    p.kind,
                    ProblemKind::BadRecord | ProblemKind::CorruptFrame | ProblemKind::TooLong
                )
            })
        };
        let mut lines: Vec<u32> = bad().filter_map(|p| p.line).collect();
        let mut seqs: Vec<u64> = bad().filter_map(|p| p.seq).collect();
        lines.sort_unstable();
        seqs.sort_unstable();
        BadRecords { lines, seqs }
    }

    /// True when an unreadable record lies strictly between two events, by line (JSONL) or by
    /// seq (SQLite rows have no line).
    fn between(&self, lines: (u32, u32), seqs: (Option<u64>, u64)) -> bool {
        let after_line = self.lines.partition_point(|&l| l <= lines.0);
        let line_hit = lines.1 > 0 && self.lines.get(after_line).is_some_and(|&l| l < lines.1);
        let after_seq = self
            .seqs
            .partition_point(|&s| seqs.0.is_some_and(|m| s <= m));
        line_hit || self.seqs.get(after_seq).is_some_and(|&s| s < seqs.1)
    }
}

/// `seq.not-increasing` and `seq.gap`. A gap (including a log that does not start at seq 0) is
/// an error in the committed region — at or before the last `turn/end`, where every harness
/// refuses it — and a warning after it, where the harness cuts the log off as a torn tail. A
/// gap left by a record that could not be read is that record's finding, not a second one.
fn seq_findings(log: &EventLog, last_turn_end: Option<EventIdx>, out: &mut Vec<Finding>) {
    let bad = BadRecords::of(log);
    let mut max: Option<u64> = None;
    let mut prev_line = 0;
    for idx in log.indices() {
        let e = log.event(idx);
        if !e.takes_part() {
            out.push(Finding::new(
                Rule::SeqNotIncreasing,
                Some(e.seq),
                line_of(log, idx),
                format!(
                    "seq {} is not greater than the earlier seq {}; the event takes no part in the surface",
                    e.seq,
                    max.unwrap_or(0)
                ),
            ));
            continue;
        }
        let expected = max.map_or(0, |m| m + 1);
        if e.seq > expected && !bad.between((prev_line, e.line), (max, e.seq)) {
            let committed = last_turn_end.is_some_and(|end| idx <= end);
            let what = match max {
                Some(m) => format!("seq jumps from {m} to {}", e.seq),
                None => format!("the log starts at seq {}, not 0", e.seq),
            };
            let severity = if committed {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(
                Finding::new(
                    Rule::SeqGap,
                    Some(e.seq),
                    line_of(log, idx),
                    format!(
                        "{what} ({} missing), {}",
                        e.seq - expected,
                        if committed {
                            "at or before the last turn/end: the harness refuses the log"
                        } else {
                            "after the last turn/end: the harness cuts the log off here as a torn tail"
                        }
                    ),
                )
                .with_severity(severity),
            );
        }
        max = Some(e.seq);
        prev_line = e.line;
    }
}

fn provenance_findings(log: &EventLog, era: Era, out: &mut Vec<Finding>) {
    let known = SeqIndex::new(log);
    let mut seen = HashSet::new();
    for idx in log.indices() {
        let Some(sources) = log.sources(idx) else {
            continue;
        };
        let e = log.event(idx);
        let line = line_of(log, idx);
        if !log.is_eligible(idx) {
            out.push(
                Finding::new(
                    Rule::ProvenanceOnNonSurfaceEvent,
                    Some(e.seq),
                    line,
                    format!(
                        "{} cannot carry sourceEventSeqs (not a surface event)",
                        log.type_name(idx)
                    ),
                )
                .with_severity(era.severity_from(Era::SurfaceMerge)),
            );
        }
        if sources.is_empty() && log.event_type(idx) != EventType::AssistantMessage {
            out.push(Finding::new(
                Rule::ProvenanceEmpty,
                Some(e.seq),
                line,
                "sourceEventSeqs is empty",
            ));
        }
        // The harness writes increasing lists: those have no repeats to look for.
        let increasing = sources.windows(2).all(|w| w[0] < w[1]);
        seen.clear();
        for &s in sources.iter().filter(|_| !increasing) {
            if !seen.insert(s) {
                out.push(Finding::new(
                    Rule::ProvenanceDuplicate,
                    Some(e.seq),
                    line,
                    format!("sourceEventSeqs lists seq {s} more than once"),
                ));
            }
        }
        seen.clear();
        for &s in sources {
            if !increasing && !seen.insert(s) {
                continue;
            }
            if s >= e.seq {
                out.push(Finding::new(
                    Rule::ProvenanceForward,
                    Some(e.seq),
                    line,
                    format!(
                        "source seq {s} is not earlier than the event's own seq {}",
                        e.seq
                    ),
                ));
            }
            if !known.contains(s) {
                out.push(Finding::new(
                    Rule::ProvenanceUnknown,
                    Some(e.seq),
                    line,
                    format!("source seq {s} is not the seq of any event in the log"),
                ));
            }
        }
    }
}

fn surface_findings(
    log: &EventLog,
    surface: &Surface,
    era: Era,
    marking: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let legacy_marking = marking.filter(|_| surface.mode() == Mode::Legacy);
    for idx in log.indices() {
        let at = At {
            seq: Some(log.event(idx).seq),
            line: line_of(log, idx),
        };
        let op = log.op(idx);
        if let SurfaceOp::Replace { start, end } = op {
            numeric_order_finding(start, end, era, at, out);
        }
        let Some(effect) = surface.effect(idx) else {
            continue;
        };
        // Rules the E2 harness already stated (at load, or in its invariants package).
        let since_e2 = era.severity_from(Era::SurfaceMerge);
        match effect {
            Effect::Rejected(reason) => rejected_findings(log, idx, op, reason, era, at, out),
            Effect::MissingOp => out.push(
                Finding::new(
                    Rule::MissingOp,
                    at.seq,
                    at.line,
                    format!(
                        "{} has no surfaceOp in a surface-mode log; it is not on the surface",
                        log.type_name(idx)
                    ),
                )
                .with_severity(since_e2),
            ),
            Effect::Replaced(_) => replaced_findings(log, surface, idx, era, at, out),
            Effect::Appended => {
                if let Some(why) = legacy_marking {
                    out.push(
                        Finding::new(
                            Rule::MissingOp,
                            at.seq,
                            at.line,
                            format!(
                                "{} has no surfaceOp, but this log's harness marks every surface event ({why}) and refuses an unmarked log; shown in legacy mode",
                                log.type_name(idx)
                            ),
                        )
                        .with_severity(since_e2),
                    );
                }
            }
            Effect::LogOnly => {}
        }
    }
}

/// Where a finding of one event points: its seq and its line.
#[derive(Clone, Copy)]
struct At {
    seq: Option<u64>,
    line: Option<u32>,
}

/// `surface.replace.numeric-order` for a well-formed replace with start > end, applied or not
/// (docs/check.md#fine-print, item 5), in a log judged ADR or surface-merge era only: their
/// dev-mode invariants checked numeric order, while mid-July and HEAD write a head-anchored
/// fold (a newer summary as the range's start) by design.
fn numeric_order_finding(start: u64, end: u64, era: Era, at: At, out: &mut Vec<Finding>) {
    if start > end && era <= Era::SurfaceMerge {
        out.push(Finding::new(
            Rule::NumericOrder,
            at.seq,
            at.line,
            format!("replace start {start} is numerically greater than end {end}"),
        ));
    }
}

/// The findings of an op the surface rejected, by its reason.
fn rejected_findings(
    log: &EventLog,
    idx: EventIdx,
    op: SurfaceOp,
    reason: RejectReason,
    era: Era,
    at: At,
    out: &mut Vec<Finding>,
) {
    let (start, end) = match op {
        SurfaceOp::Replace { start, end } => (start, end),
        _ => (0, 0),
    };
    let msg = reason.describe(start, end);
    let finding = |rule, message| Finding::new(rule, at.seq, at.line, message);
    match reason {
        RejectReason::Malformed(MalformedOp::ExtraKeys) => out.push(
            finding(
                Rule::OpMalformed,
                format!(
                    "{msg} ({}); the HEAD harness refuses it, older ones ignored the key; not applied",
                    extra_op_keys(log, idx).join(", ")
                ),
            )
            .with_severity(era.severity_from(Era::Head)),
        ),
        RejectReason::Malformed(_) => out.push(finding(Rule::OpMalformed, msg)),
        RejectReason::EndpointsOff { start_off, end_off } => {
            if start_off {
                out.push(finding(
                    Rule::StartNotOnSurface,
                    format!("replace start seq {start} is not on the surface"),
                ));
            }
            if end_off {
                out.push(finding(
                    Rule::EndNotOnSurface,
                    format!("replace end seq {end} is not on the surface"),
                ));
            }
        }
        RejectReason::OutOfOrder => out.push(finding(Rule::OutOfOrder, msg)),
        RejectReason::NotEligible => out.push(
            finding(
                Rule::OpOnNonSurfaceEvent,
                format!(
                    "{} cannot carry surfaceOp (not a surface event); not applied",
                    log.type_name(idx)
                ),
            )
            .with_severity(era.severity_from(Era::SurfaceMerge)),
        ),
        // Already reported as seq.not-increasing.
        RejectReason::SeqNotIncreasing => {}
    }
}

/// The findings of an applied replace: the shadowed nodes its provenance misses, and a tool
/// result it rewrote.
fn replaced_findings(
    log: &EventLog,
    surface: &Surface,
    idx: EventIdx,
    era: Era,
    at: At,
    out: &mut Vec<Finding>,
) {
    let Some(rep) = surface.replace_of(idx) else {
        return;
    };
    if !rep.missing_sources.is_empty() {
        out.push(
            Finding::new(
                Rule::ProvenanceIncomplete,
                at.seq,
                at.line,
                format!(
                    "sourceEventSeqs does not include every shadowed node; missing {:?}",
                    rep.missing_sources
                ),
            )
            .with_severity(era.severity_from(Era::SurfaceMerge)),
        );
    }
    if let Some(rewrite) = rewrite_of(log, surface, idx, rep) {
        out.push(
            Finding::new(
                Rule::ToolResultRewrite,
                at.seq,
                at.line,
                rewrite.describe(log),
            )
            .with_severity(era.severity_from(Era::Head)),
        );
    }
}

/// The keys of an event's `surfaceOp` object besides `op`, `start` and `end` (rare: read on
/// demand).
fn extra_op_keys(log: &EventLog, idx: EventIdx) -> Vec<String> {
    let value = read_value(&log.event_json(idx)).unwrap_or(Value::Null);
    value
        .get("surfaceOp")
        .and_then(Value::as_object)
        .map(|op| {
            op.keys()
                .filter(|k| !matches!(k.as_str(), "op" | "start" | "end"))
                .map(|k| format!("{k:?}"))
                .collect()
        })
        .unwrap_or_default()
}

/// How an applied `tool/result` replace (a prune) breaks docs/parity.md.
#[derive(Clone, Debug, PartialEq)]
pub enum Rewrite {
    /// It shadows other than exactly one node.
    NotOneNode {
        /// Seqs of the shadowed nodes.
        shadowed: Vec<u64>,
    },
    /// Its one shadowed node is not a `tool/result`.
    NotAToolResult {
        /// The shadowed node.
        node: EventIdx,
    },
    /// Its `data` differs from the original's outside the first `tool-result` block's content.
    DataChanged {
        /// The shadowed original.
        original: EventIdx,
        /// The original's `data`.
        original_data: Value,
        /// The replacement's `data`.
        replacement_data: Value,
        /// Where they differ.
        diff: DataDiff,
    },
}

impl Rewrite {
    /// A human sentence for the finding.
    pub fn describe(&self, log: &EventLog) -> String {
        match self {
            Rewrite::NotOneNode { shadowed } => format!(
                "a tool/result replace (a prune) must shadow exactly one node; this one shadows {} {shadowed:?}",
                shadowed.len()
            ),
            Rewrite::NotAToolResult { node } => format!(
                "a tool/result replace (a prune) must shadow a tool/result; seq {} is a {}",
                log.event(*node).seq,
                log.type_name(*node)
            ),
            Rewrite::DataChanged { original, diff, .. } => {
                let mut parts: Vec<String> =
                    diff.entries.iter().take(5).map(|e| e.describe()).collect();
                if diff.total > parts.len() {
                    parts.push(format!("{} more", diff.total - parts.len()));
                }
                format!(
                    "the prune's data differs from seq {}'s beyond the tool-result content: {}",
                    log.event(*original).seq,
                    parts.join(", ")
                )
            }
        }
    }
}

/// How the applied replace carried by event `idx` breaks the prune rule, if it is a
/// `tool/result` and does. `None` when the rule holds, the event is not a `tool/result`
/// replace, or a `data` cannot be compared (no readable tool result: `message.shape` reports
/// that).
pub fn tool_result_rewrite(log: &EventLog, surface: &Surface, idx: EventIdx) -> Option<Rewrite> {
    rewrite_of(log, surface, idx, surface.replace_of(idx)?)
}

fn rewrite_of(
    log: &EventLog,
    surface: &Surface,
    idx: EventIdx,
    rep: &AppliedReplace,
) -> Option<Rewrite> {
    if log.event_type(idx) != EventType::ToolResult {
        return None;
    }
    let shadowed = surface.shadowed_nodes(rep);
    let [node] = shadowed else {
        return Some(Rewrite::NotOneNode {
            shadowed: shadowed.iter().map(|&n| log.event(n).seq).collect(),
        });
    };
    if log.event_type(*node) != EventType::ToolResult {
        return Some(Rewrite::NotAToolResult { node: *node });
    }
    let data = |i: EventIdx| -> Option<Value> {
        match read_value(&log.event_json(i)).ok()? {
            Value::Object(mut map) => map.remove("data"),
            _ => None,
        }
    };
    let (original_data, replacement_data) = (data(*node)?, data(idx)?);
    prunable_content(&original_data)?;
    let diff = diff_pruned(&original_data, &replacement_data);
    (!diff.is_equal()).then_some(Rewrite::DataChanged {
        original: *node,
        original_data,
        replacement_data,
        diff,
    })
}
