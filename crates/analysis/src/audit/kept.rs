//! The fidelity pass that follows the audit's walk through the log: each node's facts are read
//! once, when it enters (in the walk that also reads its lost terms), and kept by id until a
//! replace shadows it; at each summary or prune, the facts of what it shadowed and whether its
//! text holds each; after it, while it stands (until a later replace shadows it), the first
//! tool call, tool result or user message whose text yields the same fact marks that fact
//! needed.

use super::facts::{FactKind, collapse_into, for_each_fact};
use super::fidelity::{FactRecord, Fidelity};
use surface_engine::{EventIdx, KeyMap};

/// One distinct fact, by id: its text and where it was last met.
#[derive(Debug)]
struct Fact {
    text: Box<str>,
    /// The number of the last node read that yields it.
    node: u32,
    /// 1 + the position of the last replace whose shadowed text yields it.
    shadowed: u32,
    /// 1 + the position of the last replace whose summary yields it.
    summary: u32,
}

/// One fact of a replace, as the pass follows it.
#[derive(Clone, Copy, Debug)]
struct Record {
    fact: u32,
    kind: FactKind,
    survived: bool,
    needed: Option<(EventIdx, u64)>,
}

/// The facts of every audited replace and the ones still watched for a later need.
#[derive(Debug, Default)]
pub struct KeptFacts {
    /// Fact text → id, and every id's fact.
    ids: KeyMap<Box<str>, u32>,
    facts: Vec<Fact>,
    /// The lost terms' term id → the id of the fact of the same text (`u32::MAX`: not met).
    by_term: Vec<u32>,
    /// The distinct facts of each surface node, in order, with the kind of their first
    /// occurrence: read once, when the node entered, and taken when a replace shadows it.
    nodes: KeyMap<u32, Box<[(u32, FactKind)]>>,
    /// The facts of the node being read, and its number.
    node: Vec<(u32, FactKind)>,
    reads: u32,
    /// Per replace (by position in the audit): its facts.
    records: Vec<Vec<Record>>,
    /// Per replace: whether its replacement is still on the surface.
    standing: Vec<bool>,
    /// The replacement node of each measured replace → its position.
    replacements: KeyMap<u32, usize>,
    /// Fact id → the `(replace, fact)` pairs waiting for it.
    watched: KeyMap<u32, Vec<(u32, u32)>>,
    /// The summary's text with its whitespace collapsed.
    summary_text: String,
}

impl KeptFacts {
    /// Reserves the slot of the replace at `position` (one per audited replace, in order,
    /// before its shadowed nodes).
    pub fn open(&mut self, position: usize) {
        while self.records.len() <= position {
            self.records.push(Vec::new());
            self.standing.push(false);
        }
    }

    /// Starts reading a node's facts ([`KeptFacts::fact`], then [`KeptFacts::keep`]).
    pub fn start(&mut self) {
        self.node.clear();
        self.reads += 1;
    }

    /// One fact of the node being read.
    pub fn fact(&mut self, kind: FactKind, fact: &str) {
        let id = self.id(fact);
        self.met(id, kind);
    }

    /// [`KeptFacts::fact`] for a fact that is the text of the lost terms' term `term`: its
    /// id is looked up by the term's, not by its text.
    pub fn term_fact(&mut self, term: u32, kind: FactKind, fact: &str) {
        let t = term as usize;
        let id = match self.by_term.get(t) {
            Some(&id) if id != u32::MAX => id,
            _ => {
                let id = self.id(fact);
                if self.by_term.len() <= t {
                    self.by_term.resize(t + 1, u32::MAX);
                }
                self.by_term[t] = id;
                id
            }
        };
        self.met(id, kind);
    }

    fn id(&mut self, fact: &str) -> u32 {
        if let Some(&id) = self.ids.get(fact) {
            return id;
        }
        let id = self.facts.len() as u32;
        self.ids.insert(fact.into(), id);
        self.facts.push(Fact {
            text: fact.into(),
            node: 0,
            shadowed: 0,
            summary: 0,
        });
        id
    }

    /// Fact `id` is in the node being read (counted once, with the kind it first has there).
    fn met(&mut self, id: u32, kind: FactKind) {
        let f = &mut self.facts[id as usize];
        if f.node != self.reads {
            f.node = self.reads;
            self.node.push((id, kind));
        }
    }

    /// Keeps the facts of the node just read as those of surface node `node`.
    pub fn keep(&mut self, node: EventIdx) {
        self.nodes.insert(node.0, self.node.as_slice().into());
    }

