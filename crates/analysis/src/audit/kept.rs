//! The fidelity pass that follows the audit's walk through the log: at each summary or prune,
//! the facts of what it shadowed and whether its text holds each; after it, while it stands
//! (until a later replace shadows it), the first tool call, tool result or user message whose
//! text yields the same fact marks that fact needed.

use std::collections::HashMap;

use super::facts::{collapse_into, for_each_fact};
use super::fidelity::{FactRecord, Fidelity};
use surface_engine::{EventIdx, KeyMap};

/// The facts of every audited replace and the ones still watched for a later need.
#[derive(Debug, Default)]
pub struct KeptFacts {
    /// Per replace (by position in the audit): its facts.
    records: Vec<Vec<FactRecord>>,
    /// Per replace: whether its replacement is still on the surface.
    standing: Vec<bool>,
    /// The replacement node of each measured replace → its position.
    replacements: KeyMap<u32, usize>,
    /// Fact text → the `(replace, fact)` pairs waiting for it.
    watched: HashMap<Box<str>, Vec<(u32, u32)>>,
    /// The distinct facts of the shadowed text being read, and their positions.
    seen: HashMap<String, usize>,
    /// The facts the summary being read yields.
    summary_facts: HashMap<String, ()>,
    /// The summary's text with its whitespace collapsed.
    summary_text: String,
}

impl KeptFacts {
    /// Reserves the slot of the replace at `position` (one per audited replace, in order).
    pub fn open(&mut self, position: usize) {
        while self.records.len() <= position {
            self.records.push(Vec::new());
            self.standing.push(false);
        }
    }

    /// The node `node` left the surface: a replacement among them no longer stands, and its
    /// facts are no longer watched.
    pub fn shadowed(&mut self, node: EventIdx) {
        let Some(position) = self.replacements.remove(&node.0) else {
            return;
        };
        self.standing[position] = false;
        for record in self.records[position]
            .iter()
            .filter(|r| r.needed_by.is_none())
        {
            if let Some(waiting) = self.watched.get_mut(record.text.as_str()) {
                waiting.retain(|&(r, _)| r as usize != position);
                if waiting.is_empty() {
                    self.watched.remove(record.text.as_str());
                }
            }
        }
    }

    /// Starts reading the shadowed text of the replace at `position`.
    pub fn begin(&mut self, position: usize) {
        self.open(position);
        self.seen.clear();
    }

    /// Adds the facts of one shadowed node's `text` to the replace at `position`.
    pub fn shadowed_text(&mut self, position: usize, text: &str) {
        let records = &mut self.records[position];
        let seen = &mut self.seen;
        for_each_fact(text, |kind, fact| {
            if !seen.contains_key(fact) {
                seen.insert(fact.to_string(), records.len());
                records.push(FactRecord {
                    kind,
                    text: fact.to_string(),
                    survived: false,
                    needed_by: None,
                    needed_seq: None,
                });
            }
        });
    }

    /// Judges the facts of the replace at `position` against its replacement node `node`, whose
    /// text is `summary`, and starts watching them.
    pub fn summary(&mut self, position: usize, node: EventIdx, summary: &str) {
        self.summary_facts.clear();
        let facts = &mut self.summary_facts;
        for_each_fact(summary, |_, fact| {
            facts.insert(fact.to_string(), ());
        });
        collapse_into(summary, &mut self.summary_text);
        for (k, record) in self.records[position].iter_mut().enumerate() {
            record.survived = self.summary_facts.contains_key(&record.text)
                || holds(&self.summary_text, &record.text);
            self.watched
                .entry(record.text.as_str().into())
                .or_default()
                .push((position as u32, k as u32));
        }
        self.standing[position] = true;
        self.replacements.insert(node.0, position);
    }

    /// Whether any fact waits for a need (when none does, later texts need not be read).
    pub fn watching(&self) -> bool {
        !self.watched.is_empty()
    }

