//! Reading what loading needs of a packed chunk row — its member count and its members'
//! times — straight from `data` text already validated as JSON, without building the row.
//!
//! Loading a HEAD log decodes one packed row per few members; serde's derive builds three
//! vectors per row that loading throws away. [`quick_row`] walks the bytes once instead and
//! answers only for the plain shape the harness writes (compact JSON, unescaped keys, each
//! known key once, plain integers that fit their types). For anything else it answers
//! `None` and [`crate::PackedData::parse`] decides, so every accepted row and every
//! error message is exactly serde's (a differential test holds the two together).
//!
//! The caller passes text that is one valid JSON value (the JSONL reader's envelope scan has
//! checked the whole line); string contents are skipped, not validated, here. Text that is
//! not JSON never makes it panic: a row cut anywhere is `None`.

use super::packed::ChunkKind;

/// The fields of a packed row that loading uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuickRow<'a> {
    /// Number of members (`texts` or `args` elements), at least 1.
    pub members: usize,
    /// The inside of the `dt` array (`1,-2,3`), one gap per member after the first.
    dt: &'a [u8],
}

impl QuickRow<'_> {
    /// The members' times from the row's first time: the same values, and the same error, as
    /// [`crate::PackedData::member_times`].
    pub fn member_times(&self, time0: i64) -> impl Iterator<Item = Result<i64, String>> + '_ {
        let gaps = self
            .dt
            .split(|&b| b == b',')
            .filter(|g| !g.is_empty())
            .map(|g| plain_i64(g).unwrap_or(0));
        super::packed::member_times(time0, gaps)
    }
}

const TURN: u8 = 1;
const STEP: u8 = 2;
const INDEX: u8 = 4;
const DT: u8 = 8;
const PIECES: u8 = 16;
const ID: u8 = 32;
const NAME: u8 = 64;

/// The member count and time gaps of a packed row of `kind` whose `data` is `json`, or
/// `None` when the row is not in the plain shape (then serde must decide, and may reject it).
pub fn quick_row(kind: ChunkKind, json: &str) -> Option<QuickRow<'_>> {
    let b = json.as_bytes();
    let mut at = expect(b, 0, b'{')?;
    let mut seen = 0u8;
    let mut members = 0;
    let mut gaps = 0;
    let mut dt: &[u8] = &[];
    loop {
        at = expect(b, at, b'"')?;
        let key_end = at + memchr::memchr(b'"', &b[at..])?;
        let key = &b[at..key_end];
        at = expect(b, key_end + 1, b':')?;
        let bit = match (key, kind) {
            (b"turn", _) => TURN,
            (b"step", _) => STEP,
            (b"index", _) => INDEX,
            (b"dt", _) => DT,
            (b"texts", ChunkKind::Text | ChunkKind::Reasoning) => PIECES,
            (b"args", ChunkKind::ToolCall) => PIECES,
            (b"id", ChunkKind::ToolCall) => ID,
            (b"name", ChunkKind::ToolCall) => NAME,
            _ => return None,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        at = match bit {
            TURN | STEP | INDEX => {
                let end = number_end(b, at);
                plain_u64(&b[at..end])?;
                end
            }
            DT => {
                let (end, count) = array(b, at, |b, at| {
                    let end = number_end(b, at);
                    plain_i64(&b[at..end]).map(|_| end)
                })?;
                dt = &b[at + 1..end - 1];
                gaps = count;
                end
            }
            PIECES => {
                let (end, count) = array(b, at, string_end)?;
                members = count;
                end
            }
            ID => string_end(b, at)?,
            _ => match b.get(at..at + 4) {
                Some(b"null") => at + 4,
                _ => string_end(b, at)?,
            },
        };
        match b.get(at) {
            Some(b',') => at += 1,
            Some(b'}') if at + 1 == b.len() => break,
            _ => return None,
        }
    }
    let required = match kind {
        ChunkKind::ToolCall => TURN | STEP | INDEX | DT | PIECES | ID,
        ChunkKind::Text | ChunkKind::Reasoning => TURN | STEP | INDEX | DT | PIECES,
    };
    (seen & required == required && members > 0 && gaps + 1 == members)
        .then_some(QuickRow { members, dt })
}

