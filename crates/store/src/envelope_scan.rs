//! The fast path of the JSONL reader: a one-pass validating scanner for one line that checks
//! the whole line is one JSON value and picks the envelope keys' raw slices, without serde.
//!
//! Safety design: [`scan_envelope`] returns `Some` only for a line that serde_json's
//! [`Envelope::from_json`] accepts with the very same slices (a strict JSON grammar, and every
//! case where serde would look deeper — escaped top-level keys, an escaped or non-string
//! `type`, a repeated envelope key, no `type`, not an object, nesting deeper than
//! [`MAX_DEPTH`] — gives up). Whenever it returns `None` the reader runs serde_json, which
//! makes the decision and writes the error text, so a scanner that gives up too often is only
//! slower, never wrong. [`compare_with_serde`] is that property, asserted by the unit tests,
//! the differential tests and the fuzz targets.

use std::borrow::Cow;

use super::envelope::Envelope;
use super::string_scan::Specials;
use surface_engine::{ReadScan, scan_readable};
use surface_scan::byte_masks::skip_digits;

/// One line's scan state: the cursor over its special bytes, and whether everything seen so
/// far is plain for a `Value` parse (see [`Envelope::plain`]).
struct LineScan<'a> {
    specials: Specials<'a>,
    plain: bool,
}

/// Deepest nesting of arrays and objects inside one top-level value that the scanner follows;
/// deeper values are left to serde_json (which reads envelope values without a depth limit).
pub const MAX_DEPTH: u32 = 127;

/// Scans one line (without its newline). `Some` when the line is exactly one JSON object, with
/// only whitespace around it, whose envelope keys are unambiguous: a `type` string without
/// escapes, each envelope key at most once, no escapes in any top-level key. `None` otherwise:
/// then only serde_json decides.
pub fn scan_envelope(line: &str) -> Option<Envelope<'_>> {
    let b = line.as_bytes();
    let mut scan = LineScan {
        specials: Specials::new(b),
        plain: true,
    };
    let sp = &mut scan;
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    let mut slices: [Option<(usize, usize)>; KEYS] = [None; KEYS];
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_start = i + 1;
        i = skip_plain_string(b, sp, key_start)?;
        let key = key_index(b.get(key_start..i - 1)?);
        i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(b, i + 1);
        i = match (key, b.get(value_start)) {
            (Some(TYPE), Some(b'"')) => skip_plain_string(b, sp, value_start + 1)?,
            (Some(TYPE), _) => return None,
            _ => skip_value(b, sp, value_start)?,
        };
        if let Some(k) = key {
            if slices[k].is_some() {
                return None;
            }
            slices[k] = Some((value_start, i));
        }
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    if skip_ws(b, i + 1) != b.len() {
        return None;
    }
    let text = |k: usize| {
        slices[k]
            .and_then(|(s, e)| line.get(s..e))
            .filter(|t| *t != "null")
    };
    // `type` was scanned as a string without escapes: its text is between the quotes.
    let type_name = slices[TYPE].and_then(|(s, e)| line.get(s + 1..e - 1))?;
    Some(Envelope {
        type_name: Cow::Borrowed(type_name),
        seq: text(SEQ),
        time: text(TIME),
        data: text(DATA),
        surface_op: text(SURFACE_OP),
        sources: text(SOURCES),
        seq0: text(SEQ0),
        time0: text(TIME0),
        plain: scan.plain,
    })
}

const TYPE: usize = 0;
const SEQ: usize = 1;
const TIME: usize = 2;
const DATA: usize = 3;
const SURFACE_OP: usize = 4;
const SOURCES: usize = 5;
const SEQ0: usize = 6;
const TIME0: usize = 7;
const KEYS: usize = 8;

/// The envelope key a top-level key names, if any.
#[inline]
fn key_index(key: &[u8]) -> Option<usize> {
    Some(match key {
        b"type" => TYPE,
        b"seq" => SEQ,
        b"time" => TIME,
        b"data" => DATA,
        b"surfaceOp" => SURFACE_OP,
        b"sourceEventSeqs" => SOURCES,
        b"seq0" => SEQ0,
        b"time0" => TIME0,
        _ => return None,
    })
}