    /// A tool call, tool result or user message `event` (seq `seq`) with text `text`: the
    /// facts it yields are needed by every standing replace that watched them.
    pub fn source(&mut self, event: EventIdx, seq: u64, text: &str) {
        if self.watched.is_empty() {
            return;
        }
        let (watched, records, standing) = (&mut self.watched, &mut self.records, &self.standing);
        for_each_fact(text, |_, fact| {
            let Some(waiting) = watched.remove(fact) else {
                return;
            };
            for (r, k) in waiting {
                let record = &mut records[r as usize][k as usize];
                if standing[r as usize] && record.needed_by.is_none() {
                    record.needed_by = Some(event);
                    record.needed_seq = Some(seq);
                }
            }
        });
    }

    /// The fidelity of every replace, by position.
    pub fn finish(self) -> Vec<Fidelity> {
        self.records.into_iter().map(Fidelity::of).collect()
    }
}

/// Whether `text` holds `fact` with nothing of a word glued to either end (`parse` is not in
/// `parse_amount`; `src/a.rs` is in `src/a.rs:14`).
pub fn holds(text: &str, fact: &str) -> bool {
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(fact).any(|(k, _)| {
        !glued(text[..k].chars().next_back()) && !glued(text[k + fact.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::facts::FactKind;

    #[test]
    fn a_fact_is_held_at_word_boundaries() {
        assert!(holds("see src/a.rs:14 now", "src/a.rs"));
        assert!(holds("修改了src/a.rs中", "src/a.rs"));
        assert!(!holds("parse_amount", "parse"));
        assert!(!holds("E03080", "E0308"));
        assert!(holds(
            "cargo test parses_negative_amounts -q",
            "cargo test parses_negative_amounts"
        ));
    }

    #[test]
    fn needed_while_the_summary_stands_and_not_after() {
        let mut kept = KeptFacts::default();
        kept.begin(0);
        kept.shadowed_text(0, "read src/a.rs and src/b.rs; took 340 ms");
        kept.summary(0, EventIdx(5), "fixed src/a.rs");
        kept.source(EventIdx(6), 60, "cat src/b.rs");
        // The summary is shadowed: what comes after does not need its facts.
        kept.shadowed(EventIdx(5));
        assert!(!kept.watching());
        kept.source(EventIdx(7), 70, "340ms again");
        let f = &kept.finish()[0];
        let by = |t: &str| f.facts.iter().find(|r| r.text == t).unwrap().clone();
        assert!(by("src/a.rs").survived && by("src/a.rs").needed_by.is_none());
        assert_eq!(by("src/b.rs").needed_seq, Some(60));
        assert!(!by("340ms").survived && by("340ms").needed_by.is_none());
        assert_eq!(f.kinds.get(FactKind::Path).needed_lost, 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Survived and needed are parts of the facts, needed and lost a part of the needed,
        /// over texts drawn from pieces of every kind.
        #[test]
        fn survived_and_needed_lost_are_parts_of_the_whole(
            shadowed in PIECES,
            summary in PIECES,
            later in proptest::collection::vec(PIECES, 0..4),
        ) {
            let mut kept = KeptFacts::default();
            kept.begin(0);
            kept.shadowed_text(0, &shadowed);
            kept.summary(0, EventIdx(1), &summary);
            for (k, text) in later.iter().enumerate() {
                kept.source(EventIdx(2 + k as u32), 2 + k as u64, text);
            }
            let f = &kept.finish()[0];
            for (_, k) in f.kinds.iter() {
                proptest::prop_assert!(k.survived <= k.facts);
                proptest::prop_assert!(k.needed_lost <= k.needed && k.needed <= k.facts);
            }
            proptest::prop_assert!(f.fidelity.is_none_or(|x| (0.0..=1.0).contains(&x)));
        }
    }

    /// Texts of facts of every kind and plain words, in any order.
    const PIECES: &str = "((src/a.rs|C:\\\\x\\\\b.rs|parse_amount|E0308|1.87s|340 ms|https://x.io/y|bash\n|cargo test x|error: boom|FAILED|word|[ \n])){0,12}";
}
