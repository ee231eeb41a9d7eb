//! Whether an event's JSON text, which the store accepted as valid JSON, can also be read into
//! a `serde_json::Value` — and a lossy reader for the one case that can be repaired.
//!
//! The store validates a line without building a tree, which accepts three things a `Value`
//! parse refuses: nesting deeper than serde_json's recursion limit, numbers outside the `f64`
//! range (`1e400`), and lone UTF-16 surrogate escapes (`"\ud83d"`, which a JavaScript writer
//! produces when it cuts a string between the two halves of an emoji). The first two make the
//! event unreadable; the third is read with U+FFFD in place of each lone half.
//!
//! [`scan`] finds all three in one pass over the bytes, jumping over string contents with
//! `memchr`, so `check` can report them without parsing every message into a tree.

use memchr::{memchr2, memchr3};
use serde_json::Value;

/// Deepest nesting serde_json reads into a `Value` (its recursion limit is 128 levels, and the
/// 128th opening bracket already fails).
pub const MAX_DEPTH: usize = 127;

/// Why an event's JSON cannot be read into a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// Arrays/objects nested deeper than [`MAX_DEPTH`]; `at` is the byte offset of the
    /// opening bracket that goes too deep.
    TooDeep {
        /// Byte offset in the event text.
        at: usize,
    },
    /// A number that does not fit an `f64`; `at` is its byte offset.
    NumberOutOfRange {
        /// Byte offset in the event text.
        at: usize,
    },
}

impl Unreadable {
    /// A human sentence.
    pub fn describe(self) -> String {
        match self {
            Unreadable::TooDeep { at } => format!(
                "arrays/objects nested more than {MAX_DEPTH} levels deep (byte {at}), past the JSON reader's recursion limit"
            ),
            Unreadable::NumberOutOfRange { at } => {
                format!("a number too large for a 64-bit float (byte {at})")
            }
        }
    }
}

/// What [`scan`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadScan {
    /// The first problem that makes the text unreadable, if any.
    pub unreadable: Option<Unreadable>,
    /// Byte offsets of the backslash of every lone surrogate escape (`\uD800`–`\uDFFF` not in
    /// a high-low pair).
    pub lone_surrogates: Vec<usize>,
}