/// JSON whitespace (serde_json's: space, tab, newline, carriage return).
#[inline(always)]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    // Logs are written without whitespace: one comparison for the common case.
    if b.get(i).is_some_and(|&c| c > b' ') {
        return i;
    }
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// Skips one JSON value starting at `i` (no leading whitespace); returns the index just after
/// it. Containers are followed iteratively with one bit per level (1 = object).
fn skip_value(b: &[u8], sp: &mut LineScan<'_>, mut i: usize) -> Option<usize> {
    let mut objects: u128 = 0;
    let mut depth: u32 = 0;
    loop {
        // A value starts at `i`.
        match *b.get(i)? {
            b'"' => i = skip_string(b, sp, i + 1)?,
            b'{' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    sp.plain &= depth + 1 < MAX_DEPTH;
                    i += 1;
                } else {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return None;
                    }
                    // With the envelope around it, a value this deep is past a `Value` parse's
                    // limit (readable::MAX_DEPTH counts the whole line).
                    sp.plain &= depth < MAX_DEPTH;
                    objects = (objects << 1) | 1;
                    i = skip_key_and_colon(b, sp, i)?;
                    continue;
                }
            }
            b'[' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    sp.plain &= depth + 1 < MAX_DEPTH;
                    i += 1;
                } else {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return None;
                    }
                    sp.plain &= depth < MAX_DEPTH;
                    objects <<= 1;
                    continue;
                }
            }
            b't' => i = skip_literal(b, i, b"true")?,
            b'f' => i = skip_literal(b, i, b"false")?,
            b'n' => i = skip_literal(b, i, b"null")?,
            b'-' | b'0'..=b'9' => i = skip_number(b, i, &mut sp.plain)?,
            _ => return None,
        }
        // A value ended at `i`: close containers until a comma opens the next value.
        loop {
            if depth == 0 {
                return Some(i);
            }
            i = skip_ws(b, i);
            let in_object = objects & 1 == 1;
            match *b.get(i)? {
                b',' => {
                    i = skip_ws(b, i + 1);
                    if in_object {
                        i = skip_key_and_colon(b, sp, i)?;
                    }
                    break;
                }
                b'}' if in_object => {}
                b']' if !in_object => {}
                _ => return None,
            }
            i += 1;
            depth -= 1;
            objects >>= 1;
        }
    }
}

/// Skips `"key"`, whitespace, `:` and whitespace; returns where the member's value starts.
#[inline]
fn skip_key_and_colon(b: &[u8], sp: &mut LineScan<'_>, i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let i = skip_ws(b, skip_string(b, sp, i + 1)?);
    if b.get(i) != Some(&b':') {
        return None;
    }
    Some(skip_ws(b, i + 1))
}

/// Skips a string body from just after its opening quote; returns the index after the
/// closing quote. Escapes must be one of `\" \\ \/ \b \f \n \r \t \uXXXX` (any four hex
/// digits: lone surrogates pass, as in serde_json's skipping of values); control bytes fail.
#[inline(always)]
fn skip_string(b: &[u8], sp: &mut LineScan<'_>, mut i: usize) -> Option<usize> {
    loop {
        i = sp.specials.next_from(i)?;
        match b[i] {
            b'"' => return Some(i + 1),
            b'\\' => {
                // `\uD…`: a surrogate half, maybe a lone one (readable::scan tells).
                sp.plain &= !matches!(b.get(i + 1..i + 3), Some([b'u', b'd' | b'D']));
                i = skip_escape(b, i)?;
            }
            _ => return None,
        }
    }
}

/// Skips a string body without escapes (top-level keys and `type`, which serde decodes
/// strictly); `None` at a backslash, so the line goes to serde.
#[inline(always)]
fn skip_plain_string(b: &[u8], sp: &mut LineScan<'_>, i: usize) -> Option<usize> {
    let end = sp.specials.next_from(i)?;
    (b[end] == b'"').then_some(end + 1)
}

