//! Where one model request first differs from the one before it (docs/cost.md), and why:
//! the first of another route, system prompt, tool list, a compaction's replacement, an
//! earlier message edited, a message inserted, or none (append-only growth).

use serde::Serialize;

use crate::audit::ReplaceKind;

/// Why a request's prefix stopped matching the previous request's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cause {
    /// Another provider/model route: no cache carries over.
    Model,
    /// The system prompt differs.
    System,
    /// The tool list differs.
    Tools,
    /// A compaction's replacement node stands at the first change.
    Replace,
    /// An earlier message's content differs, with no compaction there.
    Edit,
    /// A message stands before one the previous request held at that place.
    Insert,
    /// The previous request is a prefix of this one.
    None,
}

impl Cause {
    /// Every cause, in the order they are looked for.
    pub const ALL: [Cause; 7] = [
        Cause::Model,
        Cause::System,
        Cause::Tools,
        Cause::Replace,
        Cause::Edit,
        Cause::Insert,
        Cause::None,
    ];

    /// The cause's name, as the JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Model => "model",
            Cause::System => "system",
            Cause::Tools => "tools",
            Cause::Replace => "replace",
            Cause::Edit => "edit",
            Cause::Insert => "insert",
            Cause::None => "none",
        }
    }
}

/// Which part of a request a position lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Block {
    /// The system prompt (index 0).
    System,
    /// The tool list (index: the first tool that differs).
    Tools,
    /// The messages (index: the first message that differs).
    Message,
}

impl Block {
    /// `"system"`, `"tools"` or `"message"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Block::System => "system",
            Block::Tools => "tools",
            Block::Message => "message",
        }
    }
}

/// A position in a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Position {
    /// The part.
    pub block: Block,
    /// The index inside the part.
    pub index: usize,
    /// The seq of this request's message at `index` (`null` outside the messages, or past
    /// this request's end).
    pub seq: Option<u64>,
}

/// The first change of a request against the previous one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FirstChange {
    /// Why.
    pub cause: Cause,
    /// Where.
    pub at: Position,
    /// The replacing event's seq (cause `replace`).
    pub replace_seq: Option<u64>,
    /// The compaction's kind (cause `replace`).
    #[serde(serialize_with = "kind_name")]
    pub replace_kind: Option<ReplaceKind>,
}

fn kind_name<S: serde::Serializer>(kind: &Option<ReplaceKind>, s: S) -> Result<S::Ok, S::Error> {
    match kind {
        Some(k) => s.serialize_str(k.as_str()),
        None => s.serialize_none(),
    }
}

impl FirstChange {
    /// A change in the header part `block` (no replace).
    pub fn in_header(cause: Cause, block: Block, index: usize) -> Self {
        FirstChange {
            cause,
            at: Position {
                block,
                index,
                seq: None,
            },
            replace_seq: None,
            replace_kind: None,
        }
    }

    /// `cause` at message `index`, whose message in this request has `seq`.
    pub fn in_messages(cause: Cause, index: usize, seq: Option<u64>) -> Self {
        FirstChange {
            cause,
            at: Position {
                block: Block::Message,
                index,
                seq,
            },
            replace_seq: None,
            replace_kind: None,
        }
    }

    /// A sentence for the change: "tools changed at tool 2", "replace by summary seq 40 at
    /// message 3", "append-only growth".
    pub fn describe(&self) -> String {
        match self.cause {
            Cause::None => "append-only growth".to_string(),
            Cause::Model => "another model route".to_string(),
            Cause::System => "the system prompt changed".to_string(),
            Cause::Tools => format!("the tools changed at tool {}", self.at.index),
            Cause::Replace => format!(
                "replaced by {} seq {} at message {}",
                self.replace_kind
                    .map_or("a compaction", ReplaceKind::as_str),
                self.replace_seq.unwrap_or_default(),
                self.at.index
            ),
            Cause::Edit => format!("message {} edited", self.at.index),
            Cause::Insert => format!("a message inserted at message {}", self.at.index),
        }
    }
}
