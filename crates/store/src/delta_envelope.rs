//! The reader's fastest path: a streamed delta read from the exact line the harness writes for
//! it, `{"type":"assistant/chunk","seq":1,"time":2,"data":{"turn":1,"step":1,"chunk":{"type":
//! "text-delta","index":0,"text":"…"}}}` (and `reasoning-delta`, and `tool-call-delta` with
//! `id`, an optional `name` and `argumentsDelta`). Most lines of a long log are such lines;
//! here each is a run of fixed literals, five digit runs and one to three strings, validated as
//! it is read, instead of the general scanner's key-by-key walk.
//!
//! The line must match up to its last byte, and everything in it is checked as the JSON
//! grammar says (digits without a leading zero, strings without a control byte, escapes JSON
//! allows): so the line is one JSON object whose keys are all distinct, and the envelope read
//! here is the one [`crate::scan_envelope`]'s walk and serde_json read. What it does not
//! take — a `\u` escape, a digit run of more than 19, a space, another key or order — answers
//! `None`, and the general scanner reads the line.

use std::borrow::Cow;

use super::envelope::Envelope;
use surface_engine::StreamedDelta;
use surface_engine::meter::DeltaKind;
use surface_scan::byte_masks::{skip_digits, string_end_mask, unit_masks};

/// `{"type":"assistant/chunk","seq":`.
const HEAD: &[u8] = br#"{"type":"assistant/chunk","seq":"#;
const TIME: &[u8] = br#","time":"#;
const DATA: &[u8] = br#","data":"#;
const TURN: &[u8] = br#"{"turn":"#;
const STEP: &[u8] = br#","step":"#;
const CHUNK: &[u8] = br#","chunk":{"type":""#;
const TEXT_DELTA: &[u8] = br#"text-delta","index":"#;
const REASONING_DELTA: &[u8] = br#"reasoning-delta","index":"#;
const TOOL_CALL_DELTA: &[u8] = br#"tool-call-delta","index":"#;
const TEXT: &[u8] = br#","text":""#;
const ID: &[u8] = br#","id":""#;
const NAME: &[u8] = br#","name":""#;
const ARGUMENTS: &[u8] = br#","argumentsDelta":""#;
/// After the delta's string: the chunk, `data` and the event close.
const TAIL: &[u8] = b"}}}";

/// Longest digit run read here: every `u64` fits, and no number is long enough to be one a
/// `Value` parse treats with care.
const MAX_DIGITS: usize = 19;

/// The envelope of a harness-written delta line, or `None` when the line is not exactly of
/// that layout (the general scanner then reads it). The envelope carries the delta's piece
/// ([`StreamedDelta`]: its kind, block index and lengths in UTF-16 units, counted from the
/// strings just validated) when `measure` asks for it, unless the index or a length is too
/// large to keep: the meter then reads the line itself. (`check`, which has no meter, does not
/// ask.)
pub(crate) fn delta_envelope(line: &str, measure: bool) -> Option<Envelope<'_>> {
    let b = line.as_bytes();
    let seq_at = after(b, 0, HEAD)?;
    let seq_end = number_end(b, seq_at)?;
    let time_at = after(b, seq_end, TIME)?;
    let time_end = number_end(b, time_at)?;
    let data_at = after(b, time_end, DATA)?;
    let mut at = number_end(b, after(b, data_at, TURN)?)?;
    at = number_end(b, after(b, at, STEP)?)?;
    at = after(b, at, CHUNK)?;
    let (end, kind, index_at, index_end) = match b.get(at)? {
        b't' => match after(b, at, TEXT_DELTA) {
            Some(index) => {
                let index_end = number_end(b, index)?;
                let (end, units) = measured(b, after(b, index_end, TEXT)?, measure)?;
                (end, (DeltaKind::Text, units, 0), index, index_end)
            }
            None => {
                let index = after(b, at, TOOL_CALL_DELTA)?;
                let index_end = number_end(b, index)?;
                let (end, units, name_units) = tool_call_end(b, index_end, measure)?;
                (
                    end,
                    (DeltaKind::ToolCall, units, name_units),
                    index,
                    index_end,
                )
            }
        },
        b'r' => {
            let index = after(b, at, REASONING_DELTA)?;
            let index_end = number_end(b, index)?;
            let (end, units) = measured(b, after(b, index_end, TEXT)?, measure)?;
            (end, (DeltaKind::Reasoning, units, 0), index, index_end)
        }
        _ => return None,
    };
    if b.get(end..)? != TAIL {
        return None;
    }
    let (kind, units, name_units) = kind;
    // Digits without a leading zero: past two, the index is past what a record keeps.
    let index = match *b.get(index_at..index_end)? {
        [d] => Some(u64::from(d - b'0')),
        [d, e] => Some(u64::from(d - b'0') * 10 + u64::from(e - b'0')),
        _ => None,
    };
    let delta = index
        .filter(|_| measure)
        .and_then(|index| StreamedDelta::new(kind, index, units, name_units));
    Some(Envelope {
        type_name: Cow::Borrowed("assistant/chunk"),
        seq: line.get(seq_at..seq_end),
        time: line.get(time_at..time_end),
        // From the `data` object's brace to the event's closing one.
        data: line.get(data_at..b.len() - 1),
        surface_op: None,
        sources: None,
        seq0: None,
        time0: None,
        plain: true,
        delta,
    })
}

