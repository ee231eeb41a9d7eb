//! One replace shown in full: the replacement's text beside the text of every node it
//! shadowed, with the byte spans of its lost terms — what the CLI's HTML report and the GUI's
//! before | after view both draw.

use std::collections::HashSet;
use std::ops::Range;

use super::model::ReplaceAudit;
use super::terms::spans_where;
use super::text::node_text;
use surface_engine::{EventIdx, EventLog};

/// The text of one shadowed node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShadowedText {
    /// The node.
    pub node: EventIdx,
    /// Its seq.
    pub seq: u64,
    /// Its type.
    pub type_name: String,
    /// Its text (see [`node_text`]).
    pub text: String,
    /// Where the replace's lost terms occur in `text`.
    pub lost_spans: Vec<Range<usize>>,
}

/// A replace's text beside what it shadowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detail {
    /// The replacement's text.
    pub replacement: String,
    /// Each shadowed node's text, in surface order.
    pub shadowed: Vec<ShadowedText>,
}

/// The [`Detail`] of an audited replace (O(its nodes' text)); `audit` is one of `log`'s (nodes
/// of another log past this one's end are left out).
pub fn detail(log: &EventLog, audit: &ReplaceAudit) -> Detail {
    let lost: HashSet<&str> = audit.lost_terms.iter().map(|t| t.term.as_str()).collect();
    let shadowed = audit
        .shadowed_nodes
        .iter()
        .filter(|node| node.get() < log.len())
        .map(|&node| {
            let text = node_text(log, node).text;
            let lost_spans = if lost.is_empty() {
                Vec::new()
            } else {
                spans_where(&text, |t| lost.contains(t))
            };
            ShadowedText {
                node,
                seq: log.event(node).seq,
                type_name: log.type_name(node).to_string(),
                text,
                lost_spans,
            }
        })
        .collect();
    Detail {
        replacement: node_text(log, audit.event).text,
        shadowed,
    }
}
