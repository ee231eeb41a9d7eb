//! The compactions a ledger weighs (docs/cost.md): every valid replace of kind `summary` or
//! `prune`, as the compaction audit classifies them (its bracket scan), with what the meter
//! says it saved per call, how long its replacement stayed on the surface, its summarizer call,
//! and where on the surface its change began.

use super::calls::Call;
use crate::audit::ReplaceKind;
use surface_engine::compactions::{Link, Scan};
use surface_engine::{EventIdx, EventLog, Meter, Revisit, Surface};

/// One compaction, as the ledger needs it (a what-if replay can make these up too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionFacts {
    /// The replacing event's seq.
    pub seq: u64,
    /// Summary or prune.
    pub kind: ReplaceKind,
    /// The replacing event: calls whose cursor is past it have its replacement in their prompt.
    pub event: EventIdx,
    /// The later replace that shadowed its replacement node, ending its calls.
    pub until: Option<EventIdx>,
    /// The meter's price of the shadowed nodes.
    pub shadowed_tokens: u64,
    /// The meter's price of the replacement node.
    pub replacement_tokens: u64,
    /// Its summarizer call (index into the ledger's calls).
    pub summarizer: Option<usize>,
    /// How many surface nodes preceded its first shadowed node when it was applied (`None`:
    /// not computed).
    pub position: Option<usize>,
}

impl CompactionFacts {
    /// Meter tokens every later call's prompt is smaller by: shadowed − replacement.
    pub fn saved_per_call(&self) -> i64 {
        self.shadowed_tokens as i64 - self.replacement_tokens as i64
    }

    /// Whether an agent call whose prompt was fixed at `cursor` had the replacement in it.
    pub fn seen_by(&self, cursor: usize) -> bool {
        cursor > self.event.get() && self.until.is_none_or(|u| cursor <= u.get())
    }
}

/// The compactions of a log, in log order. `summarizer_of(k)` is the index in the ledger's
/// calls of the summarizer call of bracket `k` of `scan`.
pub fn compaction_facts(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    scan: &Scan,
    summarizer_of: impl Fn(usize) -> Option<usize>,
) -> Vec<CompactionFacts> {
    let mut out: Vec<CompactionFacts> = scan
        .links
        .iter()
        .filter_map(|&(idx, link)| {
            let (kind, summarizer) = match link {
                Link::Summary(k) => (ReplaceKind::Summary, summarizer_of(k)),
                Link::Prune(_) => (ReplaceKind::Prune, None),
                Link::Other => return None,
            };
            let rep = surface.replace_of(idx)?;
            Some(CompactionFacts {
                seq: log.event(idx).seq,
                kind,
                event: idx,
                until: None,
                shadowed_tokens: surface
                    .shadowed_nodes(rep)
                    .iter()
                    .map(|&n| meter.price(n))
                    .sum(),
                replacement_tokens: meter.price(idx),
                summarizer,
                position: None,
            })
        })
        .collect();
    // A replacement's calls end at the replace that shadows it (any applied replace).
    for rep in surface.applied_replaces() {
        for node in surface.shadowed_nodes(rep) {
            if let Ok(k) = out.binary_search_by_key(node, |c| c.event) {
                out[k].until = Some(rep.by);
            }
        }
    }
    out
}

/// Fills in the surface position of the compactions `which` (indices into `facts`): how many
/// nodes preceded each one's first shadowed node just before it was applied. Revisits
/// `surface` (a processed one) at each.
pub fn fill_positions(surface: &Surface, facts: &mut [CompactionFacts], which: &[usize]) {
    if which.is_empty() {
        return;
    }
    let mut earlier = Revisit::new(surface);
    for &k in which {
        let Some(f) = facts.get_mut(k) else { continue };
        let Some(rep) = surface.replace_of(f.event) else {
            continue;
        };
        earlier.seek(f.event.get());
        f.position = earlier.nodes().position(|n| n == rep.first);
    }
}

/// Billed agent calls that had the compaction's replacement in their prompt: a call the
/// provider refused (no usage reported, e.g. a context-window finish) saved nothing, so it is
/// not counted — it stays in the ledger's calls with `reported: false`.
pub fn calls_seeing<'a>(
    facts: &'a CompactionFacts,
    agents: &'a [Call],
) -> impl Iterator<Item = &'a Call> + 'a {
    let from = agents.partition_point(|c| c.cursor <= facts.event.get());
    agents[from..]
        .iter()
        .take_while(move |c| facts.seen_by(c.cursor))
        .filter(|c| c.reported)
}
