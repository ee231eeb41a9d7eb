//! Lost terms (docs/audit.md): the salient terms of what a replace shadowed that occur
//! neither in the replacement nor in any other node on the surface right after it.
//!
//! The index follows the surface through the log: every node's terms are extracted once,
//! when it enters, and each term counts the surface nodes holding it. A replace takes its
//! shadowed nodes' terms out, puts the replacement's in, and the shadowed terms whose count
//! is then zero are lost — so the whole audit extracts every node's text once, and a replace
//! costs only its own nodes.

use super::model::LostTerm;
#[cfg(test)]
use super::terms::for_each_term;
use super::terms::{Term, TermClass};
use surface_engine::KeyMap;

/// One node's terms: `(term id, occurrences)`, sorted by id.
type NodeTerms = Box<[(u32, u32)]>;

/// The terms of the nodes on the surface.
#[derive(Debug, Default)]
pub struct TermIndex {
    ids: KeyMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// Per term: whether it is a bare number (ranked after the terms that name something).
    numbers: Vec<bool>,
    /// Per term: how many surface nodes hold it.
    holders: Vec<u32>,
    /// The terms of each node on the surface, by event index.
    nodes: KeyMap<u32, NodeTerms>,
    /// The term ids of the node being read, and their counts: buffers kept between nodes.
    scratch: Vec<u32>,
    counted: Vec<(u32, u32)>,
}

impl TermIndex {
    fn id(&mut self, term: &str, class: TermClass) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(term.into());
        self.numbers.push(class == TermClass::Number);
        self.ids.insert(term.into(), id);
        self.holders.push(0);
        id
    }

    /// Puts node `node`, whose text is `text`, on the surface.
    #[cfg(test)]
    pub fn add(&mut self, node: u32, text: &str) {
        for_each_term(text, |t| {
            self.push(&t);
        });
        self.commit(node);
    }

    /// One term of the node being read (the terms of a node come one by one from the walk
    /// that also reads its facts, then [`TermIndex::commit`] puts the node on the surface),
    /// and its id (none for a measured number: a fact of the fidelity measure, not a lost
    /// term).
    pub fn push(&mut self, t: &Term<'_>) -> Option<u32> {
        (t.class != TermClass::Measure).then(|| {
            let id = self.id(t.text, t.class);
            self.scratch.push(id);
            id
        })
    }

    /// Puts node `node` on the surface with the terms [`TermIndex::push`] had since the last
    /// commit.
    pub fn commit(&mut self, node: u32) {
        let mut ids = std::mem::take(&mut self.scratch);
        let mut terms = std::mem::take(&mut self.counted);
        terms.clear();
        ids.sort_unstable();
        for &id in &ids {
            match terms.last_mut() {
                Some((last, n)) if *last == id => *n += 1,
                _ => terms.push((id, 1)),
            }
        }
        for &(id, _) in &terms {
            self.holders[id as usize] += 1;
        }
        // One allocation of the exact size per node; the buffers are kept for the next.
        let kept: NodeTerms = terms.as_slice().into();
        ids.clear();
        self.scratch = ids;
        self.counted = terms;
        if let Some(old) = self.nodes.insert(node, kept) {
            self.release(&old);
        }
    }

    /// Takes node `node` off the surface, returning its terms.
    pub fn remove(&mut self, node: u32) -> Option<NodeTerms> {
        let terms = self.nodes.remove(&node)?;
        self.release(&terms);
        Some(terms)
    }

    fn release(&mut self, terms: &[(u32, u32)]) {
        for &(id, _) in terms {
            let h = &mut self.holders[id as usize];
            *h = h.saturating_sub(1);
        }
    }

    /// The terms of `shadowed` (taken off the surface before) that no surface node holds now:
    /// the terms that name something (paths, URLs, identifiers, error codes) before bare
    /// numbers, and in each group the most frequent first, then alphabetically.
    pub fn lost(&self, shadowed: &[NodeTerms]) -> Vec<LostTerm> {
        let mut counts: KeyMap<u32, u64> = KeyMap::default();
        for terms in shadowed {
            for &(id, n) in terms.iter() {
                if self.holders[id as usize] == 0 {
                    *counts.entry(id).or_default() += u64::from(n);
                }
            }
        }
        let mut lost: Vec<(bool, LostTerm)> = counts
            .into_iter()
            .map(|(id, count)| {
                let term = LostTerm {
                    term: self.names[id as usize].to_string(),
                    count,
                };
                (self.numbers[id as usize], term)
            })
            .collect();
        lost.sort_by(|(an, a), (bn, b)| {
            an.cmp(bn)
                .then_with(|| b.count.cmp(&a.count))
                .then_with(|| a.term.cmp(&b.term))
        });
        lost.into_iter().map(|(_, t)| t).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_means_kept_nowhere_on_the_surface() {
        let mut index = TermIndex::default();
        index.add(0, "read src/parse.rs and src/parse.rs, then parse_amount");
        index.add(1, "InvalidAmount in the output");
        index.add(2, "other node mentions InvalidAmount");
        // A replace shadows 0 and 1; the summary keeps parse_amount.
        let shadowed = [index.remove(0).unwrap(), index.remove(1).unwrap()];
        index.add(3, "summary: fixed parse_amount");
        let lost = index.lost(&shadowed);
        assert_eq!(
            lost,
            [LostTerm {
                term: "src/parse.rs".into(),
                count: 2
            }]
        );
        // Node 2 leaving takes the last holder of InvalidAmount with it.
        let gone = [index.remove(2).unwrap()];
        assert_eq!(index.lost(&gone)[0].term, "InvalidAmount");
        assert!(index.remove(2).is_none());
    }

    #[test]
    fn bare_numbers_rank_after_the_terms_that_name_something() {
        let mut index = TermIndex::default();
        index.add(
            0,
            "2026 2026 2026 1250 src/a.rs parse_amount parse_amount took 1.87s",
        );
        let shadowed = [index.remove(0).unwrap()];
        index.add(1, "summary");
        let lost: Vec<_> = index.lost(&shadowed).into_iter().map(|t| t.term).collect();
        assert_eq!(lost, ["parse_amount", "src/a.rs", "2026", "1250"]);
    }
}
