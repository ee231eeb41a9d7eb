//! `check`: every finding of viewer-spec §3 for a log, in seq order.

use std::collections::HashSet;

use super::effect::{Effect, RejectReason};
use super::event::{EventIdx, SurfaceOp};
use super::finding::{Finding, Rule};
use super::log::EventLog;
use super::problem::ProblemKind;
use super::surface::Surface;
use super::turns::scan_turns;

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

/// All findings for `log`, using `surface` processed to the end (see [`Surface::at_end`]).
pub fn check(log: &EventLog, surface: &Surface) -> Vec<Finding> {
    let mut out = Vec::new();
    problem_findings(log, &mut out);
    seq_findings(log, &mut out);
    provenance_findings(log, &mut out);
    surface_findings(log, surface, &mut out);
    out.extend(scan_turns(log).findings);
    out.extend(super::meter::meter_findings(log));
    out.extend(super::audit::audit_findings(log, surface));
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
    out
}

fn line_of(log: &EventLog, idx: EventIdx) -> Option<u32> {
    let l = log.event(idx).line;
    (l > 0).then_some(l)
}

fn problem_findings(log: &EventLog, out: &mut Vec<Finding>) {
    let turn_end = log.types.get("turn/end");
    let last_turn_end = log
        .events
        .iter()
        .rev()
        .find(|e| Some(e.kind) == turn_end && !e.is_synthesized());
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

fn seq_findings(log: &EventLog, out: &mut Vec<Finding>) {
    let mut max: Option<u64> = None;
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
        if let Some(m) = max
            && e.seq > m + 1
        {
            out.push(Finding::new(
                Rule::SeqGap,
                Some(e.seq),
                line_of(log, idx),
                format!(
                    "seq jumps from {m} to {} ({} missing)",
                    e.seq,
                    e.seq - m - 1
                ),
            ));
        }
        max = Some(e.seq);
    }
}

fn provenance_findings(log: &EventLog, out: &mut Vec<Finding>) {
    let known = SeqIndex::new(log);
    let mut seen = HashSet::new();
    for idx in log.indices() {
        let Some(sources) = log.sources(idx) else {
            continue;
        };
        let e = log.event(idx);
        let line = line_of(log, idx);
        if sources.is_empty() && log.type_name(idx) != "assistant/message" {
            out.push(Finding::new(
                Rule::ProvenanceEmpty,
                Some(e.seq),
                line,
                "sourceEventSeqs is empty",
            ));
        }
        seen.clear();
        for &s in sources {
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
            if !seen.insert(s) {
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

fn surface_findings(log: &EventLog, surface: &Surface, out: &mut Vec<Finding>) {
    for idx in log.indices() {
        let e = log.event(idx);
        let line = line_of(log, idx);
        let seq = Some(e.seq);
        let op = log.op(idx);
        let (start, end) = match op {
            SurfaceOp::Replace { start, end } => (start, end),
            _ => (0, 0),
        };
        // Spec §6.5: for every well-formed replace with start > end, applied or not.
        if let SurfaceOp::Replace { start, end } = op
            && start > end
        {
            out.push(Finding::new(
                Rule::NumericOrder,
                seq,
                line,
                format!("replace start {start} is numerically greater than end {end}"),
            ));
        }
        let Some(effect) = surface.effect(idx) else {
            continue;
        };
        match effect {
            Effect::Rejected(reason) => {
                let msg = reason.describe(start, end);
                match reason {
                    RejectReason::Malformed(_) => {
                        out.push(Finding::new(Rule::OpMalformed, seq, line, msg))
                    }
                    RejectReason::EndpointsOff { start_off, end_off } => {
                        if start_off {
                            out.push(Finding::new(
                                Rule::StartNotOnSurface,
                                seq,
                                line,
                                format!("replace start seq {start} is not on the surface"),
                            ));
                        }
                        if end_off {
                            out.push(Finding::new(
                                Rule::EndNotOnSurface,
                                seq,
                                line,
                                format!("replace end seq {end} is not on the surface"),
                            ));
                        }
                    }
                    RejectReason::OutOfOrder => {
                        out.push(Finding::new(Rule::OutOfOrder, seq, line, msg))
                    }
                    RejectReason::NotEligible => out.push(Finding::new(
                        Rule::OpOnNonSurfaceEvent,
                        seq,
                        line,
                        format!(
                            "{} cannot carry surfaceOp (not a surface event); not applied",
                            log.type_name(idx)
                        ),
                    )),
                    // Already reported as seq.not-increasing.
                    RejectReason::SeqNotIncreasing => {}
                }
            }
            Effect::MissingOp => out.push(Finding::new(
                Rule::MissingOp,
                seq,
                line,
                format!(
                    "{} has no surfaceOp in a surface-mode log; it is not on the surface",
                    log.type_name(idx)
                ),
            )),
            Effect::Replaced(_) => {
                if let Some(rep) = surface.replace_of(idx)
                    && !rep.missing_sources.is_empty()
                {
                    out.push(Finding::new(
                        Rule::ProvenanceIncomplete,
                        seq,
                        line,
                        format!(
                            "sourceEventSeqs does not include every shadowed node; missing {:?}",
                            rep.missing_sources
                        ),
                    ));
                }
            }
            Effect::LogOnly | Effect::Appended => {}
        }
    }
}
