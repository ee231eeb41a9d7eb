//! A streamed delta read from the exact line the harness writes for it, byte by byte:
//! `{"type":"assistant/chunk","seq":1,"time":2,"data":{"turn":1,"step":1,"chunk":{"type":
//! "text-delta","index":0,"text":"…"}}}` (and `reasoning-delta`, and `tool-call-delta` with
//! `id`, an optional `name` and `argumentsDelta`). Most events of a large log are such lines,
//! and the meter reads every one of them when it prices the streamed messages; here each is a
//! run of fixed literals, two digit runs and one or two short strings, with no masks and no
//! key matching.
//!
//! The whole line must match, up to its last byte: the layout admits no other key, so no key
//! can repeat, and a delta read here is the one [`super::chunks`]'s scan (and the reference)
//! reads. Any other line — another chunk type, another key order, a space, a `null`, a
//! number that is not plain digits — answers `None` and takes the general scan.

use super::anchor::{DeltaKind, Piece};
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

/// The delta a harness-written `assistant/chunk` line carries, or `None` when the line is not
/// exactly of that layout.
pub(super) fn delta_line(bytes: &[u8]) -> Option<Piece> {
    let mut at = CHUNK_EVENT.after(bytes, HEAD.after(bytes, 0)?)?;
    at = digits_end(bytes, SEQ.after(bytes, at)?)?;
    at = digits_end(bytes, TIME.after(bytes, at)?)?;
    let (piece, end) = delta_at(bytes, DATA.after(bytes, at)?)?;
    (bytes.get(end..)? == b"}").then_some(piece)
}

/// The delta of a `data` object at `at`, and the position after the object.
#[inline]
fn delta_at(bytes: &[u8], at: usize) -> Option<(Piece, usize)> {
    let mut at = digits_end(bytes, TURN.after(bytes, at)?)?;
    at = digits_end(bytes, STEP.after(bytes, at)?)?;
    at = CHUNK_TYPE.after(bytes, CHUNK.after(bytes, at)?)?;
    let (kind, type_end) = match bytes.get(at)? {
        b't' => TEXT_DELTA
            .after(bytes, at)
            .map(|end| (DeltaKind::Text, end))
            .or_else(|| Some((DeltaKind::ToolCall, TOOL_CALL_DELTA.after(bytes, at)?)))?,
        b'r' => (DeltaKind::Reasoning, REASONING_DELTA.after(bytes, at)?),
        _ => return None,
    };
    let (index_end, index) = digits(bytes, INDEX.after(bytes, type_end)?)?;
    at = index_end;
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
    (bytes.get(at..at + 2)? == b"}}").then_some((
        Piece::Delta {
            index,
            kind,
            len,
            name_len,
        },
        at + 2,
    ))
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
    use super::super::anchor::piece_of_chunk;
    use super::super::chunks::fast_piece;
    use super::*;
    use proptest::prelude::*;

    /// The reference: the line as a JSON tree.
    fn reference(line: &str) -> Piece {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        value["data"]
            .get("chunk")
            .map_or(Piece::Other, piece_of_chunk)
    }

    fn line(chunk: &str) -> String {
        format!(
            r#"{{"type":"assistant/chunk","seq":12,"time":1786000000018,"data":{{"turn":1,"step":3,"chunk":{chunk}}}}}"#
        )
    }

    #[test]
    fn harness_deltas_are_read_from_their_literals() {
        let text = line(r#"{"type":"text-delta","index":1,"text":" pass é😀\n\u00e9"}"#);
        assert_eq!(
            delta_line(text.as_bytes()),
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
            delta_line(tool.as_bytes()),
            Some(Piece::Delta {
                index: 2,
                kind: DeltaKind::ToolCall,
                len: 4,
                name_len: Some(4)
            })
        );
        let nameless = line(r#"{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":""}"#);
        assert_eq!(
            delta_line(nameless.as_bytes()),
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
            r#"{"type":"block-start","index":1,"blockType":"text"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","name":null,"argumentsDelta":""}"#,
            r#"{"index":1,"type":"text-delta","text":"a"}"#,
        ] {
            assert_eq!(delta_line(line(chunk).as_bytes()), None, "{chunk}");
        }
        let extra_key = line(r#"{"type":"text-delta","index":1,"text":"a"}"#)
            .replace("}}}", r#"}},"surfaceOp":null}"#);
        assert_eq!(delta_line(extra_key.as_bytes()), None);
        let trailing = format!("{} ", line(r#"{"type":"text-delta","index":1,"text":"a"}"#));
        assert_eq!(delta_line(trailing.as_bytes()), None);
        assert_eq!(delta_line(b""), None);
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
            kind in prop::sample::select(vec!["text-delta", "reasoning-delta", "tool-call-delta", "block-start"]),
            index in 0u64..1_000,
            text in "[a-zé😀\"\\\\\n\t\u{1}]{0,24}",
            name in prop::option::of("[a-z😀]{0,6}"),
            cut in 0usize..200,
        ) {
            let quoted = serde_json::to_string(&text).unwrap();
            let chunk = match (kind, &name) {
                ("tool-call-delta", Some(n)) => format!(
                    r#"{{"type":"{kind}","index":{index},"id":"c_1","name":{},"argumentsDelta":{quoted}}}"#,
                    serde_json::to_string(n).unwrap()
                ),
                ("tool-call-delta", None) => format!(
                    r#"{{"type":"{kind}","index":{index},"id":"c_1","argumentsDelta":{quoted}}}"#
                ),
                _ => format!(r#"{{"type":"{kind}","index":{index},"text":{quoted}}}"#),
            };
            let full = line(&chunk);
            let read = delta_line(full.as_bytes());
            prop_assert_eq!(read.is_some(), kind != "block-start");
            if let Some(piece) = read {
                prop_assert_eq!(Some(piece.clone()), fast_piece(full.as_bytes(), &[]));
                prop_assert_eq!(piece, reference(&full));
            }
            // A line cut short never reads as a delta, and never panics.
            let short = &full.as_bytes()[..cut.min(full.len().saturating_sub(1))];
            prop_assert_eq!(delta_line(short), None);
        }
    }
}
