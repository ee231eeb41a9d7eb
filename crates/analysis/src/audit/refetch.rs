//! Refetches (docs/audit.md): model tool calls equal — same tool, arguments equal as JSON
//! values — to an earlier call whose result a replace shadowed, made while no result of an
//! equal call was on the surface. Calls are indexed once by `(name, canonical arguments)`;
//! each key counts its results on the surface and remembers the latest replace that took one
//! away, so a call is judged in O(1).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::Value;

use surface_engine::{EventIdx, EventLog, KeyMap};

/// The JSON arguments in a canonical text: object keys sorted, integral numbers without a
/// fraction, so that equal JSON values give equal texts. Text that is not JSON stays as it is
/// (marked, so it never equals a JSON text).
pub fn canonical_arguments(arguments: &str) -> String {
    let mut out = String::with_capacity(arguments.len());
    push_canonical_arguments(arguments, &mut out);
    out
}

/// [`canonical_arguments`] appended to `out` (a buffer the caller reuses).
fn push_canonical_arguments(arguments: &str, out: &mut String) {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v) => canonical(&v, out),
        Err(_) => {
            out.push('\u{0}');
            out.push_str(arguments);
        }
    }
}

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|x, y| x.0.cmp(y.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(k, out);
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => {
                let _ = write!(out, "{i}");
            }
            (_, Some(u), _) => {
                let _ = write!(out, "{u}");
            }
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                let _ = write!(out, "{}", f as i64);
            }
            _ => out.push_str(&n.to_string()),
        },
        Value::String(text) => push_json_string(text, out),
        other => out.push_str(&other.to_string()),
    }
}

/// `text` as a JSON string, as `serde_json` writes it: quoted as it is when nothing in it
/// needs an escape (the common key), else written by `serde_json`.
fn push_json_string(text: &str, out: &mut String) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&Value::String(text.to_string()).to_string());
    }
}

#[derive(Deserialize)]
struct ToolCallEvent<'a> {
    #[serde(borrow)]
    data: Option<ToolCallData<'a>>,
}

#[derive(Deserialize)]
struct ToolCallData<'a> {
    #[serde(rename = "callId", borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
}

/// Runs `read` over the `(callId, name, arguments)` of a `tool/call` (borrowed from the event's
/// text wherever it has no escape), when it has them as strings.
pub fn with_tool_call<T>(
    log: &EventLog,
    idx: EventIdx,
    read: impl FnOnce(&str, &str, &str) -> T,
) -> Option<T> {
    log.with_event_json(idx, |json| {
        let data = serde_json::from_str::<ToolCallEvent<'_>>(json).ok()?.data?;
        let arguments = data.arguments.as_deref().unwrap_or_default();
        Some(read(&data.call_id?, &data.name?, arguments))
    })
}

/// The `(id, name, arguments)` of every `tool-call` block of an `assistant/message`.
pub fn read_message_calls(log: &EventLog, idx: EventIdx) -> Vec<(String, String, String)> {
    let Some(message) = surface_engine::message_of(log, idx) else {
        return Vec::new();
    };
    message
        .content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool-call"))
        .filter_map(|b| {
            let s = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
            Some((s("id")?, s("name")?, s("arguments").unwrap_or_default()))
        })
        .collect()
}

/// A refetch found: the replace it is charged to and the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Position of the replace in the audit.
    pub replace: usize,
    /// The shadowed result of the earlier, equal call.
    pub original_seq: u64,
}

/// Per `(tool, arguments)`: results on the surface, and the last replace that shadowed one.
/// Its maps hash call ids and arguments read from the log with the seeded [`KeyMap`].
#[derive(Debug, Default)]
pub struct CallIndex {
    /// Keys by `(name, canonical arguments)`, written as the name's length, `:`, the name and
    /// the arguments (one text, one hash; the length keeps two pairs from writing the same).
    keys: KeyMap<Box<str>, u32>,
    /// The key of the call being judged, written in place (no allocation when it is known).
    scratch: String,
    on_surface: Vec<u32>,
    last_shadow: Vec<Option<Found>>,
    /// The key of each call id seen.
    calls: KeyMap<String, u32>,
    /// The key of each original tool result on the surface, by event index.
    results: KeyMap<u32, u32>,
}

