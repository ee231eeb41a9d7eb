//! The prune rule's comparison (docs/parity.md): a `tool/result` that replaces
//! another must carry the same `data`, compared as JSON values (same keys, arrays element by
//! element), apart from the `content` of the first `tool-result` block. Returns the JSON
//! pointers where the two differ, and lays a value out as pretty lines marked by those paths
//! (the inspector highlights them).

use serde_json::Value;

/// Most differences reported for one pair (the rest are summarised by a count).
pub const MAX_DIFFS: usize = 64;

/// How one path differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffKind {
    /// Both have the path, with different values (or different JSON types).
    Changed,
    /// Only the original has it.
    OnlyInOriginal,
    /// Only the replacement has it.
    OnlyInReplacement,
}

/// One differing path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffEntry {
    /// JSON pointer (RFC 6901) from the `data` root, e.g. `/message/id`; `""` is the root.
    pub path: String,
    /// How it differs.
    pub kind: DiffKind,
}

impl DiffEntry {
    /// `/message/id changed`, `/meta only in the original`, …
    pub fn describe(&self) -> String {
        let path = if self.path.is_empty() {
            "(the whole data)"
        } else {
            &self.path
        };
        match self.kind {
            DiffKind::Changed => format!("{path} changed"),
            DiffKind::OnlyInOriginal => format!("{path} only in the original"),
            DiffKind::OnlyInReplacement => format!("{path} only in the replacement"),
        }
    }
}

/// The result of comparing two `data` values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataDiff {
    /// The path the comparison ignored (the original's prunable content), if it has one.
    pub ignored: Option<String>,
    /// The differing paths, in document order, at most [`MAX_DIFFS`].
    pub entries: Vec<DiffEntry>,
    /// Total number of differing paths (more than `entries.len()` when cut).
    pub total: usize,
}

impl DataDiff {
    /// True when the values are equal apart from the ignored path.
    pub fn is_equal(&self) -> bool {
        self.total == 0
    }
}

/// The JSON pointer of the content a prune may rewrite: `/message/content/I/content` for an
/// identified `tool/result` (I = its first `tool-result` block), `/content` for the flat shape
/// (whose `content` is that block's content). `None` when `data` has neither.
pub fn prunable_content(data: &Value) -> Option<String> {
    if let Some(message) = data.get("message").filter(|m| m.is_object()) {
        let blocks = message.get("content")?.as_array()?;
        let i = blocks
            .iter()
            .position(|b| b.get("type").and_then(Value::as_str) == Some("tool-result"))?;
        return Some(format!("/message/content/{i}/content"));
    }
    data.get("callId")
        .and(data.get("content"))
        .map(|_| "/content".to_string())
}

/// Compares a prune's `data` with the original's, ignoring the original's prunable content.
pub fn diff_pruned(original: &Value, replacement: &Value) -> DataDiff {
    let ignored = prunable_content(original);
    let mut diff = DataDiff {
        ignored: ignored.clone(),
        ..DataDiff::default()
    };
    let mut path = String::new();
    walk(
        Some(original),
        Some(replacement),
        &mut path,
        ignored.as_deref(),
        &mut diff,
    );
    diff
}

/// Compares two values, ignoring `ignore` (a JSON pointer) when given.
pub fn diff_values(a: &Value, b: &Value, ignore: Option<&str>) -> DataDiff {
    let mut diff = DataDiff {
        ignored: ignore.map(str::to_string),
        ..DataDiff::default()
    };
    walk(Some(a), Some(b), &mut String::new(), ignore, &mut diff);
    diff
}

fn push(diff: &mut DataDiff, path: &str, kind: DiffKind) {
    diff.total += 1;
    if diff.entries.len() < MAX_DIFFS {
        diff.entries.push(DiffEntry {
            path: path.to_string(),
            kind,
        });
    }
}