/// Skips the escape whose backslash is at `i`; returns the index after it.
#[inline(never)]
fn skip_escape(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => b
            .get(i + 2..i + 6)?
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(i + 6),
        _ => None,
    }
}

/// Skips `word` (`true`, `false`, `null`) at `i`.
#[inline]
fn skip_literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

/// Skips a number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
/// Clears `plain` for a number that might not fit an `f64` (an exponent, or 300+ bytes).
#[inline]
fn skip_number(b: &[u8], mut i: usize, plain: &mut bool) -> Option<usize> {
    let start = i;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = skip_digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let end = skip_digits(b, i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        *plain = false;
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let end = skip_digits(b, i);
        if end == i {
            return None;
        }
        i = end;
    }
    *plain &= i - start < 300;
    Some(i)
}

/// How one line went through the reader's two paths (see [`compare_with_serde`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOutcome {
    /// The scanner accepted the line, and serde_json accepts it with the same slices.
    Scanned,
    /// The scanner gave up and serde_json accepts the line (the reader's fallback).
    GaveUpSerdeAccepts,
    /// The scanner gave up and serde_json rejects the line (the reader reports serde's error).
    GaveUpSerdeRejects,
}

/// The differential property of the fast path on one line: when [`scan_envelope`] accepts,
/// serde_json must accept too with the same `type` and the same slices at the same offsets
/// (the packed-row reader locates `data` by its offset). `Err` describes a disagreement.
pub fn compare_with_serde(line: &str) -> Result<ScanOutcome, String> {
    let serde = Envelope::from_json(line);
    let Some(scanned) = scan_envelope(line) else {
        return Ok(match serde {
            Ok(_) => ScanOutcome::GaveUpSerdeAccepts,
            Err(_) => ScanOutcome::GaveUpSerdeRejects,
        });
    };
    let reference = serde
        .map_err(|e| format!("the scanner accepted a line serde_json rejects ({e}): {line:?}"))?;
    let at = |s: Option<&str>| s.map(|s| (s.as_ptr() as usize - line.as_ptr() as usize, s.len()));
    let fields = |e: &Envelope<'_>| {
        [
            e.seq,
            e.time,
            e.data,
            e.surface_op,
            e.sources,
            e.seq0,
            e.time0,
        ]
        .map(at)
    };
    if scanned.type_name != reference.type_name || fields(&scanned) != fields(&reference) {
        return Err(format!(
            "the scanner's envelope differs from serde_json's: {scanned:?} vs {reference:?} in {line:?}"
        ));
    }
    if scanned.plain && scan_readable(line.as_bytes()) != ReadScan::default() {
        return Err(format!(
            "the scanner called a line plain that a `Value` parse refuses or repairs: {line:?}"
        ));
    }
    Ok(ScanOutcome::Scanned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner accepts, and agrees with serde.
    fn accepted(line: &str) -> Envelope<'_> {
        assert_eq!(compare_with_serde(line), Ok(ScanOutcome::Scanned), "{line}");
        scan_envelope(line).unwrap()
    }

    /// The scanner gives up and serde rejects.
    fn rejected(line: &str) {
        assert_eq!(
            compare_with_serde(line),
            Ok(ScanOutcome::GaveUpSerdeRejects),
            "{line}"
        );
    }

    /// The scanner gives up although serde accepts (the reader's slow path).
    fn left_to_serde(line: &str) {
        assert_eq!(
            compare_with_serde(line),
            Ok(ScanOutcome::GaveUpSerdeAccepts),
            "{line}"
        );
    }

    /// A line with `value` as `data` (and, ignored, as `x`).
    fn with_data(value: &str) -> String {
        format!(r#"{{"type":"t","x":{value},"data":{value}}}"#)
    }

    #[test]
    fn picks_the_envelope_slices() {
        let env = accepted(concat!(
            " {\"type\" : \"user/message\", \"seq\":\t7 ,\"time\":-12,\"data\": {\"a\":[1,{}]} ,",
            "\"surfaceOp\":\"append\",\"sourceEventSeqs\":[1, 2],\"other\":{\"seq\":9},",
            "\"seq0\":1e5,\"time0\":\"x\"}\r "
        ));
        assert_eq!(env.type_name, "user/message");
        assert_eq!(env.seq, Some("7"));
        assert_eq!(env.time, Some("-12"));
        assert_eq!(env.data, Some("{\"a\":[1,{}]}"));
        assert_eq!(env.surface_op, Some("\"append\""));
        assert_eq!(env.sources, Some("[1, 2]"));
        assert_eq!(env.seq0, Some("1e5"));
        assert_eq!(env.time0, Some("\"x\""));
        let minimal = accepted(r#"{"type":""}"#);
        assert_eq!((minimal.type_name.as_ref(), minimal.seq), ("", None));
    }

    #[test]
    fn null_is_absent_as_for_serde() {
        let env = accepted(r#"{"type":"t","seq":null,"data":null,"surfaceOp":null}"#);
        assert_eq!((env.seq, env.data, env.surface_op), (None, None, None));
    }

    #[test]
    fn numbers() {
        for ok in [
            "0",
            "-0",
            "1",
            "-1",
            "10",
            "1e5",
            "1E+5",
            "1e-5",
            "1.5",
            "-0.0e0",
            "123456789012345678901234567890",
            "1.0E-400",
            "0.1e999",
        ] {
            accepted(&with_data(ok));
        }
        for bad in [
            "01",
            "-01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "1e+",
            "1.e5",
            "--1",
            "0x10",
            "1_0",
            "NaN",
            "Infinity",
            "-Infinity",
            "1.5.",
            "00",
        ] {
            rejected(&with_data(bad));
        }
    }

    #[test]
    fn escapes_and_surrogates() {
        for ok in [
            r#""\u00e9""#,
            r#""\uD83D\uDE00""#,
            r#""\uDE00""#,
            r#""\uD83D""#,
            r#""\uD83Dx""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\uABCDef""#,
            "\"é ü\u{7f}\"",
        ] {
            // Lone surrogates pass where serde only skips the string (values, nested keys).
            accepted(&with_data(ok));
            accepted(&format!(r#"{{"type":"t","data":{{{ok}:1}}}}"#));
        }
        for bad in [
            r#""\x""#,
            r#""\u12""#,
            r#""\u12G4""#,
            r#""\U0041""#,
            r#""\"#,
            r#""\'""#,
        ] {
            rejected(&with_data(bad));
        }
        // Escaped top-level keys and an escaped `type` are serde's to decode.
        left_to_serde(r#"{"type":"t","s\u0065q":5}"#);
        left_to_serde(r#"{"type":"t\/x"}"#);
        left_to_serde(r#"{"type":"\u00e9"}"#);
        // serde decodes `type` and top-level keys strictly: a lone surrogate fails there.
        rejected(r#"{"type":"\uD83D"}"#);
        rejected(r#"{"type":"t","\uDE00":1}"#);
    }

    #[test]
    fn control_bytes_in_strings_fail() {
        for c in ['\u{0}', '\u{1}', '\t', '\u{1f}'] {
            rejected(&with_data(&format!("\"a{c}b\"")));
            rejected(&format!("{{\"type\":\"t{c}\"}}"));
            rejected(&format!("{{\"type\":\"t\",\"k{c}\":1}}"));
        }
        accepted(&with_data("\"a\u{7f}b\""));
    }

    #[test]
    fn literals_and_structure() {
        for ok in [
            "true",
            "false",
            "null",
            "[]",
            "{}",
            "[ ]",
            "{ }",
            "[[],[[]]]",
            r#"{"":1}"#,
        ] {
            accepted(&with_data(ok));
        }
        for bad in [
            "tru",
            "nulll",
            "True",
            "nul",
            "falsey",
            "[1,]",
            "[,1]",
            r#"{"a":1,}"#,
            "{1:2}",
            r#"{"a"}"#,
            r#"{"a":}"#,
            "[1 2]",
            r#"{"a":1 "b":2}"#,
            "[",
            "{",
            "]",
            "'a'",
            "[1]]",
            r#"{"a":1]"#,
            "[1}",
        ] {
            rejected(&with_data(bad));
        }
        rejected(r#"{"type":"t",}"#);
        rejected(r#"{"type":"t"} x"#);
        rejected(r#"{"type":"t"}{}"#);
        rejected(r#"{"type":"t""#);
        rejected("{");
        rejected("");
        rejected("   ");
    }

    #[test]
    fn whitespace_kinds() {
        accepted(" \t\r\n{ \t\r\n\"type\" \t\r\n: \t\r\n\"t\" \t\r\n} \t\r\n");
        // Form feed, vertical tab, no-break space and a BOM are not JSON whitespace.
        for ws in ["\u{c}", "\u{b}", "\u{a0}", "\u{feff}"] {
            rejected(&format!("{ws}{{\"type\":\"t\"}}"));
            rejected(&format!("{{\"type\":{ws}\"t\"}}"));
        }
    }

    #[test]
    fn the_envelope_must_be_unambiguous() {
        // Repeated envelope keys: serde refuses; other repeated keys are fine.
        rejected(r#"{"type":"t","seq":1,"seq":2}"#);
        rejected(r#"{"type":"t","type":"u"}"#);
        accepted(r#"{"type":"t","x":1,"x":2}"#);
        // No `type`, or a `type` that is not a string.
        rejected(r#"{"seq":1}"#);
        rejected("{}");
        rejected(r#"{"type":null}"#);
        rejected(r#"{"type":5}"#);
        // Not an object: serde reads a struct from a sequence too; the scanner leaves it.
        left_to_serde(r#"["t", 1]"#);
        rejected("5");
        rejected(r#""t""#);
        rejected("null");
        // Keys are case-sensitive; similar keys are ignored.
        let env = accepted(r#"{"type":"t","Seq":1,"seq ":2,"seq0":3}"#);
        assert_eq!((env.seq, env.seq0), (None, Some("3")));
    }

    #[test]
    fn plain_means_a_value_parse_needs_no_care() {
        let plain = |value: &str| {
            let line = with_data(value);
            let env = scan_envelope(&line).expect("scanned");
            let clean = scan_readable(line.as_bytes()) == ReadScan::default();
            // The flag may be cautious (false on a clean line), never wrong.
            assert!(!env.plain || clean, "{line}");
            env.plain
        };
        assert!(plain(r#"{"text":"hi \n \u00e9","n":[1,-2.5,0]}"#));
        assert!(!plain("1e400"));
        assert!(!plain("1e3"), "every exponent is left to the careful scan");
        assert!(!plain(&"9".repeat(300)));
        assert!(plain(&"9".repeat(299)));
        assert!(!plain(r#""\ud83d""#));
        assert!(
            !plain(r#""\uD83D\uDE00""#),
            "pairs too: the careful scan tells them apart"
        );
        // Depth counts the envelope object: data nested 126 deep is a line 127 deep.
        let nest = |n: usize, inner: &str| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
        for n in 120..=127 {
            for inner in ["1", "[]", "{}"] {
                let value = nest(n, inner);
                let clean = scan_readable(with_data(&value).as_bytes()) == ReadScan::default();
                assert_eq!(plain(&value), clean, "depth {n} around {inner}");
            }
        }
    }

    #[test]
    fn nesting_depth() {
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        for n in [1, 2, 64, 127] {
            accepted(&with_data(&nest(n)));
            accepted(&with_data(&objects(n)));
        }
        // serde_json skips envelope values and ignored fields without a depth limit (its
        // limit of 128 applies to values it builds), so deeper lines go to serde and load.
        for n in [128, 129, 1000] {
            left_to_serde(&with_data(&nest(n)));
            left_to_serde(&with_data(&objects(n)));
            left_to_serde(&format!(r#"{{"type":"t","x":{}}}"#, nest(n)));
        }
        // An empty innermost container is not a level the scanner follows.
        accepted(&with_data(&format!(
            "{}{}",
            "[".repeat(128),
            "]".repeat(128)
        )));
        rejected(&with_data(&format!(
            "{}{}",
            "[".repeat(200),
            "]".repeat(199)
        )));
    }
}
