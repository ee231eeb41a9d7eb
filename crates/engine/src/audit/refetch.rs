//! Refetches (viewer-spec §8): model tool calls equal — same tool, arguments equal as JSON
//! values — to an earlier call whose result a replace shadowed, made while no result of an
//! equal call was on the surface. Calls are indexed once by `(name, canonical arguments)`;
//! each key counts its results on the surface and remembers the latest replace that took one
//! away, so a call is judged in O(1).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::Value;

use crate::{EventIdx, EventLog};

/// The JSON arguments in a canonical text: object keys sorted, integral numbers without a
/// fraction, so that equal JSON values give equal texts. Text that is not JSON stays as it is
/// (marked, so it never equals a JSON text).
pub fn canonical_arguments(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v) => {
            let mut out = String::with_capacity(arguments.len());
            canonical(&v, &mut out);
            out
        }
        Err(_) => format!("\u{0}{arguments}"),
    }
}

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
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
        other => out.push_str(&other.to_string()),
    }
}

#[derive(Deserialize)]
struct CallEvent {
    data: Option<CallData>,
}

#[derive(Deserialize)]
struct CallData {
    #[serde(rename = "callId")]
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
}

/// `(callId, name, arguments)` of a `tool/call`, when it has them as strings.
pub fn read_tool_call(log: &EventLog, idx: EventIdx) -> Option<(String, String, String)> {
    let event: CallEvent = log
        .with_event_json(idx, |json| serde_json::from_str(json))
        .ok()?;
    let d = event.data?;
    Some((d.call_id?, d.name?, d.arguments.unwrap_or_default()))
}

/// The `(id, name, arguments)` of every `tool-call` block of an `assistant/message`.
pub fn read_message_calls(log: &EventLog, idx: EventIdx) -> Vec<(String, String, String)> {
    let Some(message) = crate::message_of(log, idx) else {
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
#[derive(Debug, Default)]
pub struct CallIndex {
    keys: HashMap<(Box<str>, Box<str>), u32>,
    on_surface: Vec<u32>,
    last_shadow: Vec<Option<Found>>,
    /// The key of each call id seen.
    calls: HashMap<String, u32>,
    /// The key of each original tool result on the surface, by event index.
    results: HashMap<u32, u32>,
}

impl CallIndex {
    fn key(&mut self, name: &str, arguments: &str) -> u32 {
        let k = (name.into(), canonical_arguments(arguments).into_boxed_str());
        if let Some(&id) = self.keys.get(&k) {
            return id;
        }
        let id = self.on_surface.len() as u32;
        self.keys.insert(k, id);
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