/// After a tool call's index: `id`, an optional `name` and `argumentsDelta`; the position
/// after the last string, the arguments' UTF-16 length and the name's (0 without one; both 0
/// unless `measure`).
fn tool_call_end(b: &[u8], at: usize, measure: bool) -> Option<(usize, usize, usize)> {
    let mut at = string_end(b, after(b, at, ID)?)?.0;
    let mut name_units = 0;
    if let Some(name) = after(b, at, NAME) {
        (at, name_units) = measured(b, name, measure)?;
    }
    let (end, units) = measured(b, after(b, at, ARGUMENTS)?, measure)?;
    Some((end, units, name_units))
}

/// [`string_end`] of the string whose content starts at `at`, with — when `measure` asks —
/// the content's length in UTF-16 units as JavaScript counts it: the bytes, less UTF-8
/// continuation bytes, plus one per 4-byte sequence (`unit_masks`, as the meter measures
/// strings), less one per two-byte escape.
#[inline(always)]
fn measured(b: &[u8], at: usize, measure: bool) -> Option<(usize, usize)> {
    let (end, escapes) = string_end(b, at)?;
    if !measure {
        return Some((end, 0));
    }
    let content_end = end - 1;
    let mut units = 0;
    for block in (at..content_end).step_by(64) {
        let span = (content_end - block).min(64);
        let range = u64::MAX >> (64 - span);
        let masks = unit_masks(b, block);
        units += if (masks.continuation | masks.four) & range == 0 {
            span
        } else {
            masks.units(range, span)
        };
    }
    Some((end, units - escapes))
}

/// The position after `literal` when `b` holds it at `at`.
#[inline(always)]
fn after(b: &[u8], at: usize, literal: &[u8]) -> Option<usize> {
    let end = at + literal.len();
    (b.get(at..end)? == literal).then_some(end)
}

/// The position after a JSON non-negative integer at `at`: one digit or more, no leading
/// zero, at most [`MAX_DIGITS`].
#[inline(always)]
fn number_end(b: &[u8], at: usize) -> Option<usize> {
    let end = skip_digits(b, at);
    let len = end - at;
    let leading_zero = len > 1 && b[at] == b'0';
    ((1..=MAX_DIGITS).contains(&len) && !leading_zero).then_some(end)
}