/// Appends one pointer segment, escaped as RFC 6901 says.
fn push_segment(path: &mut String, key: &str) {
    path.push('/');
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn walk(
    a: Option<&Value>,
    b: Option<&Value>,
    path: &mut String,
    ignore: Option<&str>,
    diff: &mut DataDiff,
) {
    if ignore == Some(path.as_str()) {
        return;
    }
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (Some(_), None) => return push(diff, path, DiffKind::OnlyInOriginal),
        (None, Some(_)) => return push(diff, path, DiffKind::OnlyInReplacement),
        (None, None) => return,
    };
    let len = path.len();
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                push_segment(path, k);
                walk(Some(v), y.get(k), path, ignore, diff);
                path.truncate(len);
            }
            for (k, v) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                push_segment(path, k);
                walk(None, Some(v), path, ignore, diff);
                path.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                push_segment(path, &i.to_string());
                walk(x.get(i), y.get(i), path, ignore, diff);
                path.truncate(len);
            }
        }
        // JavaScript numbers: 1 and 1.0 are the same value.
        (Value::Number(x), Value::Number(y)) if x == y || x.as_f64() == y.as_f64() => {}
        (a, b) if a == b => {}
        _ => push(diff, path, DiffKind::Changed),
    }
}

/// One line of a value laid out for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkedLine {
    /// The text, indented.
    pub text: String,
    /// True when the line shows a differing path (or lies inside one).
    pub marked: bool,
}

/// Longest line shown (a long tool output is cut; the full event can still be copied).
const MAX_LINE_CHARS: usize = 400;

/// Lays `value` out as pretty JSON lines, marking the lines that show one of `paths` or lie
/// inside it. Pass the paths that exist in this value (the other side's extra keys have no
/// line here).
pub fn marked_lines(value: &Value, paths: &[&str]) -> Vec<MarkedLine> {
    let mut out = Vec::new();
    lay_out(value, &mut String::new(), 0, "", "", paths, &mut out);
    out
}

fn is_marked(path: &str, paths: &[&str]) -> bool {
    paths.iter().any(|p| {
        path == *p
            || (path.len() > p.len() && path.starts_with(p) && path.as_bytes()[p.len()] == b'/')
    })
}

fn line(text: String, marked: bool, out: &mut Vec<MarkedLine>) {
    let text = match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    };
    out.push(MarkedLine { text, marked });
}

