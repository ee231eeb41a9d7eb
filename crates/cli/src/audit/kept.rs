//! What each summary kept, as phrases every form of the audit prints: a compaction's fidelity
//! by kind of fact and its lost facts (the needed ones marked), and the session's totals.

use surface_analysis::audit::{Audit, FactKind, Fidelity, ReplaceAudit};

/// A ratio as a whole percentage, or `"–"`.
pub fn percent(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "–".to_string(), |r| format!("{:.0}%", r * 100.0))
}

/// `"kept 5 of 12 facts (42%); needed again 3, 1 of them lost; by kind: path 1/4, …"`, then
/// `"lost facts: …"` with the first `max` lost facts, the needed ones first and marked with the
/// seq that needed them (`wrap` marks up each fact). Nothing for a replace without facts.
pub fn fidelity_facts(r: &ReplaceAudit, max: usize, wrap: impl Fn(&str) -> String) -> Vec<String> {
    let f = &r.fidelity;
    let (facts, survived) = sums(f);
    if facts == 0 {
        return Vec::new();
    }
    let needed: u64 = f.kinds.iter().map(|(_, k)| k.needed).sum();
    let needed_lost: u64 = f.kinds.iter().map(|(_, k)| k.needed_lost).sum();
    let by_kind: Vec<String> = f
        .kinds
        .iter()
        .filter(|(_, k)| k.facts > 0)
        .map(|(kind, k)| format!("{} {}/{}", kind.as_str(), k.survived, k.facts))
        .collect();
    let mut out = vec![format!(
        "kept {survived} of {facts} fact{} ({}); needed again {needed} (kept {}), {needed_lost} of them lost; by kind: {}",
        super::plural(facts as usize),
        percent(f.fidelity),
        percent(f.needed_fidelity),
        by_kind.join(", ")
    )];
    let mut lost: Vec<_> = f.facts.iter().filter(|x| !x.survived).collect();
    lost.sort_by_key(|x| (x.needed_seq.is_none(), x.kind));
    if !lost.is_empty() {
        let mut parts: Vec<String> = lost
            .iter()
            .take(max)
            .map(|x| match x.needed_seq {
                Some(seq) => format!(
                    "{} {} (needed at seq {seq})",
                    x.kind.as_str(),
                    wrap(&x.text)
                ),
                None => format!("{} {}", x.kind.as_str(), wrap(&x.text)),
            })
            .collect();
        if lost.len() > max {
            parts.push(format!("… {} more", lost.len() - max));
        }
        out.push(format!("lost facts ({}): {}", lost.len(), parts.join(", ")));
    }
    out
}

/// Facts and survived facts of a compaction, over every kind.
fn sums(f: &Fidelity) -> (u64, u64) {
    f.kinds
        .iter()
        .fold((0, 0), |(a, b), (_, k)| (a + k.facts, b + k.survived))
}

/// `"what the summaries kept, by kind: path 3/40 (8%, 2 needed, 1 lost), …"`, or nothing when
/// no compaction shadowed a fact.
pub fn totals_line(a: &Audit) -> Option<String> {
    let t = &a.fidelity_totals;
    let parts: Vec<String> = FactKind::ALL
        .into_iter()
        .map(|kind| {
            let k = t.kinds.get(kind);
            format!(
                "{} {}/{} ({}, {} needed, {} of them lost)",
                kind.as_str(),
                k.survived,
                k.facts,
                percent(t.survival(kind)),
                k.needed,
                k.needed_lost
            )
        })
        .collect();
    let any = t.kinds.iter().any(|(_, k)| k.facts > 0);
    any.then(|| format!("what the summaries kept, by kind: {}", parts.join("; ")))
}

/// The session's totals as rows: `[kind, facts, survived, survival, needed, needed and lost]`.
pub fn totals_rows(a: &Audit) -> Vec<[String; 6]> {
    let t = &a.fidelity_totals;
    FactKind::ALL
        .into_iter()
        .map(|kind| {
            let k = t.kinds.get(kind);
            [
                kind.as_str().to_string(),
                k.facts.to_string(),
                k.survived.to_string(),
                percent(t.survival(kind)),
                k.needed.to_string(),
                k.needed_lost.to_string(),
            ]
        })
        .collect()
}

/// The heads of [`totals_rows`]' columns.
pub const TOTALS_HEADS: [&str; 6] = [
    "kind",
    "facts",
    "survived",
    "survival",
    "needed",
    "needed, lost",
];