impl CallIndex {
    fn key(&mut self, name: &str, arguments: &str) -> u32 {
        let k = &mut self.scratch;
        k.clear();
        let _ = write!(k, "{}:{name}", name.len());
        push_canonical_arguments(arguments, k);
        if let Some(&id) = self.keys.get(k.as_str()) {
            return id;
        }
        let id = self.on_surface.len() as u32;
        self.keys.insert(k.as_str().into(), id);
        self.on_surface.push(0);
        self.last_shadow.push(None);
        id
    }

    /// A model tool call: the refetch it is, if an equal call's result was shadowed and no
    /// equal call's result is on the surface.
    pub fn call(&mut self, call_id: &str, name: &str, arguments: &str) -> Option<Found> {
        let key = self.key(name, arguments);
        self.calls.insert(call_id.to_string(), key);
        let k = key as usize;
        if self.on_surface[k] == 0 {
            self.last_shadow[k].clone()
        } else {
            None
        }
    }

    /// An original tool result (not a prune's replacement) entered the surface.
    pub fn result_entered(&mut self, node: EventIdx, call_id: Option<&str>) {
        let Some(&key) = call_id.and_then(|c| self.calls.get(c)) else {
            return;
        };
        self.on_surface[key as usize] += 1;
        self.results.insert(node.0, key);
    }

    /// Replace number `replace` shadowed `node` (seq `seq`).
    pub fn shadowed(&mut self, node: EventIdx, seq: u64, replace: usize) {
        let Some(key) = self.results.remove(&node.0) else {
            return;
        };
        let k = key as usize;
        self.on_surface[k] = self.on_surface[k].saturating_sub(1);
        self.last_shadow[k] = Some(Found {
            replace,
            original_seq: seq,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_compare_as_json_values() {
        assert_eq!(
            canonical_arguments(r#"{"b": 1.0, "a": [1, {"y":"z","x":2}]}"#),
            canonical_arguments(r#"{"a":[1,{"x":2,"y":"z"}],"b":1}"#)
        );
        assert_ne!(
            canonical_arguments(r#"{"a":"1"}"#),
            canonical_arguments(r#"{"a":1}"#)
        );
        assert_ne!(canonical_arguments("{"), canonical_arguments("\"{\""));
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for text in [
            "plain",
            "a\"b",
            "back\\slash",
            "tab\tnew\nline",
            "\u{1}",
            "é ✓ 😀",
            "",
        ] {
            let mut out = String::new();
            push_json_string(text, &mut out);
            assert_eq!(out, serde_json::to_string(text).unwrap(), "{text:?}");
        }
        assert_eq!(
            canonical_arguments(r#"{"z\"q":"x\ny","a":[true,null,-2.5e3]}"#),
            r#"{"a":[true,null,-2500],"z\"q":"x\ny"}"#
        );
    }

    #[test]
    fn a_tools_name_never_runs_into_its_arguments() {
        let mut index = CallIndex::default();
        let one = index.key("read", r#"{"p":1}"#);
        assert_eq!(index.key("read", r#"{ "p" : 1 }"#), one);
        assert_ne!(index.key("rea", r#"d{"p":1}"#), one);
        assert_ne!(index.key("4:read", r#"{"p":1}"#), one);
        assert_ne!(index.key("", r#"4:read{"p":1}"#), one);
    }

    #[test]
    fn a_refetch_needs_a_shadowed_twin_and_none_on_the_surface() {
        let mut index = CallIndex::default();
        assert_eq!(index.call("c1", "read", r#"{"path":"a"}"#), None);
        index.result_entered(EventIdx(2), Some("c1"));
        // While c1's result is on the surface, an equal call is no refetch.
        assert_eq!(index.call("c2", "read", r#"{ "path" : "a" }"#), None);
        index.result_entered(EventIdx(4), Some("c2"));
        index.shadowed(EventIdx(2), 2, 0);
        assert_eq!(index.call("c3", "read", r#"{"path":"a"}"#), None);
        index.shadowed(EventIdx(4), 4, 1);
        assert_eq!(
            index.call("c4", "read", r#"{"path":"a"}"#),
            Some(Found {
                replace: 1,
                original_seq: 4
            })
        );
        // Another tool, or other arguments, are other calls.
        assert_eq!(index.call("c5", "bash", r#"{"path":"a"}"#), None);
        assert_eq!(index.call("c6", "read", r#"{"path":"b"}"#), None);
        // A shadowed node that was no original result changes nothing.
        index.shadowed(EventIdx(9), 9, 2);
        index.result_entered(EventIdx(10), Some("unknown"));
    }
}
