//! Decoding one event envelope (`type`, `seq`, `time`, `surfaceOp`, `sourceEventSeqs`) from
//! JSON text without building a JSON tree: the payload stays where it is. [`Envelope::from_json`]
//! is the serde_json reference decoder; `envelope_scan` is the fast path that must agree with it.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use surface_engine::{MalformedOp, SurfaceOp};

/// The envelope fields of a JSONL line (event or packed row): each value is the raw JSON text
/// of that key, a slice of the line without surrounding whitespace; a key that is missing or
/// `null` is `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// `type`, decoded (borrowed from the line when it has no escapes).
    pub type_name: Cow<'a, str>,
    /// `seq`.
    pub seq: Option<&'a str>,
    /// `time`.
    pub time: Option<&'a str>,
    /// `data` (kept raw).
    pub data: Option<&'a str>,
    /// `surfaceOp`.
    pub surface_op: Option<&'a str>,
    /// `sourceEventSeqs`.
    pub sources: Option<&'a str>,
    /// `seq0` of a packed row.
    pub seq0: Option<&'a str>,
    /// `time0` of a packed row.
    pub time0: Option<&'a str>,
    /// True when the validating scanner saw nothing that a `Value` parse refuses or repairs
    /// (no number with an exponent or of 300+ bytes, no `\uD…` escape, nesting short of the
    /// recursion limit): then `engine::readable::scan` would find nothing and need not run.
    /// Always false from serde_json.
    pub plain: bool,
}

impl<'a> Envelope<'a> {
    /// Decodes a line with serde_json, the reference: the line must be exactly one JSON object
    /// (or serde's sequence form of the struct) with a string `type` and each envelope key at
    /// most once. The error is serde_json's, whose text the reader reports.
    pub fn from_json(line: &'a str) -> Result<Self, serde_json::Error> {
        let raw: RawEnvelope<'a> = serde_json::from_str(line)?;
        Ok(Envelope {
            type_name: raw.type_name,
            seq: raw.seq.map(RawValue::get),
            time: raw.time.map(RawValue::get),
            data: raw.data.map(RawValue::get),
            surface_op: raw.surface_op.map(RawValue::get),
            sources: raw.sources.map(RawValue::get),
            seq0: raw.seq0.map(RawValue::get),
            time0: raw.time0.map(RawValue::get),
            plain: false,
        })
    }
}

/// The serde form of [`Envelope`] (`Option<&RawValue>` reads `null` as `None`).
#[derive(Deserialize)]
struct RawEnvelope<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)]
    type_name: Cow<'a, str>,
    /// `seq`.
    #[serde(borrow, default)]
    seq: Option<&'a RawValue>,
    /// `time`.
    #[serde(borrow, default)]
    time: Option<&'a RawValue>,
    /// `data` (kept raw).
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    /// `surfaceOp`.
    #[serde(rename = "surfaceOp", borrow, default)]
    surface_op: Option<&'a RawValue>,
    /// `sourceEventSeqs`.
    #[serde(rename = "sourceEventSeqs", borrow, default)]
    sources: Option<&'a RawValue>,
    /// `seq0` of a packed row.
    #[serde(borrow, default)]
    seq0: Option<&'a RawValue>,
    /// `time0` of a packed row.
    #[serde(borrow, default)]
    time0: Option<&'a RawValue>,
}

/// A non-negative JSON integer (no sign, fraction, exponent or quotes), as the spec requires
/// for seqs and replace endpoints (docs/check.md#fine-print, item 6).
pub fn parse_non_negative(text: &str) -> Option<u64> {
    digits_value(text.trim().as_bytes())
}

