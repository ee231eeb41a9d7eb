//! Minimal JSON text helpers for the writer: string escaping and number lists, written
//! straight into a `String` without building a JSON tree.

use std::fmt::{self, Write as _};

/// A string displayed as a JSON string literal (quoted and escaped).
pub struct Js<'a>(pub &'a str);

impl fmt::Display for Js<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        let mut plain_from = 0;
        for (i, b) in self.0.bytes().enumerate() {
            let escape: Option<&str> = match b {
                b'"' => Some("\\\""),
                b'\\' => Some("\\\\"),
                b'\n' => Some("\\n"),
                b'\r' => Some("\\r"),
                b'\t' => Some("\\t"),
                0..=0x1f => None,
                _ => continue,
            };
            f.write_str(&self.0[plain_from..i])?;
            match escape {
                Some(e) => f.write_str(e)?,
                None => write!(f, "\\u{b:04x}")?,
            }
            plain_from = i + 1;
        }
        f.write_str(&self.0[plain_from..])?;
        f.write_char('"')
    }
}

/// A list of numbers displayed as a JSON array.
pub struct Nums<'a, T>(pub &'a [T]);

impl<T: fmt::Display> fmt::Display for Nums<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{n}")?;
        }
        f.write_char(']')
    }
}

/// A list of strings displayed as a JSON array of string literals.
pub struct Strs<'a, S>(pub &'a [S]);

impl<S: AsRef<str>> fmt::Display for Strs<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{}", Js(s.as_ref()))?;
        }
        f.write_char(']')
    }
}

/// A content array holding one `{"type":"text","text":…}` block.
pub struct TextBlock<'a>(pub &'a str);

impl fmt::Display for TextBlock<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{{\"type\":\"text\",\"text\":{}}}]", Js(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip_through_serde() {
        let s = "a \"quoted\" \\ back\nslash\t\u{1}é";
        let text = Js(s).to_string();
        let back: String = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn lists() {
        assert_eq!(Nums(&[1u64, 2, 3]).to_string(), "[1,2,3]");
        assert_eq!(Strs(&["a", "b\""]).to_string(), r#"["a","b\""]"#);
        assert_eq!(Nums::<u64>(&[]).to_string(), "[]");
    }
}
