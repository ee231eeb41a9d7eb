//! What the audit's walk reads of the log — each node's text and answered call, and the terms
//! and facts of every node a replace can still shadow — as a pure function of the log and the
//! surface, cut into blocks of consecutive events. The walk takes the blocks in order
//! ([`super::AuditWalk`]); [`super::audit`] reads each as the walk reaches it, and a shell may
//! read the next on another core while the walk takes in the last (`surface-passes`'
//! `audit_read_ahead`): the audit is the same either way.

use std::ops::Range;

use super::answered::answered_call;
use super::facts::{FactKind, Found, for_each_term_and_fact};
use super::terms::{Term, TermClass};
use super::text::node_text_into;
use surface_engine::compactions::Scan;
use surface_engine::{Effect, EventIdx, EventLog, EventType, Surface, TypeId};

/// The most events in one block.
const BLOCK_EVENTS: u32 = 4096;
/// A block ends after the node whose text takes it past this many bytes (blocks read ahead
/// stay a few MiB however long the texts).
const BLOCK_TEXT_BYTES: usize = 1 << 20;

/// Which events the audit's walk reads, and how much of each.
pub struct AuditReading<'a> {
    pub(super) log: &'a EventLog,
    pub(super) surface: &'a Surface,
    /// Whether lost terms and facts are read (else only answered calls).
    pub(super) with_terms: bool,
    /// Nodes from here on enter after the last replace op: none can be lost by one.
    terms_until: u32,
    /// The events the walk visits: the surface's processed prefix.
    pub(super) events: u32,
    tool_result: Option<TypeId>,
    user: Option<TypeId>,
}

/// How much of one event the walk reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Depth {
    /// Only the call a tool result answers.
    Call,
    /// The text and the answered call.
    Text,
    /// The text, the answered call, the terms and the facts.
    Found,
}

/// What was read of one event.
#[derive(Debug)]
struct NodeRead {
    event: u32,
    call_id: Option<String>,
    /// Its text, in the block's `text`.
    text: Range<u32>,
    /// Its terms and facts, in the block's `found`; `None` when they were not read.
    found: Option<Range<u32>>,
}

/// One term or fact, by its place in the block's texts.
#[derive(Clone, Debug)]
enum FoundAt {
    /// A salient term: its span in the block's `text`.
    Term(Range<u32>, TermClass, Option<FactKind>),
    /// A fact that is not a term's own text: its span in the block's `facts`.
    Fact(FactKind, Range<u32>),
}

/// What the walk reads of a run of consecutive events, in order.
#[derive(Debug, Default)]
pub struct NodeReads {
    /// The block's events: `start..end`.
    pub(super) start: u32,
    pub(super) end: u32,
    nodes: Vec<NodeRead>,
    text: String,
    found: Vec<FoundAt>,
    facts: String,
}

/// One event's reading, as the walk takes it.
pub(super) struct NodeView<'r> {
    reads: &'r NodeReads,
    node: &'r NodeRead,
}

impl<'a> AuditReading<'a> {
    /// The reading of an audit of `log` (with `surface` processed to the end and `scan` its
    /// compaction brackets), with or without the lost terms and facts.
    pub fn new(log: &'a EventLog, surface: &'a Surface, scan: &Scan, with_terms: bool) -> Self {
        let terms_until = match with_terms {
            true => scan.links.last().map_or(0, |(i, _)| i.0 + 1),
            false => 0,
        };
        AuditReading {
            log,
            surface,
            with_terms,
            terms_until,
            events: surface.processed().min(log.len()) as u32,
            tool_result: log.types.id_of(EventType::ToolResult),
            user: log.types.id_of(EventType::UserMessage),
        }
    }

    /// The first block (none for a log without events).
    pub fn first(&self) -> Option<NodeReads> {
        self.block_from(0)
    }

    /// The block after `block` (none after the last).
    pub fn after(&self, block: &NodeReads) -> Option<NodeReads> {
        self.block_from(block.end)
    }

