//! Content blocks read from an event's JSON bytes in one forward scan: each block's price and
//! whether it is a tool call, and the envelope heads the scans start from.

use super::price::OVERHEAD;
use super::scan::{Head, Literal, Scanner, once};
use super::utf16::ceil4;

/// A string member's UTF-16 length, or `None` inside when the member is not a string.
pub(super) fn string_or_skip(s: &mut Scanner<'_>) -> Option<Option<usize>> {
    if s.peek()? == b'"' {
        s.string_len().map(Some)
    } else {
        s.skip().map(|()| None)
    }
}

/// A block the fast path priced: its exact JSON text, so that the same text met again (a
/// `block-end` chunk repeating a message's block) is priced by comparing bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known<'a> {
    raw: &'a [u8],
    price: u64,
    tool_call: bool,
}

/// A block's price and whether it is a tool call, for a block of a known type whose fields
/// have their JSON types; `None` otherwise (the caller falls back).
pub(super) fn block(s: &mut Scanner<'_>) -> Option<(u64, bool)> {
    let mut kind: Option<&[u8]> = None;
    let (mut text, mut name, mut arguments) = (None, None, None);
    let mut content: Option<Option<u64>> = None;
    s.object(|s, key| match key {
        b"type" => once(&mut kind, s.plain_string()?),
        b"text" => once(&mut text, string_or_skip(s)?),
        b"name" => once(&mut name, string_or_skip(s)?),
        b"arguments" => once(&mut arguments, string_or_skip(s)?),
        b"content" => once(&mut content, blocks_or_skip(s)?),
        _ => s.skip(),
    })?;
    let price = match kind? {
        b"text" | b"reasoning" => ceil4(text.flatten()?),
        b"tool-call" => ceil4(name.flatten()?) + ceil4(arguments.flatten()?),
        b"tool-result" => content.flatten()?,
        _ => return None,
    };
    Some((price + OVERHEAD, kind == Some(b"tool-call")))
}

/// A block met again: priced by its text when it equals a known block, else scanned.
pub(super) fn block_or_known(s: &mut Scanner<'_>, known: &[Known<'_>]) -> Option<(u64, bool)> {
    match known_block_at(s.rest(), 0, known) {
        Some((priced, end)) => {
            s.advance(end);
            Some(priced)
        }
        None => block(s),
    }
}

impl Known<'_> {
    /// Whether the block is a `tool-call` block.
    pub(super) fn is_tool_call(&self) -> bool {
        self.tool_call
    }
}

/// The price of the known block `bytes` hold at `at` (the first of `known` they start with),
/// and the position after it.
pub(super) fn known_block_at(
    bytes: &[u8],
    at: usize,
    known: &[Known<'_>],
) -> Option<((u64, bool), usize)> {
    let rest = bytes.get(at..)?;
    let k = known.iter().find(|k| rest.starts_with(k.raw))?;
    Some(((k.price, k.tool_call), at + k.raw.len()))
}

/// An array of known blocks: the blocks with their text, and the sum of their prices.
pub(super) fn blocks<'a>(s: &mut Scanner<'a>) -> Option<(Vec<Known<'a>>, u64)> {
    let (mut list, mut sum) = (Vec::new(), 0u64);
    s.array(|s| {
        let ((price, tool_call), raw) = s.consumed(block)?;
        sum += price;
        list.push(Known {
            raw,
            price,
            tool_call,
        });
        Some(())
    })
    .map(|()| (list, sum))
}

/// A `content` member priced as blocks when it is an array of known blocks; `None` inside
/// when it is anything else (then skipped).
pub(super) fn blocks_or_skip(s: &mut Scanner<'_>) -> Option<Option<u64>> {
    if s.peek()? == b'['
        && let Some((_, sum)) = s.attempt(blocks)
    {
        return Some(Some(sum));
    }
    s.skip().map(|()| None)
}

/// How the harness writes an event up to its `data` (see [`Scanner::member`]).
pub(super) const ENVELOPE_HEAD: Head = Head::new(
    &[
        Literal::new(br#"{"type":"#),
        Literal::new(br#","seq":"#),
        Literal::new(br#","time":"#),
        Literal::new(br#","data":"#),
    ],
    b"data",
);

/// How the harness writes a stream chunk's `data` up to its `chunk`.
pub(super) const CHUNK_HEAD: Head = Head::new(
    &[
        Literal::new(br#"{"turn":"#),
        Literal::new(br#","step":"#),
        Literal::new(br#","chunk":"#),
    ],
    b"chunk",
);
