//! The compaction warnings of `check`: the `compaction.*` findings of the bracket scan, and
//! `compaction.shadowed-mismatch` when the `shadowedSeqs` / `shadowedRange` a compaction
//! recorded are not what its replace op shadowed.

use super::brackets::{Link, Scan, scan};
use super::events::CompactionFields;
use crate::{EventIdx, EventLog, Finding, Rule, Surface, SurfaceOp};

/// Every `compaction.*` warning of `log` (`surface` processed to the end), for `check`.
pub fn compaction_findings(log: &EventLog, surface: &Surface) -> Vec<Finding> {
    let scan = scan(log, false);
    let mut out = scan.warnings.clone();
    out.extend(mismatch_findings(log, surface, &scan));
    out
}

/// `compaction.shadowed-mismatch` for every applied replace whose compaction event recorded
/// other shadowed seqs, or another range, than the op.
pub fn mismatch_findings(log: &EventLog, surface: &Surface, scan: &Scan) -> Vec<Finding> {
    let mut out = Vec::new();
    for &(idx, link) in &scan.links {
        let (event, fields) = match link {
            Link::Summary(k) => {
                let b = &scan.brackets[k];
                match b.summary {
                    Some(s) => (s, &b.summary_fields),
                    None => continue,
                }
            }
            Link::Prune(k) => (scan.prunes[k].event, &scan.prunes[k].fields),
            Link::Other => continue,
        };
        let Some(rep) = surface.replace_of(idx) else {
            continue;
        };
        let actual: Vec<u64> = surface
            .shadowed_nodes(rep)
            .iter()
            .map(|&n| log.event(n).seq)
            .collect();
        if let Some(message) = mismatch(log, idx, fields, &actual) {
            let e = log.event(event);
            out.push(Finding::new(
                Rule::CompactionShadowedMismatch,
                Some(e.seq),
                (e.line > 0).then_some(e.line),
                message,
            ));
        }
    }
    out
}

fn mismatch(
    log: &EventLog,
    idx: EventIdx,
    fields: &CompactionFields,
    actual: &[u64],
) -> Option<String> {
    let seq = log.event(idx).seq;
    if let Some(recorded) = &fields.shadowed_seqs
        && recorded.as_slice() != actual
    {
        return Some(format!(
            "shadowedSeqs {} differ from the nodes the replace at seq {seq} shadowed, {}",
            short_list(recorded),
            short_list(actual)
        ));
    }
    if let (Some(range), SurfaceOp::Replace { start, end }) = (fields.shadowed_range, log.op(idx))
        && range != (start, end)
    {
        return Some(format!(
            "shadowedRange {}..{} differs from the replace at seq {seq}, {start}..{end}",
            range.0, range.1
        ));
    }
    None
}

/// `[1, 2, 3, … (40 seqs)]`.
fn short_list(seqs: &[u64]) -> String {
    const SHOWN: usize = 8;
    let head: Vec<String> = seqs.iter().take(SHOWN).map(u64::to_string).collect();
    if seqs.len() > SHOWN {
        format!("[{}, … ({} seqs)]", head.join(", "), seqs.len())
    } else {
        format!("[{}]", head.join(", "))
    }
}
