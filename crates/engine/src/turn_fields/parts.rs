//! The fields the turn pass reads from an event, whichever path read them (the byte scanner,
//! the serde fast path or the lenient one), and the JSON kinds of its values.

use std::borrow::Cow;

use serde::Deserialize;

/// The JSON type of a field, told from its first byte (the text is already valid JSON).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JsonKind {
    /// The key is absent.
    #[default]
    Missing,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    pub(crate) fn of(raw: Option<&str>) -> JsonKind {
        match raw.map(|r| r.as_bytes().first().copied()) {
            None => JsonKind::Missing,
            Some(Some(b'n')) => JsonKind::Null,
            Some(Some(b't' | b'f')) => JsonKind::Bool,
            Some(Some(b'"')) => JsonKind::String,
            Some(Some(b'[')) => JsonKind::Array,
            Some(Some(b'{')) => JsonKind::Object,
            _ => JsonKind::Number,
        }
    }

    /// A short noun for messages (`a string`, `missing`, …).
    pub fn describe(self) -> &'static str {
        match self {
            JsonKind::Missing => "missing",
            JsonKind::Null => "null",
            JsonKind::Bool => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
        }
    }
}

/// The string fields read from a content block or from `data.error`.
#[derive(Deserialize, Default)]
pub(crate) struct Ids<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(crate) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) id: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    pub(crate) tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) code: Option<Cow<'a, str>>,
}

/// The string fields read from a message's `source`.
#[derive(Deserialize, Default)]
pub(crate) struct Source<'a> {
    #[serde(borrow, default)]
    pub(crate) kind: Option<Cow<'a, str>>,
    #[serde(rename = "callId", borrow, default)]
    pub(crate) call_id: Option<Cow<'a, str>>,
}

/// Everything [`super::TurnFields`] is built from, whichever path read it. Raw fields are JSON text.
pub(crate) struct Parts<'a> {
    pub(crate) data: JsonKind,
    pub(crate) turn: Option<&'a str>,
    pub(crate) step: Option<&'a str>,
    pub(crate) call_id: Option<&'a str>,
    pub(crate) trigger: Option<&'a str>,
    pub(crate) provenance: Option<&'a str>,
    /// Kind of `data.message`.
    pub(crate) message: JsonKind,
    /// `role`, `id` of the message (`data.message` when an object, else `data`).
    pub(crate) role: Option<&'a str>,
    pub(crate) id: Option<&'a str>,
    pub(crate) source: JsonKind,
    pub(crate) src: Source<'a>,
    pub(crate) content: JsonKind,
    pub(crate) blocks: Vec<Ids<'a>>,
    pub(crate) error: Ids<'a>,
}

/// `data` of the usual shape (an object whose message, source, error and content have their
/// own shapes), as either quick reader found it: raw fields are JSON text.
#[derive(Default)]
pub(crate) struct UsualData<'a> {
    pub(crate) turn: Option<&'a str>,
    pub(crate) step: Option<&'a str>,
    pub(crate) call_id: Option<&'a str>,
    pub(crate) content: Option<Vec<Ids<'a>>>,
    pub(crate) message: Option<UsualMessage<'a>>,
    pub(crate) error: Option<Ids<'a>>,
    pub(crate) trigger: Option<&'a str>,
    pub(crate) role: Option<&'a str>,
    pub(crate) id: Option<&'a str>,
    pub(crate) source: Option<Source<'a>>,
    pub(crate) provenance: Option<&'a str>,
}

/// `data.message` of the usual shape.
#[derive(Default)]
pub(crate) struct UsualMessage<'a> {
    pub(crate) role: Option<&'a str>,
    pub(crate) id: Option<&'a str>,
    pub(crate) source: Option<Source<'a>>,
    pub(crate) content: Option<Vec<Ids<'a>>>,
}

impl<'a> UsualData<'a> {
    /// The parts: "the message" is `data.message` when there is one, else `data` itself;
    /// its content falls back to `data.content`.
    pub(crate) fn into_parts(self) -> Parts<'a> {
        let has_message = self.message.is_some();
        let (role, id, source, message_content) = match self.message {
            Some(m) => (m.role, m.id, m.source, m.content),
            None => (self.role, self.id, self.source, None),
        };
        let content = message_content.or(self.content);
        let kind = |present: bool, kind: JsonKind| {
            if present { kind } else { JsonKind::Missing }
        };
        Parts {
            data: JsonKind::Object,
            turn: self.turn,
            step: self.step,
            call_id: self.call_id,
            trigger: self.trigger,
            provenance: self.provenance,
            message: kind(has_message, JsonKind::Object),
            role,
            id,
            source: kind(source.is_some(), JsonKind::Object),
            src: source.unwrap_or_default(),
            content: kind(content.is_some(), JsonKind::Array),
            blocks: content.unwrap_or_default(),
            error: self.error.unwrap_or_default(),
        }
    }
}