/// `at + 1` when `b[at]` is `want`.
fn expect(b: &[u8], at: usize, want: u8) -> Option<usize> {
    (b.get(at) == Some(&want)).then_some(at + 1)
}

/// Where the number starting at `at` ends (its sign and digits; anything else stops it).
fn number_end(b: &[u8], at: usize) -> usize {
    let sign = usize::from(b.get(at) == Some(&b'-'));
    at + sign
        + b[(at + sign).min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
}

/// A plain non-negative integer (digits, no leading zero) that fits a `u64`.
fn plain_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &c| {
        c.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u64::from(c - b'0')))
            .flatten()
    })
}

/// A plain integer (optional `-`, then as [`plain_u64`]) that fits an `i64`. Not `-0`: serde_json
/// reads it as the float −0.0, which an `i64` field refuses (found by the fuzzer).
fn plain_i64(text: &[u8]) -> Option<i64> {
    match text.strip_prefix(b"-") {
        Some(digits) => {
            let n = plain_u64(digits).filter(|&n| n > 0)?;
            0i64.checked_sub_unsigned(n)
        }
        None => i64::try_from(plain_u64(text)?).ok(),
    }
}

/// The end of the string starting at `b[at] == '"'` (one past its closing quote). `None` at a
/// `\uD…` escape: serde refuses a lone surrogate half when it decodes the string, so it
/// decides those rows. `None` too for a string the text ends inside (an escape at the very
/// end included): never valid JSON, which the caller promised, but no reason to panic.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = expect(b, at, b'"')?;
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        if matches!(b.get(i + 1..i + 3), Some([b'u', b'd' | b'D'])) {
            return None;
        }
        i += 2;
    }
}

/// The end of the array starting at `b[at] == '['` whose elements `element` reads (each
/// returns its end), and the element count.
fn array(
    b: &[u8],
    at: usize,
    element: impl Fn(&[u8], usize) -> Option<usize>,
) -> Option<(usize, usize)> {
    let mut i = expect(b, at, b'[')?;
    if b.get(i) == Some(&b']') {
        return Some((i + 1, 0));
    }
    let mut count = 0;
    loop {
        i = element(b, i)?;
        count += 1;
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b']') => return Some((i + 1, count)),
            _ => return None,
        }
    }
}