/// The position after the closing quote of the JSON string whose content starts at `at`, and
/// how many escapes it holds: no control byte, and no escape but `\"`, `\\`, `\/`, `\b`,
/// `\f`, `\n`, `\r` and `\t` (a `\u` escape answers `None`: whether it is a lone surrogate is
/// the general scanner's to say).
fn string_end(b: &[u8], mut at: usize) -> Option<(usize, usize)> {
    let mut escapes = 0;
    loop {
        let mask = string_end_mask(b, at);
        if mask == 0 {
            // 64 plain bytes; past the end they read as spaces, so the end is before them.
            at += 64;
            if at >= b.len() {
                return None;
            }
            continue;
        }
        at += mask.trailing_zeros() as usize;
        match *b.get(at)? {
            b'"' => return Some((at + 1, escapes)),
            b'\\' => match b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                    at += 2;
                    escapes += 1;
                }
                _ => return None,
            },
            // A control byte.
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope_scan::{ScanOutcome, compare_with_serde};
    use proptest::prelude::*;
    use surface_engine::meter::harness_chunks::{chunk_event_line as line, delta_chunk};
    use surface_engine::meter::{piece_of_chunk, streamed_piece};

    /// The envelope read here is serde_json's, and the general scanner's.
    fn agrees(text: &str) {
        let env = delta_envelope(text, true).expect("read by its literals");
        let reference = Envelope::from_json(text).unwrap();
        assert_eq!(env.type_name, reference.type_name);
        assert_eq!(
            (env.seq, env.time, env.data),
            (reference.seq, reference.time, reference.data)
        );
        assert_eq!(compare_with_serde(text), Ok(ScanOutcome::Scanned));
        // The piece kept for the meter is the one the meter's reference reads from the chunk,
        // and one is kept unless its block index is past 31.
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        let chunk = &v["data"]["chunk"];
        match env.delta {
            Some(delta) => assert_eq!(streamed_piece(delta), piece_of_chunk(chunk), "{text}"),
            None => assert!(chunk["index"].as_u64() > Some(31), "{text}"),
        }
    }

    #[test]
    fn harness_deltas_are_read_from_their_literals() {
        for chunk in [
            r#"{"type":"text-delta","index":1,"text":" pass é😀\n\"q\" \\ \/"}"#,
            r#"{"type":"reasoning-delta","index":0,"text":""}"#,
            r#"{"type":"tool-call-delta","index":2,"id":"call_1","name":"bash","argumentsDelta":"{\"a\""}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":""}"#,
        ] {
            agrees(&line(chunk));
        }
        let long = line(&format!(
            r#"{{"type":"text-delta","index":1,"text":"{}"}}"#,
            "x".repeat(200)
        ));
        agrees(&long);
    }

    #[test]
    fn any_other_line_is_left_to_the_general_scanner() {
        for chunk in [
            r#"{"type":"text-delta","index":1,"text":"\u00e9"}"#,
            r#"{"type":"text-delta","index":1,"text":"a\u0001"}"#,
            "{\"type\":\"text-delta\",\"index\":1,\"text\":\"a\u{1}\"}",
            r#"{"type":"text-delta","index":01,"text":"a"}"#,
            r#"{"type":"text-delta","index":1.5,"text":"a"}"#,
            r#"{"type":"text-delta","index":-1,"text":"a"}"#,
            r#"{"type":"text-delta","index":12345678901234567890,"text":"a"}"#,
            r#"{"type":"text-delta","index":1,"text":"a","text":"b"}"#,
            r#"{"type":"text-delta","index":1,"text":"a\x"}"#,
            r#"{"type":"text-delta", "index":1,"text":"a"}"#,
            r#"{"type":"block-start","index":1,"blockType":"text"}"#,
            r#"{"type":"tool-call-delta","index":0,"id":"c","name":null,"argumentsDelta":""}"#,
            r#"{"type":"text-delta","index":1,"text":"a"#,
        ] {
            assert!(delta_envelope(&line(chunk), true).is_none(), "{chunk}");
        }
        let with_op = line(r#"{"type":"text-delta","index":1,"text":"a"}"#)
            .replace("}}}", r#"}},"surfaceOp":"append"}"#);
        assert!(delta_envelope(&with_op, true).is_none());
        assert!(
            delta_envelope(
                &format!("{} ", line(r#"{"type":"text-delta","index":1,"text":"a"}"#)),
                true
            )
            .is_none()
        );
        let zero_seq =
            line(r#"{"type":"text-delta","index":1,"text":"a"}"#).replace(":12,", ":012,");
        assert!(delta_envelope(&zero_seq, true).is_none());
        assert!(delta_envelope("", true).is_none());
    }

    proptest! {
        /// Wherever the literal reader answers, serde_json and the general scanner read the
        /// same envelope; it answers for every harness-written delta without a `\u` escape;
        /// a line cut short or with a byte changed never reads as a different envelope.
        #[test]
        fn agrees_with_serde_on_deltas_and_their_mutations(
            kind in prop::sample::select(vec!["text-delta", "reasoning-delta", "tool-call-delta"]),
            index in 0u64..1_000,
            text in "[a-zé😀\"\\\\/\n\t\u{1}\u{7f}]{0,80}",
            name in prop::option::of("[a-z😀]{0,6}"),
            at in 0usize..400,
            byte in prop::sample::select(vec![b'"', b'\\', b'}', b'{', b' ', b'0', b'u', 0x01, b',']),
        ) {
            let full = line(&delta_chunk(kind, index, &text, name.as_deref()));
            let read = delta_envelope(&full, true);
            // serde_json writes a control character other than these five as a `\u` escape.
            let u_escape = text
                .chars()
                .any(|c| c < ' ' && !matches!(c, '\n' | '\t' | '\r' | '\u{8}' | '\u{c}'));
            prop_assert_eq!(read.is_some(), !u_escape, "{}", full);
            if read.is_some() {
                agrees(&full);
            }
            let cut = &full[..full.floor_char_boundary(at.min(full.len() - 1))];
            prop_assert!(delta_envelope(cut, true).is_none());
            // One byte changed (at a character boundary, so the line stays UTF-8).
            let at = full.floor_char_boundary(at.min(full.len() - 1));
            let width = full[at..].chars().next().map_or(1, char::len_utf8);
            let mut changed = full.clone();
            changed.replace_range(at..at + width, &(byte as char).to_string());
            if delta_envelope(&changed, true).is_some() {
                prop_assert_eq!(compare_with_serde(&changed), Ok(ScanOutcome::Scanned), "{}", changed);
            }
        }
    }
}
