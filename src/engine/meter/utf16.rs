//! String lengths as JavaScript counts them: UTF-16 code units (a character outside the Basic
//! Multilingual Plane counts 2), for decoded strings and for raw JSON string literals.

/// `⌈n / 4⌉`, the meter's characters-to-tokens step.
pub fn ceil4(n: usize) -> u64 {
    (n as u64).div_ceil(4)
}

/// The UTF-16 length of `s` (JavaScript's `s.length`).
pub fn utf16_len(s: &str) -> usize {
    utf16_len_of_utf8(s.as_bytes())
}

/// The UTF-16 length of valid UTF-8 bytes: one unit per character, two for a 4-byte
/// sequence. Counts lead bytes only, which the compiler vectorizes.
fn utf16_len_of_utf8(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// The UTF-16 length of the string a raw JSON string literal (with its quotes, as serde_json
/// validated it) decodes to, without decoding it: an escape is one unit (`\uD83D\uDE00` is two
/// escapes, two units), everything else as in [`utf16_len`]. `None` when `raw` is not a
/// string literal.
pub fn utf16_len_of_literal(raw: &str) -> Option<usize> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut len = 0;
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'\\', &bytes[at..]) {
        len += utf16_len_of_utf8(&bytes[at..at + k]) + 1;
        let escape = at + k + 1;
        at = escape
            + if bytes.get(escape) == Some(&b'u') {
                5
            } else {
                1
            };
        if at > bytes.len() {
            return None;
        }
    }
    Some(len + utf16_len_of_utf8(&bytes[at..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_counts_two() {
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(utf16_len("é—中"), 3);
        assert_eq!(utf16_len(""), 0);
    }

    #[test]
    fn literals_count_escapes_once() {
        for (raw, decoded) in [
            (r#""""#, ""),
            (r#""plain""#, "plain"),
            (r#""a\nb\"c\\""#, "a\nb\"c\\"),
            (r#""\u00e9\ud83d\ude00x""#, "é😀x"),
            (r#""😀\t中""#, "😀\t中"),
        ] {
            assert_eq!(utf16_len_of_literal(raw), Some(utf16_len(decoded)), "{raw}");
        }
        assert_eq!(utf16_len_of_literal("12"), None);
    }

    #[test]
    fn ceil4_rounds_up() {
        assert_eq!((ceil4(0), ceil4(1), ceil4(4), ceil4(5)), (0, 1, 1, 2));
    }
}
