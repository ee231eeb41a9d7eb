//! JavaScript's `JSON.stringify(value)` for a parsed JSON value: compact, strings escaped as
//! JavaScript escapes them (only `"`, `\` and control characters; everything else kept as is),
//! numbers printed as JavaScript prints them (`1.0` → `1`, `1e-7` → `1e-7`, `1e21` → `1e+21`),
//! and object keys in JavaScript's property order: integer-like keys first in ascending order,
//! then the others in file order (the order does not change a length, only text equality).

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use super::utf16::utf16_len;

/// `JSON.stringify(value)`.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// `JSON.stringify(value).length`, in UTF-16 code units.
pub fn stringified_len(value: &Value) -> usize {
    utf16_len(&stringify(value))
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    out.push('{');
    let mut first = true;
    let mut entry = |key: &str, value: &Value, out: &mut String| {
        if !first {
            out.push(',');
        }
        first = false;
        write_string(key, out);
        out.push(':');
        write_value(value, out);
    };
    if map.keys().any(|k| array_index(k).is_some()) {
        let mut indexed: Vec<(u32, &Value)> = map
            .iter()
            .filter_map(|(k, v)| Some((array_index(k)?, v)))
            .collect();
        indexed.sort_unstable_by_key(|&(i, _)| i);
        for (i, v) in indexed {
            entry(&i.to_string(), v, out);
        }
        for (k, v) in map.iter().filter(|(k, _)| array_index(k).is_none()) {
            entry(k, v, out);
        }
    } else {
        for (k, v) in map {
            entry(k, v, out);
        }
    }
    out.push('}');
}

/// The key as an array index (a canonical decimal below 2³² − 1), which JavaScript orders
/// before every other key of an object.
fn array_index(key: &str) -> Option<u32> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    if !canonical || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|&i| i != u32::MAX)
}

/// A number as JavaScript prints it: every JSON number is an IEEE double there.
fn write_number(n: &Number, out: &mut String) {
    match n.as_f64() {
        Some(f) if f.is_finite() => out.push_str(ryu_js::Buffer::new().format_finite(f)),
        // JSON.stringify prints a non-finite number as null (serde_json never yields one).
        _ => out.push_str("null"),
    }
}

/// A string literal escaped as JavaScript escapes it.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let mut plain = 0;
    for (i, c) in s.char_indices() {
        let short = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if short.is_empty() {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push_str(short);
        }
        plain = i + c.len_utf8();
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// The UTF-16 length of `s` once escaped as a JavaScript string literal, quotes included.
#[cfg(test)]
fn escaped_len(s: &str) -> usize {
    let extra: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum();
    2 + utf16_len(s) + extra
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn js(text: &str) -> String {
        stringify(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        assert_eq!(
            js("[1.0, 1e-7, 1E21, 0.1, -0, 100, 1.5e3, 123456789012345678901]"),
            "[1,1e-7,1e+21,0.1,0,100,1500,123456789012345680000]"
        );
        assert_eq!(
            js("[2.5e-6, 1e20, 12345678.9]"),
            "[0.0000025,100000000000000000000,12345678.9]"
        );
    }

    #[test]
    fn strings_escape_only_what_javascript_escapes() {
        assert_eq!(
            stringify(&json!("q\"b\\n\n\t\u{1}é😀\u{2028}/")),
            "\"q\\\"b\\\\n\\n\\t\\u0001é😀\u{2028}/\""
        );
        let s = "q\"\\\n\u{1f}é😀";
        assert_eq!(escaped_len(s), utf16_len(&stringify(&json!(s))));
    }

    #[test]
    fn compact_with_javascript_key_order() {
        assert_eq!(
            js(r#"{ "b" : [ 1 , {} ], "a" : null, "x": true }"#),
            r#"{"b":[1,{}],"a":null,"x":true}"#
        );
        assert_eq!(
            js(r#"{"b":1,"10":2,"a":3,"2":4,"01":5}"#),
            r#"{"2":4,"10":2,"b":1,"a":3,"01":5}"#
        );
        assert_eq!(stringified_len(&json!({"t":"😀"})), 10);
    }
}