/// The value of a run of ASCII digits, `None` when empty, when any byte is not a digit, or
/// when it does not fit a `u64`. Up to 19 digits cannot overflow, so the usual seqs and times
/// are summed without checks.
#[inline]
fn digits_value(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    if digits.len() <= 19 {
        let mut n: u64 = 0;
        for &d in digits {
            let v = d.wrapping_sub(b'0');
            if v > 9 {
                return None;
            }
            n = n * 10 + u64::from(v);
        }
        return Some(n);
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The greatest JavaScript safe integer, 2^53 − 1: the HEAD harness refuses larger replace
/// endpoints and provenance seqs (docs/parity.md and 5).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A non-negative JSON integer no greater than [`MAX_SAFE_INTEGER`].
pub fn parse_safe_seq(text: &str) -> Option<u64> {
    parse_non_negative(text).filter(|&n| n <= MAX_SAFE_INTEGER)
}

/// A JSON integer, possibly negative (times).
pub fn parse_integer(text: &str) -> Option<i64> {
    let t = text.trim().as_bytes();
    match t.strip_prefix(b"-") {
        Some(digits) => 0i64.checked_sub_unsigned(digits_value(digits)?),
        None => i64::try_from(digits_value(t)?).ok(),
    }
}

/// Decodes a `surfaceOp` JSON text (docs/format.md#the-surface-rule-by-rule, rule 4;
/// docs/check.md#fine-print, items 1 and 6). `null` is absent. A replace is exactly
/// `{"op":"replace","start":S,"end":E}` with S and E non-negative safe integers, as the HEAD
/// harness requires; a key appearing twice counts once with its last value, as in JavaScript's
/// `JSON.parse`.
pub fn parse_surface_op(text: &str) -> SurfaceOp {
    let t = text.trim();
    match t.as_bytes().first() {
        None | Some(b'n') if t == "null" || t.is_empty() => SurfaceOp::None,
        Some(b'"') => match serde_json::from_str::<Cow<'_, str>>(t) {
            Ok(s) if s == "append" => SurfaceOp::Append,
            _ => SurfaceOp::Malformed(MalformedOp::UnknownString),
        },
        Some(b'{') => {
            // Replace ops are rare (one event in hundreds), so a small map is fine here; a
            // repeated key overwrites, as in JSON.parse.
            let Ok(obj) = serde_json::from_str::<HashMap<String, &RawValue>>(t) else {
                return SurfaceOp::Malformed(MalformedOp::UnknownObjectOp);
            };
            let field = |name: &str| obj.get(name).copied();
            if field("op").map(RawValue::get) != Some("\"replace\"") {
                return SurfaceOp::Malformed(MalformedOp::UnknownObjectOp);
            }
            let Some(start) = field("start").and_then(|r| parse_safe_seq(r.get())) else {
                return SurfaceOp::Malformed(MalformedOp::BadStart);
            };
            let Some(end) = field("end").and_then(|r| parse_safe_seq(r.get())) else {
                return SurfaceOp::Malformed(MalformedOp::BadEnd);
            };
            if obj.len() > 3 {
                return SurfaceOp::Malformed(MalformedOp::ExtraKeys);
            }
            SurfaceOp::Replace { start, end }
        }
        _ => SurfaceOp::Malformed(MalformedOp::WrongJsonType),
    }
}

/// Decodes `sourceEventSeqs` (`null` is absent). `Err` describes a value that is not a list of
/// non-negative integers.
pub fn parse_sources(text: &str, out: &mut Vec<u64>) -> Result<bool, String> {
    out.clear();
    let t = text.trim();
    if t == "null" {
        return Ok(false);
    }
    if quick_sources(t, out) {
        return Ok(true);
    }
    out.clear();
    let items: Vec<&RawValue> =
        serde_json::from_str(t).map_err(|_| "sourceEventSeqs is not a list".to_string())?;
    for item in items {
        match parse_safe_seq(item.get()) {
            Some(s) => out.push(s),
            None => {
                return Err(format!(
                    "sourceEventSeqs holds {} which is not a non-negative integer seq (at most 2^53 - 1)",
                    item.get()
                ));
            }
        }
    }
    Ok(true)
}

/// The usual list, `[1,2,3]` (plain seqs, commas, maybe JSON whitespace), read in one pass
/// without serde into `out`; false for anything else, which serde then decides (and words
/// any error). The text need not have been validated.
fn quick_sources(t: &str, out: &mut Vec<u64>) -> bool {
    let b = t.as_bytes();
    let (Some(b'['), Some(b']')) = (b.first(), b.last()) else {
        return false;
    };
    if b.len() < 2 {
        return false;
    }
    let inner = &b[1..b.len() - 1];
    let space = |i: &mut usize| {
        while matches!(inner.get(*i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            *i += 1;
        }
    };
    let mut i = 0;
    space(&mut i);
    if i == inner.len() {
        return true;
    }
    loop {
        let start = i;
        let mut seq: u64 = 0;
        while let Some(&d @ b'0'..=b'9') = inner.get(i) {
            // 16 digits hold every safe integer and cannot overflow a u64.
            if i - start == 16 {
                return false;
            }
            seq = seq * 10 + u64::from(d - b'0');
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || (digits > 1 && inner[start] == b'0') || seq > MAX_SAFE_INTEGER {
            return false;
        }
        out.push(seq);
        space(&mut i);
        match inner.get(i) {
            None => return true,
            Some(b',') => {
                i += 1;
                space(&mut i);
            }
            Some(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_str_parse_reads_them() {
        for text in [
            "0",
            "7",
            "007",
            "-0",
            "-1",
            "1786123407414",
            "-1786123407414",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "",
            "-",
            "1-",
            "--1",
            "+1",
            "1.0",
            "1e3",
            " 12 ",
            "\u{a0}5",
            "١",
        ] {
            let trimmed = text.trim();
            let reference_u = if trimmed.bytes().all(|b| b.is_ascii_digit()) {
                trimmed.parse::<u64>().ok()
            } else {
                None
            };
            assert_eq!(parse_non_negative(text), reference_u, "{text:?}");
            let digits = trimmed.strip_prefix('-').unwrap_or(trimmed);
            let reference_i = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                trimmed.parse::<i64>().ok()
            } else {
                None
            };
            assert_eq!(parse_integer(text), reference_i, "{text:?}");
        }
    }

    #[test]
    fn ops() {
        assert_eq!(parse_surface_op("\"append\""), SurfaceOp::Append);
        assert_eq!(parse_surface_op("null"), SurfaceOp::None);
        assert_eq!(
            parse_surface_op(r#"{"op":"replace","start":4,"end":2}"#),
            SurfaceOp::Replace { start: 4, end: 2 }
        );
        // A repeated key counts once, with its last value (JSON.parse).
        assert_eq!(
            parse_surface_op(r#"{"op":"replace","start":9,"end":2,"start":4}"#),
            SurfaceOp::Replace { start: 4, end: 2 }
        );
        let m = |t| match parse_surface_op(t) {
            SurfaceOp::Malformed(m) => Some(m),
            _ => None,
        };
        assert_eq!(m("\"prepend\""), Some(MalformedOp::UnknownString));
        assert_eq!(
            m(r#"{"op":"delete","start":1,"end":1}"#),
            Some(MalformedOp::UnknownObjectOp)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":4.0,"end":4}"#),
            Some(MalformedOp::BadStart)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":"4","end":4}"#),
            Some(MalformedOp::BadStart)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":-1,"end":4}"#),
            Some(MalformedOp::BadStart)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":1,"end":true}"#),
            Some(MalformedOp::BadEnd)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":1}"#),
            Some(MalformedOp::BadEnd)
        );
        // The HEAD harness accepts exactly op, start and end.
        assert_eq!(
            m(r#"{"op":"replace","start":4,"end":2,"x":1}"#),
            Some(MalformedOp::ExtraKeys)
        );
        assert_eq!(
            m(r#"{"op":"replace","start":4,"end":2,"note":null}"#),
            Some(MalformedOp::ExtraKeys)
        );
        // Other problems take precedence over the extra key.
        assert_eq!(
            m(r#"{"op":"replace","start":-4,"end":2,"x":1}"#),
            Some(MalformedOp::BadStart)
        );
        // Endpoints must be safe integers.
        assert_eq!(
            m(r#"{"op":"replace","start":9007199254740992,"end":2}"#),
            Some(MalformedOp::BadStart)
        );
        assert_eq!(
            parse_surface_op(r#"{"op":"replace","start":9007199254740991,"end":2}"#),
            SurfaceOp::Replace {
                start: MAX_SAFE_INTEGER,
                end: 2
            }
        );
        assert_eq!(m("7"), Some(MalformedOp::WrongJsonType));
        assert_eq!(m("[]"), Some(MalformedOp::WrongJsonType));
    }

    #[test]
    fn sources() {
        let mut v = Vec::new();
        assert_eq!(parse_sources("[1, 2]", &mut v), Ok(true));
        assert_eq!(v, [1, 2]);
        assert_eq!(parse_sources("null", &mut v), Ok(false));
        assert!(parse_sources("[1.5]", &mut v).is_err());
        assert!(parse_sources("[9007199254740992]", &mut v).is_err());
        assert!(parse_sources("[null]", &mut v).is_err());
        assert!(parse_sources(r#"["3"]"#, &mut v).is_err());
        assert!(parse_sources("[-1]", &mut v).is_err());
        assert!(parse_sources("{}", &mut v).is_err());
        // The quick reader and serde agree on edge shapes (the text may not be validated).
        for (text, want) in [
            ("[ ]", Ok(vec![])),
            ("[\t7 ,\r\n8]", Ok(vec![7, 8])),
            ("[0]", Ok(vec![0])),
            ("[01]", Err(())),
            ("[1,]", Err(())),
            ("[,1]", Err(())),
            ("[1\u{a0}]", Err(())),
            ("[\u{c}1]", Err(())),
            ("[[1,2]]", Err(())),
            ("[9007199254740991]", Ok(vec![9007199254740991])),
            ("[9007199254740992]", Err(())),
            ("[12345678901234567]", Err(())),
            ("[1 2]", Err(())),
            ("[1,-2]", Err(())),
            ("[1.0]", Err(())),
            ("[", Err(())),
        ] {
            let got = parse_sources(text, &mut v)
                .map(|_| v.clone())
                .map_err(|_| ());
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_non_negative("12"), Some(12));
        assert_eq!(parse_non_negative("1e2"), None);
        assert_eq!(parse_integer("-5"), Some(-5));
        assert_eq!(parse_integer("5.0"), None);
    }
}