    /// The node `node` left the surface, shadowed by the replace at `position`: a replacement
    /// among them no longer stands, and its facts are no longer watched; when `measured`, the
    /// node's facts are the replace's.
    pub fn shadowed(&mut self, position: usize, node: EventIdx, measured: bool) {
        let facts = self.nodes.remove(&node.0).unwrap_or_default();
        if measured {
            let stamp = position as u32 + 1;
            for &(id, kind) in facts.iter() {
                let f = &mut self.facts[id as usize];
                if f.shadowed != stamp {
                    f.shadowed = stamp;
                    self.records[position].push(Record {
                        fact: id,
                        kind,
                        survived: false,
                        needed: None,
                    });
                }
            }
        }
        let Some(replaced) = self.replacements.remove(&node.0) else {
            return;
        };
        self.standing[replaced] = false;
        for record in self.records[replaced].iter().filter(|r| r.needed.is_none()) {
            if let Some(waiting) = self.watched.get_mut(&record.fact) {
                waiting.retain(|&(r, _)| r as usize != replaced);
                if waiting.is_empty() {
                    self.watched.remove(&record.fact);
                }
            }
        }
    }

    /// Judges the facts of the replace at `position` against its replacement node `node`
    /// (whose facts were kept when it entered), whose text is `summary`, and starts watching
    /// them.
    pub fn summary(&mut self, position: usize, node: EventIdx, summary: &str) {
        let stamp = position as u32 + 1;
        for &(id, _) in self.nodes.get(&node.0).into_iter().flatten() {
            self.facts[id as usize].summary = stamp;
        }
        collapse_into(summary, &mut self.summary_text);
        for (k, record) in self.records[position].iter_mut().enumerate() {
            let f = &self.facts[record.fact as usize];
            record.survived = f.summary == stamp || holds(&self.summary_text, &f.text);
            self.watched
                .entry(record.fact)
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

    /// A tool call, tool result or user message `event` (seq `seq`) whose facts are those of
    /// the node just read: they are needed by every standing replace that watched them.
    pub fn source_read(&mut self, event: EventIdx, seq: u64) {
        for k in 0..self.node.len() {
            self.needed(self.node[k].0, event, seq);
        }
    }

    /// [`KeptFacts::source_read`] for an event whose text `text` was not read as a node's.
    pub fn source(&mut self, event: EventIdx, seq: u64, text: &str) {
        if self.watched.is_empty() {
            return;
        }
        for_each_fact(text, |_, fact| {
            let id = self.ids.get(fact).copied();
            if let Some(id) = id {
                self.needed(id, event, seq);
            }
        });
    }

    /// Fact `id` was needed by `event`.
    fn needed(&mut self, id: u32, event: EventIdx, seq: u64) {
        let Some(waiting) = self.watched.remove(&id) else {
            return;
        };
        for (r, k) in waiting {
            let record = &mut self.records[r as usize][k as usize];
            if self.standing[r as usize] && record.needed.is_none() {
                record.needed = Some((event, seq));
            }
        }
    }

    /// The fidelity of every replace, by position.
    pub fn finish(self) -> Vec<Fidelity> {
        let facts = &self.facts;
        let record = |r: Record| FactRecord {
            kind: r.kind,
            text: facts[r.fact as usize].text.to_string(),
            survived: r.survived,
            needed_by: r.needed.map(|n| n.0),
            needed_seq: r.needed.map(|n| n.1),
        };
        self.records
            .into_iter()
            .map(|records| Fidelity::of(records.into_iter().map(record).collect()))
            .collect()
    }
}

/// Whether `text` holds `fact` with nothing of a word glued to either end (`parse` is not in
/// `parse_amount`; `src/a.rs` is in `src/a.rs:14`). A match of a whole UTF-8 string starts and
/// ends at character boundaries, and a byte beside it is an ASCII letter, digit or `_` only when
/// the character there is one.
pub fn holds(text: &str, fact: &str) -> bool {
    let b = text.as_bytes();
    let glued = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    memchr::memmem::find_iter(b, fact.as_bytes())
        .any(|k| !glued(k.checked_sub(1).and_then(|p| b.get(p))) && !glued(b.get(k + fact.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads node `node`'s text `text` as the audit does when the node enters.
    fn enter(kept: &mut KeptFacts, node: u32, text: &str) {
        kept.start();
        for_each_fact(text, |kind, fact| kept.fact(kind, fact));
        kept.keep(EventIdx(node));
    }

    /// A replace at `position` of nodes `shadowed` by node `node` with text `summary`.
    fn replace(kept: &mut KeptFacts, position: usize, shadowed: &[u32], node: u32, summary: &str) {
        kept.open(position);
        for &n in shadowed {
            kept.shadowed(position, EventIdx(n), true);
        }
        enter(kept, node, summary);
        kept.summary(position, EventIdx(node), summary);
    }

    #[test]
    fn a_fact_is_held_at_word_boundaries() {
        assert!(holds("see src/a.rs:14 now", "src/a.rs"));
        assert!(holds("修改了src/a.rs中", "src/a.rs"));
        assert!(!holds("parse_amount", "parse"));
        assert!(!holds("E03080", "E0308"));
        assert!(!holds("ba.a.a", "a.a"));
        assert!(holds(
            "cargo test parses_negative_amounts -q",
            "cargo test parses_negative_amounts"
        ));
    }

    #[test]
    fn needed_while_the_summary_stands_and_not_after() {
        let mut kept = KeptFacts::default();
        enter(&mut kept, 1, "read src/a.rs and src/b.rs;");
        enter(&mut kept, 2, "took 340 ms, read src/a.rs");
        replace(&mut kept, 0, &[1, 2], 5, "fixed src/a.rs");
        kept.source(EventIdx(6), 60, "cat src/b.rs");
        // The summary is shadowed: what comes after does not need its facts.
        kept.open(1);
        kept.shadowed(1, EventIdx(5), false);
        assert!(!kept.watching());
        kept.source(EventIdx(7), 70, "340ms again");
        let f = &kept.finish()[0];
        let by = |t: &str| f.facts.iter().find(|r| r.text == t).unwrap().clone();
        assert!(by("src/a.rs").survived && by("src/a.rs").needed_by.is_none());
        assert_eq!(by("src/b.rs").needed_seq, Some(60));
        assert!(!by("340ms").survived && by("340ms").needed_by.is_none());
        assert_eq!(f.kinds.get(FactKind::Path).needed_lost, 1);
        let texts: Vec<&str> = f.facts.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["src/b.rs", "340ms", "src/a.rs"]);
    }

    /// [`holds`] as `str`'s search says it: the leftmost matches that do not overlap.
    fn holds_by_str(text: &str, fact: &str) -> bool {
        let glued = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        text.match_indices(fact).any(|(k, _)| {
            !glued(text[..k].chars().next_back()) && !glued(text[k + fact.len()..].chars().next())
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The byte search finds what `str`'s does, overlapping facts and non-ASCII text
        /// included (`a.a` is not held in `ba.a.a`: its leftmost match is glued).
        #[test]
        fn holds_agrees_with_the_str_search(
            text in "(a|\\.|_|b|é|日| ){0,16}",
            fact in "(a|\\.|_|é| ){1,4}",
        ) {
            proptest::prop_assert_eq!(holds(&text, &fact), holds_by_str(&text, &fact));
        }
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
            enter(&mut kept, 0, &shadowed);
            replace(&mut kept, 0, &[0], 1, &summary);
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

    /// The facts of a replace of `shadowed` by `summary` as reading the texts at the replace
    /// says them: each shadowed text's facts in order, each once with its first kind, survived
    /// when the summary yields it or holds it.
    fn read_at_the_replace(shadowed: &[String], summary: &str) -> Vec<(FactKind, String, bool)> {
        let in_summary = crate::audit::facts::facts(summary);
        let mut collapsed = String::new();
        collapse_into(summary, &mut collapsed);
        let mut out: Vec<(FactKind, String, bool)> = Vec::new();
        for (kind, fact) in shadowed.iter().flat_map(|t| crate::audit::facts::facts(t)) {
            if !out.iter().any(|(_, f, _)| *f == fact) {
                let survived =
                    in_summary.iter().any(|(_, f)| *f == fact) || holds(&collapsed, &fact);
                out.push((kind, fact, survived));
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Facts read once per node, when it enters, are those the shadowed texts yield when
        /// read again at the replace, in the same order, with the same kinds and survival.
        #[test]
        fn facts_read_on_entry_are_those_read_at_the_replace(
            shadowed in proptest::collection::vec(PIECES, 1..4),
            summary in PIECES,
        ) {
            let mut kept = KeptFacts::default();
            for (k, text) in shadowed.iter().enumerate() {
                enter(&mut kept, k as u32, text);
            }
            let nodes: Vec<u32> = (0..shadowed.len() as u32).collect();
            replace(&mut kept, 0, &nodes, 9, &summary);
            let got: Vec<(FactKind, String, bool)> = kept.finish()[0]
                .facts
                .iter()
                .map(|r| (r.kind, r.text.clone(), r.survived))
                .collect();
            let mut want = read_at_the_replace(&shadowed, &summary);
            want.sort_by_key(|(kind, _, survived)| (*survived, *kind));
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// Texts of facts of every kind and plain words, in any order.
    const PIECES: &str = "((src/a.rs|C:\\\\x\\\\b.rs|parse_amount|E0308|1.87s|340 ms|https://x.io/y|bash\n|cargo test x|error: boom|FAILED|word|[ \n])){0,12}";
}