    /// Every block, in order, each read as the iterator reaches it.
    pub fn blocks(&self) -> impl Iterator<Item = NodeReads> + '_ {
        std::iter::successors(self.first(), |b| self.after(b))
    }

    fn depth(&self, i: u32) -> Option<Depth> {
        let idx = EventIdx(i);
        let kind = Some(self.log.event(idx).kind);
        match self.surface.effect(idx)? {
            Effect::Appended => {
                let is_result = kind == self.tool_result;
                if !self.with_terms {
                    is_result.then_some(Depth::Call)
                } else if i < self.terms_until {
                    Some(Depth::Found)
                } else {
                    // Read for the answered call, and as a source of needed facts.
                    (is_result || kind == self.user).then_some(Depth::Text)
                }
            }
            Effect::Replaced(_) => self.with_terms.then_some(Depth::Found),
            _ => None,
        }
    }

    fn block_from(&self, start: u32) -> Option<NodeReads> {
        if start >= self.events {
            return None;
        }
        let mut reads = NodeReads {
            start,
            ..NodeReads::default()
        };
        let mut scratch = String::new();
        let mut i = start;
        while i < self.events && i - start < BLOCK_EVENTS && reads.text.len() < BLOCK_TEXT_BYTES {
            if let Some(depth) = self.depth(i) {
                reads.push(self.log, EventIdx(i), depth, &mut scratch);
            }
            i += 1;
        }
        reads.end = i;
        Some(reads)
    }
}

impl NodeReads {
    /// The block's events, in order, each with what was read of it.
    pub(super) fn events(&self) -> impl Iterator<Item = (u32, Option<NodeView<'_>>)> {
        let mut nodes = self.nodes.iter().peekable();
        (self.start..self.end).map(move |i| {
            let node = nodes.next_if(|n| n.event == i);
            (i, node.map(|node| NodeView { reads: self, node }))
        })
    }

    fn push(&mut self, log: &EventLog, idx: EventIdx, depth: Depth, scratch: &mut String) {
        let at = self.text.len() as u32;
        let call_id = match depth {
            Depth::Call => answered_call(log, idx),
            Depth::Text | Depth::Found => node_text_into(log, idx, scratch),
        };
        let found = (depth == Depth::Found).then(|| self.find(scratch, at));
        if depth != Depth::Call {
            self.text.push_str(scratch);
        }
        self.nodes.push(NodeRead {
            event: idx.0,
            call_id,
            text: at..self.text.len() as u32,
            found,
        });
    }

    /// Reads the terms and facts of `text`, which will sit at `at` in the block's text.
    fn find(&mut self, text: &str, at: u32) -> Range<u32> {
        let first = self.found.len() as u32;
        let (found, facts) = (&mut self.found, &mut self.facts);
        for_each_term_and_fact(text, |f| match f {
            Found::Term(t, kind) => {
                let span = at + t.span.start as u32..at + t.span.end as u32;
                found.push(FoundAt::Term(span, t.class, kind));
            }
            Found::Fact(kind, fact) => {
                let start = facts.len() as u32;
                facts.push_str(fact);
                found.push(FoundAt::Fact(kind, start..facts.len() as u32));
            }
        });
        first..self.found.len() as u32
    }
}

impl NodeView<'_> {
    /// The node's text.
    pub(super) fn text(&self) -> &str {
        let r = &self.node.text;
        &self.reads.text[r.start as usize..r.end as usize]
    }

    /// The call a tool result answers.
    pub(super) fn call_id(&self) -> Option<&str> {
        self.node.call_id.as_deref()
    }

    /// Whether its terms and facts were read.
    pub(super) fn has_found(&self) -> bool {
        self.node.found.is_some()
    }

    /// Calls `f` with each of its terms and facts, in the order the tokenizer met them.
    pub(super) fn for_each_found(&self, mut f: impl FnMut(Found<'_, '_>)) {
        let Some(range) = &self.node.found else {
            return;
        };
        let base = self.node.text.start as usize;
        let text = self.text();
        for found in &self.reads.found[range.start as usize..range.end as usize] {
            match found {
                FoundAt::Term(span, class, kind) => {
                    let span = span.start as usize - base..span.end as usize - base;
                    let term = Term {
                        text: &text[span.clone()],
                        span,
                        class: *class,
                    };
                    f(Found::Term(&term, *kind));
                }
                FoundAt::Fact(kind, span) => f(Found::Fact(
                    *kind,
                    &self.reads.facts[span.start as usize..span.end as usize],
                )),
            }
        }
    }
}
