//! A stream chunk read from the exact line the harness writes for it, byte by byte:
//! `{"type":"assistant/chunk","seq":1,"time":2,"data":{"turn":1,"step":1,"chunk":{"type":
//! "text-delta","index":0,"text":"…"}}}` (and `reasoning-delta`, and `tool-call-delta` with
//! `id`, an optional `name` and `argumentsDelta`), and the chunks around the deltas:
//! `block-start` with its `blockType`, `block-end` whose block is one the message repeats
//! (a [`Known`] block), `finish` with a `reason` of one `kind`, and `usage` with a flat object.
//! Most events of a large log are such lines, and the meter reads every one of them when it
//! prices the streamed messages; here each is a run of fixed literals, digit runs and one or
//! two short strings, with no masks and no key matching.
//!
//! The whole line must match, up to its last byte: the layout admits no other key, so no key
//! can repeat, and a piece read here is the one [`super::chunks`]'s scan (and the reference)
//! reads. Any other line — another chunk type, another key order, a space, a `null`, a
//! number that is not plain digits, an escape where a name is compared, a block the message
//! does not repeat — answers `None` and takes the general scan.

use super::anchor::{DeltaKind, Piece};
use super::blocks::{Known, known_block_at};
use super::scan::Literal;
use surface_scan::byte_masks::skip_digits;

