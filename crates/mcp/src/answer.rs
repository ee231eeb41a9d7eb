//! Bounding an answer: payload strings longer than [`LONG_STRING`] bytes shortened with their
//! full length stated, then the document's list cut at a whole item so that the answer stays
//! within `max_bytes`, with a `next_cursor` naming the first item left out. Walking the
//! cursors returns every item once: a page starts exactly where the previous one stopped.

use serde_json::{Map, Value};

use crate::ToolError;

/// Payload strings longer than this many bytes are shortened.
pub const LONG_STRING: usize = 4096;
/// The default bound of one answer, in bytes of JSON.
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024;

/// `text` cut to [`LONG_STRING`] bytes (at a character boundary) and its full length stated.
pub fn shortened(text: &str) -> String {
    let mut end = LONG_STRING;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [shortened: {} bytes in all]", &text[..end], text.len())
}

/// Every string in `value` longer than [`LONG_STRING`] bytes, shortened in place.
pub fn shorten_strings(value: &mut Value) {
    match value {
        Value::String(s) if s.len() > LONG_STRING => *s = shortened(s),
        Value::Array(items) => items.iter_mut().for_each(shorten_strings),
        Value::Object(map) => map.values_mut().for_each(shorten_strings),
        _ => {}
    }
}

/// Where a page starts: `cursor` as [`page`] gave it (none: the first item).
pub fn start_of(cursor: Option<&str>) -> Result<usize, ToolError> {
    match cursor {
        None => Ok(0),
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| ToolError::Cursor(c.to_string())),
    }
}

/// One page of `doc` (a cached document: only what the page holds is copied): its lists
/// `keys`, walked in order as one sequence from `cursor` on, with as many whole items as keep
/// the answer within `max_bytes` (one at least), and `next_cursor` when some are left; long
/// strings shortened in what it copies. A document that is a JSON array is answered as
/// `{name: [...]}`; a document without a list is whole (a cursor for it is refused).
pub fn page(
    doc: &Value,
    name: &str,
    keys: &[&str],
    cursor: Option<&str>,
    max_bytes: usize,
) -> Result<Value, ToolError> {
    let start = start_of(cursor)?;
    let (mut rest, lists) = match doc {
        _ if keys.is_empty() => {
            if let Some(c) = cursor {
                return Err(ToolError::Cursor(c.to_string()));
            }
            (Map::new(), Vec::new())
        }
        Value::Array(items) => (Map::new(), vec![(name, items)]),
        Value::Object(map) => split_lists(map, keys),
        _ => (Map::new(), Vec::new()),
    };
    if lists.is_empty() {
        let mut whole = doc.clone();
        shorten_strings(&mut whole);
        return Ok(whole);
    }
    let total: usize = lists.iter().map(|(_, items)| items.len()).sum();
    if start > total || (start == total && start > 0) {
        return Err(ToolError::Cursor(start.to_string()));
    }
    rest.values_mut().for_each(shorten_strings);
    // The rest of the document, the lists' brackets and the cursor's member.
    let mut bytes = Value::Object(rest.clone()).to_string().len() + 32 + 8 * lists.len();
    let mut kept: Vec<Vec<Value>> = vec![Vec::new(); lists.len()];
    let mut next = None;
    let all =
        (lists.iter().enumerate()).flat_map(|(l, (_, items))| items.iter().map(move |i| (l, i)));
    for (k, (l, item)) in all.enumerate().skip(start) {
        let mut item = item.clone();
        shorten_strings(&mut item);
        let size = item.to_string().len() + 1;
        if k > start && bytes + size > max_bytes {
            next = Some(k);
            break;
        }
        bytes += size;
        kept[l].push(item);
    }
    for ((key, _), items) in lists.iter().zip(kept) {
        rest.insert((*key).to_string(), Value::Array(items));
    }
    if let Some(next) = next {
        rest.insert("next_cursor".to_string(), Value::String(next.to_string()));
    }
    Ok(Value::Object(rest))
}

/// A document's lists, each by its key.
type Lists<'a> = Vec<(&'a str, &'a Vec<Value>)>;

/// `map` less its lists `keys` (each place held by a null, so the answer keeps the order),
/// and those lists in `keys`' order (a key that is no list stays in the rest).
fn split_lists<'a>(
    map: &'a Map<String, Value>,
    keys: &[&'a str],
) -> (Map<String, Value>, Lists<'a>) {
    let lists: Lists<'a> = (keys.iter())
        .filter_map(|&k| Some((k, map.get(k)?.as_array()?)))
        .collect();
    let rest = (map.iter())
        .map(|(k, v)| {
            let listed = lists.iter().any(|(l, _)| l == k);
            (k.clone(), if listed { Value::Null } else { v.clone() })
        })
        .collect();
    (rest, lists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cursor_walk_returns_every_item_once() {
        let items: Vec<Value> = (0..500)
            .map(|i| json!({"seq": i, "pad": "x".repeat(i % 37)}))
            .collect();
        let doc = json!({"file": "f", "nodes": items});
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let p = page(&doc, "t", &["nodes"], cursor.as_deref(), 2_000).unwrap();
            assert!(p.to_string().len() <= 2_000, "{}", p.to_string().len());
            seen.extend(
                p["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n["seq"].as_u64().unwrap()),
            );
            match p.get("next_cursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
                None => break,
            }
        }
        assert_eq!(seen, (0..500).collect::<Vec<u64>>());
        assert!(page(&doc, "t", &["nodes"], Some("x"), 10).is_err());
        assert!(page(&doc, "t", &["nodes"], Some("501"), 10).is_err());
        // The rest of the document is kept in its order; an array is answered under its name.
        let p = page(&doc, "t", &["nodes"], None, 1 << 20).unwrap();
        assert_eq!(p, doc);
        let list = json!([1, 2, 3]);
        let p = page(&list, "things", &["things"], Some("1"), 1 << 20).unwrap();
        assert_eq!(p, json!({"things": [2, 3]}));
    }

    #[test]
    fn one_cursor_walks_several_lists_in_order_within_the_bound() {
        let item = |i: usize| json!({"i": i, "pad": "y".repeat(40)});
        let doc = json!({"calls": (0..30).map(item).collect::<Vec<_>>(), "file": "f",
                         "turns": (30..75).map(item).collect::<Vec<_>>()});
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let p = page(&doc, "cost", &["calls", "turns"], cursor.as_deref(), 700).unwrap();
            assert!(p.to_string().len() <= 700, "{}", p.to_string().len());
            assert_eq!(p["file"], "f");
            for key in ["calls", "turns"] {
                let items = p[key].as_array().unwrap();
                seen.extend(items.iter().map(|n| (key, n["i"].as_u64().unwrap())));
            }
            match p.get("next_cursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
                None => break,
            }
        }
        let want: Vec<_> = (0..75)
            .map(|i| (if i < 30 { "calls" } else { "turns" }, i as u64))
            .collect();
        assert_eq!(seen, want);
        assert!(page(&doc, "cost", &["calls", "turns"], Some("75"), 700).is_err());
    }

    #[test]
    fn long_strings_are_shortened_with_their_length() {
        let mut v = json!({"a": ["é".repeat(3000)], "b": "short"});
        shorten_strings(&mut v);
        let a = v["a"][0].as_str().unwrap();
        assert!(a.ends_with("[shortened: 6000 bytes in all]"), "{a}");
        assert!(a.len() < LONG_STRING + 64);
        assert_eq!(v["b"], "short");
    }
}