fn lay_out(
    value: &Value,
    path: &mut String,
    indent: usize,
    key: &str,
    comma: &str,
    paths: &[&str],
    out: &mut Vec<MarkedLine>,
) {
    let pad = " ".repeat(indent);
    let marked = is_marked(path, paths);
    let len = path.len();
    match value {
        Value::Object(map) if !map.is_empty() => {
            line(format!("{pad}{key}{{"), marked, out);
            for (i, (k, v)) in map.iter().enumerate() {
                push_segment(path, k);
                let child_key = format!("{}: ", Value::String(k.clone()));
                let c = if i + 1 < map.len() { "," } else { "" };
                lay_out(v, path, indent + 2, &child_key, c, paths, out);
                path.truncate(len);
            }
            line(format!("{pad}}}{comma}"), marked, out);
        }
        Value::Array(items) if !items.is_empty() => {
            line(format!("{pad}{key}["), marked, out);
            for (i, v) in items.iter().enumerate() {
                push_segment(path, &i.to_string());
                let c = if i + 1 < items.len() { "," } else { "" };
                lay_out(v, path, indent + 2, "", c, paths, out);
                path.truncate(len);
            }
            line(format!("{pad}]{comma}"), marked, out);
        }
        scalar => line(format!("{pad}{key}{scalar}{comma}"), marked, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(d: &DataDiff) -> Vec<(&str, DiffKind)> {
        d.entries
            .iter()
            .map(|e| (e.path.as_str(), e.kind))
            .collect()
    }

    #[test]
    fn equal_arrays_are_equal() {
        let a = json!({"xs": [1, {"k": "v"}, [true, null]]});
        assert!(diff_values(&a, &a.clone(), None).is_equal());
    }

    #[test]
    fn a_drifted_element_is_named_by_index() {
        let a = json!({"xs": [1, 2, 3]});
        let b = json!({"xs": [1, 5, 3]});
        let d = diff_values(&a, &b, None);
        assert_eq!(paths(&d), [("/xs/1", DiffKind::Changed)]);
        // Different lengths: the extra elements are on one side only.
        let c = json!({"xs": [1, 2]});
        let d = diff_values(&a, &c, None);
        assert_eq!(paths(&d), [("/xs/2", DiffKind::OnlyInOriginal)]);
    }

    #[test]
    fn an_array_against_a_string_differs_at_that_path() {
        let a = json!({"content": [{"type": "text"}]});
        let b = json!({"content": "text"});
        assert_eq!(
            paths(&diff_values(&a, &b, None)),
            [("/content", DiffKind::Changed)]
        );
        // Numbers compare as JavaScript values: 1 and 1.0 are equal, 1 and 2 are not.
        assert!(diff_values(&json!(1), &json!(1.0), None).is_equal());
        assert!(!diff_values(&json!(1), &json!(2), None).is_equal());
    }

    #[test]
    fn different_key_names_and_counts() {
        let a = json!({"id": "x", "isError": false});
        let b = json!({"id": "x", "is_error": false});
        assert_eq!(
            paths(&diff_values(&a, &b, None)),
            [
                ("/isError", DiffKind::OnlyInOriginal),
                ("/is_error", DiffKind::OnlyInReplacement)
            ]
        );
        let c = json!({"id": "x", "isError": false, "meta": {"a/b": 1}});
        assert_eq!(
            paths(&diff_values(&a, &c, None)),
            [("/meta", DiffKind::OnlyInReplacement)]
        );
        // Key order does not matter.
        let d = json!({"isError": false, "id": "x"});
        assert!(diff_values(&a, &d, None).is_equal());
    }

    #[test]
    fn prune_ignores_only_the_first_tool_result_content() {
        let original = json!({"turn": 1, "step": 2, "message": {"id": "t1", "role": "user",
            "source": {"kind": "tool", "callId": "c"},
            "content": [{"type": "tool-result", "toolCallId": "c", "isError": false,
                         "content": [{"type": "text", "text": "64 lines"}]}]}});
        let mut pruned = original.clone();
        pruned["message"]["content"][0]["content"] = json!([{"type": "text", "text": "[pruned]"}]);
        let d = diff_pruned(&original, &pruned);
        assert_eq!(d.ignored.as_deref(), Some("/message/content/0/content"));
        assert!(d.is_equal());

        let mut drifted = pruned.clone();
        drifted["message"]["id"] = json!("t2");
        drifted["message"]["content"][0]["isError"] = json!(true);
        drifted["turn"] = json!(3);
        let d = diff_pruned(&original, &drifted);
        assert_eq!(
            paths(&d),
            [
                ("/turn", DiffKind::Changed),
                ("/message/id", DiffKind::Changed),
                ("/message/content/0/isError", DiffKind::Changed)
            ]
        );

        // The flat shape: data.content is the block's content.
        let flat =
            json!({"callId": "c", "content": [{"type": "text", "text": "long"}], "isError": false});
        let mut flat_pruned = flat.clone();
        flat_pruned["content"] = json!([]);
        assert!(diff_pruned(&flat, &flat_pruned).is_equal());
        assert_eq!(prunable_content(&json!({"message": {"content": []}})), None);
    }

    #[test]
    fn pointer_segments_are_escaped_and_diffs_capped() {
        let a = json!({"a/b": 1, "c~d": 1});
        let b = json!({"a/b": 2, "c~d": 2});
        let d = diff_values(&a, &b, None);
        assert_eq!(d.entries[0].path, "/a~1b");
        assert_eq!(d.entries[1].path, "/c~0d");
        let many_a = Value::Array((0..100).map(|i| json!(i)).collect());
        let many_b = Value::Array((0..100).map(|i| json!(i + 1)).collect());
        let d = diff_values(&many_a, &many_b, None);
        assert_eq!((d.entries.len(), d.total), (MAX_DIFFS, 100));
    }

    #[test]
    fn marked_lines_highlight_paths_and_their_insides() {
        let v = json!({"turn": 1, "message": {"id": "t1", "content": [{"x": 1}]}});
        let lines = marked_lines(&v, &["/message/id", "/message/content"]);
        let marked: Vec<&str> = lines
            .iter()
            .filter(|l| l.marked)
            .map(|l| l.text.trim())
            .collect();
        assert_eq!(
            marked,
            [
                r#""id": "t1","#,
                r#""content": ["#,
                "{",
                r#""x": 1"#,
                "}",
                "]"
            ]
        );
        assert_eq!(lines[0].text, "{");
        assert_eq!(lines[1].text, r#"  "turn": 1,"#);
        assert!(!lines[1].marked);
        // "/message/i" is not a prefix path of "/message/id".
        assert!(!marked_lines(&v, &["/message/i"]).iter().any(|l| l.marked));
    }
}