const HEAD: Literal = Literal::new(br#"{"type":""#);
const CHUNK_EVENT: Literal = Literal::new(br#"assistant/chunk""#);
const SEQ: Literal = Literal::new(br#","seq":"#);
const TIME: Literal = Literal::new(br#","time":"#);
const DATA: Literal = Literal::new(br#","data":"#);
const TURN: Literal = Literal::new(br#"{"turn":"#);
const STEP: Literal = Literal::new(br#","step":"#);
const CHUNK: Literal = Literal::new(br#","chunk":"#);
const CHUNK_TYPE: Literal = Literal::new(br#"{"type":""#);
const TEXT_DELTA: Literal = Literal::new(br#"text-delta""#);
const REASONING_DELTA: Literal = Literal::new(br#"reasoning-delta""#);
const TOOL_CALL_DELTA: Literal = Literal::new(br#"tool-call-delta""#);
const INDEX: Literal = Literal::new(br#","index":"#);
const TEXT: Literal = Literal::new(br#","text":""#);
const ID: Literal = Literal::new(br#","id":""#);
const NAME: Literal = Literal::new(br#","name":""#);
// `,"argumentsDelta":"` is longer than one literal holds.
const ARGUMENTS: Literal = Literal::new(br#","arguments"#);
const DELTA: Literal = Literal::new(br#"Delta":""#);
const BLOCK_START: Literal = Literal::new(br#"block-start""#);
const BLOCK_TYPE: Literal = Literal::new(br#","blockType":""#);
const BLOCK_END: Literal = Literal::new(br#"block-end""#);
const BLOCK: Literal = Literal::new(br#","block":"#);
const FINISH: Literal = Literal::new(br#"finish","reason""#);
const REASON_KIND: Literal = Literal::new(br#":{"kind":""#);
const USAGE: Literal = Literal::new(br#"usage","usage":{"#);

/// The piece a harness-written `assistant/chunk` line carries (a `block-end` priced from
/// `known`), or `None` when the line is not exactly of one of the layouts above.
pub(super) fn chunk_line(bytes: &[u8], known: &[Known<'_>]) -> Option<Piece> {
    let mut at = CHUNK_EVENT.after(bytes, HEAD.after(bytes, 0)?)?;
    at = digits_end(bytes, SEQ.after(bytes, at)?)?;
    at = digits_end(bytes, TIME.after(bytes, at)?)?;
    at = digits_end(bytes, TURN.after(bytes, DATA.after(bytes, at)?)?)?;
    at = digits_end(bytes, STEP.after(bytes, at)?)?;
    at = CHUNK_TYPE.after(bytes, CHUNK.after(bytes, at)?)?;
    let (piece, end) = match bytes.get(at)? {
        b't' | b'r' => delta_at(bytes, at)?,
        b'b' => boundary_at(bytes, at, known)?,
        b'f' => finish_at(bytes, at)?,
        b'u' => usage_at(bytes, at)?,
        _ => return None,
    };
    // The chunk object ends at `end`; then the `data` object and the event.
    (bytes.get(end..)? == b"}}").then_some(piece)
}

/// The delta whose chunk type starts at `at`, and the position after the chunk object.
#[inline(always)]
fn delta_at(bytes: &[u8], at: usize) -> Option<(Piece, usize)> {
    let (kind, type_end) = match bytes.get(at)? {
        b't' => TEXT_DELTA
            .after(bytes, at)
            .map(|end| (DeltaKind::Text, end))
            .or_else(|| Some((DeltaKind::ToolCall, TOOL_CALL_DELTA.after(bytes, at)?)))?,
        b'r' => (DeltaKind::Reasoning, REASONING_DELTA.after(bytes, at)?),
        _ => return None,
    };
    let (index_end, index) = digits(bytes, INDEX.after(bytes, type_end)?)?;
    let mut at = index_end;
    let (len, name_len) = match kind {
        DeltaKind::ToolCall => {
            at = string_end(bytes, ID.after(bytes, at)?)?.0;
            let mut name_len = None;
            if let Some(name_at) = NAME.after(bytes, at) {
                let (end, units) = string_end(bytes, name_at)?;
                at = end;
                name_len = Some(units).filter(|&n| n > 0);
            }
            let (end, units) = string_end(bytes, DELTA.after(bytes, ARGUMENTS.after(bytes, at)?)?)?;
            at = end;
            (units, name_len)
        }
        _ => {
            let (end, units) = string_end(bytes, TEXT.after(bytes, at)?)?;
            at = end;
            (units, None)
        }
    };
    (*bytes.get(at)? == b'}').then_some((
        Piece::Delta {
            index,
            kind,
            len,
            name_len,
        },
        at + 1,
    ))
}

/// A `block-start` (its `blockType` a string without escapes) or a `block-end` whose block is
/// one of `known`, whose chunk type starts at `at`; the position after the chunk object.
fn boundary_at(bytes: &[u8], at: usize, known: &[Known<'_>]) -> Option<(Piece, usize)> {
    if let Some(type_end) = BLOCK_START.after(bytes, at) {
        let (at, index) = digits(bytes, INDEX.after(bytes, type_end)?)?;
        let (name, end) = plain_string(bytes, BLOCK_TYPE.after(bytes, at)?)?;
        let kind = DeltaKind::of_block_name(name);
        return (*bytes.get(end)? == b'}').then_some((Piece::Start { index, kind }, end + 1));
    }
    let (at, index) = digits(bytes, INDEX.after(bytes, BLOCK_END.after(bytes, at)?)?)?;
    let ((price, tool_call), end) = known_block_at(bytes, BLOCK.after(bytes, at)?, known)?;
    (*bytes.get(end)? == b'}').then_some((
        Piece::End {
            index,
            price,
            tool_call,
        },
        end + 1,
    ))
}

/// A `finish` whose `reason` is an object of one `kind`, a string without escapes, whose chunk
/// type starts at `at`; the position after the chunk object.
fn finish_at(bytes: &[u8], at: usize) -> Option<(Piece, usize)> {
    let (kind, end) = plain_string(bytes, REASON_KIND.after(bytes, FINISH.after(bytes, at)?)?)?;
    let max_tokens = kind == b"max-tokens";
    (bytes.get(end..end + 2)? == b"}}").then_some((Piece::Finish { max_tokens }, end + 2))
}

/// A `usage` chunk whose `usage` is a flat object (no brace, bracket or escape inside: a
/// valid line then has no other key after it), whose chunk type starts at `at`; the position
/// after the chunk object. It contributes nothing.
fn usage_at(bytes: &[u8], at: usize) -> Option<(Piece, usize)> {
    let body = USAGE.after(bytes, at)?;
    let close = body + memchr::memchr3(b'}', b'{', b'[', bytes.get(body..)?)?;
    let flat = !bytes[body..close].iter().any(|&b| b == b'\\' || b == b']');
    (flat && bytes.get(close..close + 2)? == b"}}").then_some((Piece::Other, close + 2))
}

/// The bytes of the string whose first byte (after its opening quote) is at `at`, when it
/// holds no escape, and the position after its closing quote.
fn plain_string(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let end = at + memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
    (bytes[end] == b'"').then(|| (&bytes[at..end], end + 1))
}

/// The position after a run of plain digits at `at` whose value is not needed (`seq`,
/// `time`, `turn`, `step`): as [`digits`] gives it, `None` when empty or past `u64`, with no
/// value summed for a run too short to pass it (19 digits or fewer).
#[inline]
fn digits_end(bytes: &[u8], at: usize) -> Option<usize> {
    const FITS_ANY: usize = 19;
    let end = skip_digits(bytes, at);
    match end.checked_sub(at)? {
        0 => None,
        1..=FITS_ANY => Some(end),
        _ => digits(bytes, at).map(|(end, _)| end),
    }
}

/// A run of plain digits at `at` (the literals around it rule out a sign, a fraction or an
/// exponent): the position after it and its value; `None` when empty or past `u64`.
fn digits(bytes: &[u8], at: usize) -> Option<(usize, u64)> {
    let end = skip_digits(bytes, at);
    let run = bytes.get(at..end).filter(|r| !r.is_empty())?;
    // The digits are tested again as they are read: a mapped line another program rewrites
    // under the reader (see `chunks::chunk_piece_with`) gives `None`, never a panic.
    let value = run.iter().try_fold(0u64, |v, &d| {
        let digit = d.wrapping_sub(b'0');
        (digit <= 9).then_some(())?;
        v.checked_mul(10)?.checked_add(u64::from(digit))
    })?;
    Some((end, value))
}

/// The string whose first byte (after its opening quote) is at `at`: the position after its
/// closing quote and its length in UTF-16 units (an escape is one unit, as a `\uD83D\uDE00`
/// pair is two; a UTF-8 sequence is one unit, or two when it starts with a 4-byte leader).
/// `None` when the string does not end or an escape is not one JSON allows. Eight bytes at a
/// time up to the next quote or backslash.
fn string_end(bytes: &[u8], mut at: usize) -> Option<(usize, usize)> {
    let mut units = 0;
    loop {
        if let Some(word) = bytes.get(at..at + 8) {
            let w = u64::from_le_bytes(word.try_into().ok()?);
            let special = byte_is(w, b'"') | byte_is(w, b'\\');
            let run = if special == 0 {
                8
            } else {
                (special.trailing_zeros() / 8) as usize
            };
            units += units_in(w, run);
            at += run;
            if special == 0 {
                continue;
            }
        }
        let b = *bytes.get(at)?;
        match b {
            b'"' => return Some((at + 1, units)),
            b'\\' => {
                at += match bytes.get(at + 1)? {
                    b'u' => 6,
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    _ => return None,
                };
                units += 1;
            }
            _ => {
                units += usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0);
                at += 1;
            }
        }
    }
}

const ONES: u64 = u64::MAX / 255;
const HIGH: u64 = ONES << 7;

/// The high bit of each byte of `w` equal to `b`, exact up to the first such byte (a borrow
/// may flag bytes above it, which the callers never look at).
#[inline(always)]
fn byte_is(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & HIGH
}

/// The UTF-16 units of the first `run` (0 to 8) bytes of `w`, none of them a quote or a
/// backslash: one per byte that does not continue a UTF-8 sequence, one more per 4-byte
/// leader.
#[inline(always)]
fn units_in(w: u64, run: usize) -> usize {
    let w = if run == 8 {
        w
    } else {
        w & ((1u64 << (8 * run)) - 1)
    };
    if w & HIGH == 0 {
        return run;
    }
    let continuation = w & !(w << 1) & HIGH;
    let four = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
    run - continuation.count_ones() as usize + four.count_ones() as usize
}

#[cfg(test)]
mod tests {
    /// Stream chunk lines as the harness writes them, built from their parts.
    mod harness_chunks {
        /// `chunk` (the JSON of a `data.chunk`) in an `assistant/chunk` event line, laid out as the
        /// harness writes it.
        pub fn chunk_event_line(chunk: &str) -> String {
            format!(
                r#"{{"type":"assistant/chunk","seq":12,"time":1786000000018,"data":{{"turn":1,"step":3,"chunk":{chunk}}}}}"#
            )
        }

        /// The JSON of a delta chunk as the harness writes it: `kind` is `text-delta`,
        /// `reasoning-delta` or `tool-call-delta`; `text` the delta (a tool call's `argumentsDelta`),
        /// `name` a tool call's name if it has one.
        pub fn delta_chunk(kind: &str, index: u64, text: &str, name: Option<&str>) -> String {
            let quoted = serde_json::to_string(text).unwrap_or_default();
            match (kind, name) {
                ("tool-call-delta", Some(name)) => format!(
                    r#"{{"type":"{kind}","index":{index},"id":"c_1","name":{},"argumentsDelta":{quoted}}}"#,
                    serde_json::to_string(name).unwrap_or_default()
                ),
                ("tool-call-delta", None) => {
                    format!(
                        r#"{{"type":"{kind}","index":{index},"id":"c_1","argumentsDelta":{quoted}}}"#
                    )
                }
                _ => format!(r#"{{"type":"{kind}","index":{index},"text":{quoted}}}"#),
            }
        }
    }

    use super::super::anchor::piece_of_chunk;
    use super::super::chunks::fast_piece;
    use super::*;
    use harness_chunks::{chunk_event_line as line, delta_chunk};
    use proptest::prelude::*;

    /// The reference: the line as a JSON tree.
    fn reference(line: &str) -> Piece {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        value["data"]
            .get("chunk")
            .map_or(Piece::Other, piece_of_chunk)
    }

    #[test]
    fn harness_deltas_are_read_from_their_literals() {
        let text = line(r#"{"type":"text-delta","index":1,"text":" pass é😀\n\u00e9"}"#);
        assert_eq!(
            chunk_line(text.as_bytes(), &[]),
            Some(Piece::Delta {
                index: 1,
                kind: DeltaKind::Text,
                len: " pass é😀\n\u{e9}".encode_utf16().count(),
                name_len: None
            })
        );
        let tool = line(
            r#"{"type":"tool-call-delta","index":2,"id":"call_1","name":"bash","argumentsDelta":"{\"a\""}"#,
        );
        assert_eq!(
            chunk_line(tool.as_bytes(), &[]),
            Some(Piece::Delta {
                index: 2,
                kind: DeltaKind::ToolCall,
                len: 4,
                name_len: Some(4)
            })
        );
        let nameless = line(r#"{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":""}"#);
        assert_eq!(
            chunk_line(nameless.as_bytes(), &[]),
            Some(Piece::Delta {
                index: 0,
                kind: DeltaKind::ToolCall,
                len: 0,
                name_len: None
            })
        );
    }

    #[test]
    fn any_other_layout_takes_the_general_scan() {
        for chunk in [
            r#"{"type":"text-delta","index":1,"text":"a","text":"bb"}"#,
            r#"{"type":"text-delta","index":1,"text":null}"#,
            r#"{"type":"text-delta","index":1.0,"text":"a"}"#,
            r#"{"type":"text-delta","index":-1,"text":"a"}"#,
            r#"{"type":"text-delta","index":99999999999999999999,"text":"a"}"#,
            r#"{"type":"text-delta", "index":1,"text":"a"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","name":null,"argumentsDelta":""}"#,
            r#"{"index":1,"type":"text-delta","text":"a"}"#,
            // An escape where a name is compared, another key, a block nobody repeats.
            r#"{"type":"block-start","index":1,"blockType":"te\u0078t"}"#,
            r#"{"type":"block-start","index":1,"blockType":"text","x":1}"#,
            r#"{"type":"block-start","blockType":"text"}"#,
            r#"{"type":"block-end","index":0,"block":{"type":"text","text":"abc"}}"#,
            r#"{"type":"finish","reason":{"kind":"max\u002dtokens"}}"#,
            r#"{"type":"finish","reason":{"kind":"error","failure":{"code":"X"}}}"#,
            r#"{"type":"finish","reason":"stop"}"#,
            r#"{"type":"usage","usage":{"inputTokens":{"cached":1}},"type":"text-delta"}"#,
            r#"{"type":"usage","usage":{"note":"a}"},"index":1,"type":"text-delta","text":"x"}"#,
            r#"{"type":"usage","usage":[1]}"#,
        ] {
            assert_eq!(chunk_line(line(chunk).as_bytes(), &[]), None, "{chunk}");
        }
        let extra_key = line(r#"{"type":"text-delta","index":1,"text":"a"}"#)
            .replace("}}}", r#"}},"surfaceOp":null}"#);
        assert_eq!(chunk_line(extra_key.as_bytes(), &[]), None);
        let trailing = format!("{} ", line(r#"{"type":"text-delta","index":1,"text":"a"}"#));
        assert_eq!(chunk_line(trailing.as_bytes(), &[]), None);
        assert_eq!(chunk_line(b"", &[]), None);
    }

    #[test]
    fn harness_boundaries_finishes_and_usage_are_read_from_their_literals() {
        for (chunk, piece) in [
            (
                r#"{"type":"block-start","index":3,"blockType":"reasoning"}"#,
                Piece::Start {
                    index: 3,
                    kind: Some(DeltaKind::Reasoning),
                },
            ),
            (
                r#"{"type":"block-start","index":0,"blockType":"image"}"#,
                Piece::Start {
                    index: 0,
                    kind: None,
                },
            ),
            (
                r#"{"type":"finish","reason":{"kind":"max-tokens"}}"#,
                Piece::Finish { max_tokens: true },
            ),
            (
                r#"{"type":"finish","reason":{"kind":"tool-calls"}}"#,
                Piece::Finish { max_tokens: false },
            ),
            (
                r#"{"type":"usage","usage":{"inputTokens":270,"outputTokens":96,"note":"ok"}}"#,
                Piece::Other,
            ),
        ] {
            let text = line(chunk);
            assert_eq!(
                chunk_line(text.as_bytes(), &[]),
                Some(piece.clone()),
                "{chunk}"
            );
            assert_eq!(reference(&text), piece, "{chunk}");
        }
    }

    #[test]
    fn a_block_end_the_message_repeats_is_priced_from_it() {
        let block = r#"{"type":"tool-call","id":"c","name":"bash","arguments":"{}"}"#;
        let message = format!("[{block}]");
        let mut scanner = super::super::scan::Scanner::new(message.as_bytes());
        let (known, _) = super::super::blocks::blocks(&mut scanner).unwrap();
        let text = line(&format!(
            r#"{{"type":"block-end","index":2,"block":{block}}}"#
        ));
        let piece = chunk_line(text.as_bytes(), &known);
        assert_eq!(piece, Some(reference(&text)));
        assert!(matches!(
            piece,
            Some(Piece::End {
                index: 2,
                tool_call: true,
                ..
            })
        ));
        assert_eq!(piece, fast_piece(text.as_bytes(), &known));
        // Without the message's blocks, the general scan prices it.
        assert_eq!(chunk_line(text.as_bytes(), &[]), None);
    }

    proptest! {
        /// A JSON string's measured length is its JavaScript length, across the eight-byte
        /// words and at any offset.
        #[test]
        fn strings_measure_as_javascript(text in "\\PC{0,40}", pad in 0usize..9) {
            let quoted = serde_json::to_string(&text).unwrap();
            let bytes = format!("{}{quoted}}}", " ".repeat(pad));
            let end = pad + quoted.len();
            prop_assert_eq!(
                string_end(bytes.as_bytes(), pad + 1),
                Some((end, text.encode_utf16().count()))
            );
        }

        /// Wherever the line reader answers, the general scan and the reference answer the
        /// same; it answers for every harness-written delta.
        #[test]
        fn agrees_with_the_scan_and_the_reference(
            kind in prop::sample::select(vec!["text-delta", "reasoning-delta", "tool-call-delta", "block-start", "finish", "usage"]),
            index in 0u64..1_000,
            text in "[a-zé😀\"\\\\\n\t\u{1}]{0,24}",
            name in prop::option::of("[a-z😀]{0,6}"),
            cut in 0usize..200,
        ) {
            let quoted = serde_json::to_string(&text).unwrap();
            let chunk = match kind {
                "block-start" => format!(
                    r#"{{"type":"{kind}","index":{index},"blockType":{quoted}}}"#
                ),
                "finish" => format!(r#"{{"type":"{kind}","reason":{{"kind":{quoted}}}}}"#),
                "usage" => format!(r#"{{"type":"{kind}","usage":{{"n":{index},"s":{quoted}}}}}"#),
                _ => delta_chunk(kind, index, &text, name.as_deref()),
            };
            let full = line(&chunk);
            let read = chunk_line(full.as_bytes(), &[]);
            // Every delta is read; a name is compared only without escapes.
            let escaped = quoted.contains('\\');
            prop_assert_eq!(
                read.is_some(),
                kind.ends_with("delta") || !escaped,
                "{}", full
            );
            if let Some(piece) = read {
                prop_assert_eq!(Some(piece.clone()), fast_piece(full.as_bytes(), &[]));
                prop_assert_eq!(piece, reference(&full));
            }
            // A line cut short never reads as a delta, and never panics.
            let short = &full.as_bytes()[..cut.min(full.len().saturating_sub(1))];
            prop_assert_eq!(chunk_line(short, &[]), None);
        }
    }
}