/// The differential property of [`quick_row`] on valid JSON text: whenever it answers, serde's
/// decoder accepts the row with the same member count and the same member times from `time0`
/// (or the same error). `Ok(None)` when the quick reader left the row to serde; `Err`
/// describes a disagreement. Used by the unit tests and the `envelope_scan` fuzz target.
pub fn compare_quick_row(kind: ChunkKind, json: &str, time0: i64) -> Result<Option<usize>, String> {
    let Some(quick) = quick_row(kind, json) else {
        return Ok(None);
    };
    let serde = super::packed::PackedData::parse(kind, json).map_err(|e| {
        format!("the quick reader accepted a {kind:?} row serde rejects ({e}): {json:?}")
    })?;
    let times: Result<Vec<i64>, String> = quick.member_times(time0).collect();
    if quick.members != serde.member_count() || times != serde.member_times(time0) {
        return Err(format!(
            "the quick reader and serde differ on a {kind:?} row from time {time0}: {json:?}"
        ));
    }
    Ok(Some(quick.members))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The quick reader's answer must be serde's whenever it gives one.
    fn agrees(kind: ChunkKind, json: &str, time0: i64) -> Option<usize> {
        compare_quick_row(kind, json, time0).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn plain_rows_are_read() {
        let text = r#"{"turn":1,"step":2,"index":0,"dt":[1,-1],"texts":["a","b\"]","c"]}"#;
        assert_eq!(agrees(ChunkKind::Text, text, 10), Some(3));
        let tool =
            r#"{"turn":1,"step":1,"index":2,"id":"c1","name":"bash","dt":[0],"args":["{","}"]}"#;
        assert_eq!(agrees(ChunkKind::ToolCall, tool, 0), Some(2));
        let unnamed = r#"{"turn":1,"step":1,"index":2,"id":"c1","name":null,"dt":[],"args":["{"]}"#;
        assert_eq!(agrees(ChunkKind::ToolCall, unnamed, 0), Some(1));
        let overflow = r#"{"turn":1,"step":1,"index":0,"dt":[9007199254740991],"texts":["a","b"]}"#;
        assert_eq!(agrees(ChunkKind::Text, overflow, 5), Some(2));
    }

    #[test]
    fn other_shapes_are_left_to_serde() {
        for json in [
            r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"],"extra":1}"#,
            r#"{"turn":1.5,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":-0,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":18446744073709551616,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[9223372036854775808],"texts":["a","b"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[-0],"texts":["a","b"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}"#,
            r#"{"turn":1,"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"dt":[],"texts":["a"]}"#,
            r#"{"turn":1, "step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"tu\u0072n":1,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":[1]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["\ud83d cut"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["\uD83D\uDE00"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"args":["a"]}"#,
            r#"[1,2]"#,
        ] {
            assert_eq!(quick_row(ChunkKind::Text, json), None, "{json}");
        }
        let no_id = r#"{"turn":1,"step":1,"index":2,"dt":[],"args":["{"]}"#;
        assert_eq!(quick_row(ChunkKind::ToolCall, no_id), None);
    }

    #[test]
    fn text_that_is_not_json_is_refused_not_a_panic() {
        // Cut inside a string, after an escape's backslash (the last byte), or mid-escape.
        for json in [
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["a\"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["a\\"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["\"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["abc"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[1,"#,
            r#"{"turn":1,"step":1,"index":0,"dt":["#,
            r#"{"turn""#,
            r#"{""#,
            "{",
            "",
        ] {
            for kind in [ChunkKind::Text, ChunkKind::ToolCall] {
                assert_eq!(quick_row(kind, json), None, "{json}");
            }
        }
    }

    proptest! {
        #[test]
        fn quick_agrees_with_serde(
            turn in prop_oneof![Just("1".to_string()), Just("-0".to_string()), Just("01".to_string()), "[0-9]{1,21}"],
            gaps in prop::collection::vec(prop_oneof![
                (-20_000i64..20_000).prop_map(|g| g.to_string()),
                any::<i64>().prop_map(|g| g.to_string()),
                Just("-0".to_string()),
            ], 0..6),
            extra_gap in any::<bool>(),
            // JSON string literals: serialized text, or a raw surrogate-half escape.
            texts in prop::collection::vec(prop_oneof![
                "[a-z\"\\\\\\n\u{e9}]{0,4}".prop_map(|t| serde_json::to_string(&t).unwrap()),
                "\\\\u[dD][0-9a-fA-F]{3}( \\\\u[dD][c-fC-F][0-9a-f]{2})?".prop_map(|e| format!("\"{e}\"")),
            ], 7),
            missing_member in any::<bool>(),
            time0 in prop_oneof![Just(0i64), Just((1i64 << 53) - 3), any::<i64>()],
            tool in any::<bool>(),
        ) {
            let mut dt = gaps.clone();
            if extra_gap { dt.push("0".into()); }
            // As many members as gaps + 1 (the harness's shape), or one fewer.
            let members = gaps.len() + 1 - usize::from(missing_member);
            let pieces = &texts[..members];
            let json = if tool {
                format!(r#"{{"turn":{turn},"step":1,"index":0,"id":"x","dt":[{}],"args":[{}]}}"#, dt.join(","), pieces.join(","))
            } else {
                format!(r#"{{"step":2,"turn":{turn},"index":0,"dt":[{}],"texts":[{}]}}"#, dt.join(","), pieces.join(","))
            };
            let kind = if tool { ChunkKind::ToolCall } else { ChunkKind::Text };
            if serde_json::from_str::<serde::de::IgnoredAny>(&json).is_ok() {
                agrees(kind, &json, time0);
            }
        }
    }
}