/// Scans valid JSON text for what a `Value` parse would refuse (see the module docs).
pub fn scan(text: &[u8]) -> ReadScan {
    let mut out = ReadScan::default();
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        // Outside strings only structure, numbers and literals: jump to the next interesting byte.
        let Some(off) = next_structural(&text[i..]) else {
            break;
        };
        i += off;
        match text[i] {
            b'"' => {
                i = skip_string(text, i + 1, &mut out.lone_surrogates);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    out.unreadable = Some(Unreadable::TooDeep { at: i });
                    return out;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {
                // A number: '-' or a digit.
                let end = i + text[i..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(text.len() - i);
                if number_out_of_range(&text[i..end]) {
                    out.unreadable = Some(Unreadable::NumberOutOfRange { at: i });
                    return out;
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Offset of the next byte that matters outside a string: a quote, a bracket or the start of a
/// number. Keys and most values are strings, so this usually finds a quote at once.
fn next_structural(bytes: &[u8]) -> Option<usize> {
    bytes
        .iter()
        .position(|&b| matches!(b, b'"' | b'[' | b'{' | b']' | b'}' | b'-' | b'0'..=b'9'))
}

/// Skips a string whose opening quote is at `start - 1`; returns the offset after its closing
/// quote, noting lone surrogate escapes.
fn skip_string(text: &[u8], mut i: usize, lone: &mut Vec<usize>) -> usize {
    loop {
        // `i` may pass the end after an escape at the very end of the text.
        let Some(off) = text.get(i..).and_then(|rest| memchr2(b'"', b'\\', rest)) else {
            return text.len();
        };
        i += off;
        if text[i] == b'"' {
            return i + 1;
        }
        // A backslash escape.
        if text.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(text, i + 2) else {
            i += 2;
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                let low = (text.get(i + 6) == Some(&b'\\') && text.get(i + 7) == Some(&b'u'))
                    .then(|| hex4(text, i + 8))
                    .flatten();
                if matches!(low, Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    lone.push(i);
                    i += 6;
                }
            }
            0xDC00..=0xDFFF => {
                lone.push(i);
                i += 6;
            }
            _ => i += 6,
        }
    }
}

fn hex4(text: &[u8], at: usize) -> Option<u16> {
    let digits = std::str::from_utf8(text.get(at..at + 4)?).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

/// True for a number token serde_json would refuse as out of range. Only a token with an
/// exponent or hundreds of digits can be; the common short integers are decided at once.
fn number_out_of_range(token: &[u8]) -> bool {
    if token.len() < 300 && memchr3(b'e', b'E', b'.', token).is_none() {
        return false;
    }
    std::str::from_utf8(token)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .is_some_and(|f| !f.is_finite())
}

/// Reads JSON text into a `Value`, replacing lone surrogate escapes with U+FFFD when that is
/// all that stands in the way. `Err` says, as a sentence, why the text cannot be read.
pub fn read_value(text: &str) -> Result<Value, String> {
    let err = match serde_json::from_str(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let found = scan(text.as_bytes());
    if let Some(u) = found.unreadable {
        return Err(u.describe());
    }
    if found.lone_surrogates.is_empty() {
        return Err(err.to_string());
    }
    let mut fixed = String::with_capacity(text.len());
    let mut from = 0;
    for &at in &found.lone_surrogates {
        fixed.push_str(&text[from..at]);
        fixed.push_str("\\ufffd");
        from = at + 6;
    }
    fixed.push_str(&text[from..]);
    serde_json::from_str(&fixed).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        format!(
            "{{\"data\":{}1{}}}",
            "[".repeat(levels - 1),
            "]".repeat(levels - 1)
        )
    }

    #[test]
    fn an_escape_at_the_very_end_ends_the_scan() {
        // Bytes another program rewrote under a mapping can end anywhere, mid-escape too.
        for text in [&b"\"ab\\"[..], b"{\"k\":\"\\", b"[\"\\u12"] {
            let scanned = scan(text);
            assert!(scanned.lone_surrogates.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn depth_limit_agrees_with_serde_json() {
        for levels in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2] {
            let text = nested(levels);
            let serde_ok = serde_json::from_str::<Value>(&text).is_ok();
            let scan_ok = scan(text.as_bytes()).unreadable.is_none();
            assert_eq!(serde_ok, scan_ok, "{levels} levels");
            assert_eq!(scan_ok, levels <= MAX_DEPTH, "{levels} levels");
        }
        // Brackets inside strings do not count.
        let text = format!("{{\"a\":\"{}\"}}", "[".repeat(500));
        assert_eq!(scan(text.as_bytes()), ReadScan::default());
    }

    #[test]
    fn numbers_out_of_range() {
        for (text, bad) in [
            (r#"{"a":1e400}"#, true),
            (r#"{"a":-1.5e308}"#, false),
            (r#"{"a":12345678901234567890123}"#, false),
            (r#"{"a":"1e400"}"#, false),
        ] {
            assert_eq!(scan(text.as_bytes()).unreadable.is_some(), bad, "{text}");
            assert_eq!(serde_json::from_str::<Value>(text).is_err(), bad, "{text}");
        }
        let long = format!(r#"{{"a":{}}}"#, "9".repeat(400));
        assert!(scan(long.as_bytes()).unreadable.is_some());
        assert!(serde_json::from_str::<Value>(&long).is_err());
    }

    #[test]
    fn lone_surrogates_are_found_and_read_lossily() {
        let text = r#"{"t":"a\ud83d","u":"\ud83d\ude00","v":"\\ud83d","w":"\ude00x"}"#;
        let found = scan(text.as_bytes());
        assert_eq!(found.unreadable, None);
        assert_eq!(found.lone_surrogates.len(), 2);
        assert!(serde_json::from_str::<Value>(text).is_err());
        let v = read_value(text).unwrap();
        assert_eq!(v["t"], "a\u{fffd}");
        assert_eq!(v["u"], "\u{1f600}");
        assert_eq!(v["v"], "\\ud83d");
        assert_eq!(v["w"], "\u{fffd}x");
    }

    #[test]
    fn unreadable_text_says_why() {
        let e = read_value(&nested(MAX_DEPTH + 5)).unwrap_err();
        assert!(e.contains("nested more than 127"), "{e}");
        assert!(read_value("{not json").is_err());
        assert_eq!(read_value(r#"{"a":[1]}"#).unwrap()["a"][0], 1);
    }
}
