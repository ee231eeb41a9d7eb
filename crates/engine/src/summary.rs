//! One-line, human summaries of events, shared by the CLI and the GUI (which computes them for
//! visible rows only and caches them).

use serde_json::Value;

use super::event::{EventIdx, SurfaceOp};
use super::event_type::EventType;
use super::log::EventLog;
use super::messages::message_of;

/// Longest summary [`summarize`] keeps, in characters.
pub const SUMMARY_CHARS: usize = 240;

/// The one-line summary of an event: the most telling text of its payload (message text, tool
/// name and arguments, chunk delta, turn and reason, …).
pub fn summarize(log: &EventLog, idx: EventIdx) -> String {
    let body = if log.is_eligible(idx) {
        message_of(log, idx)
            .map(|m| text_of_blocks(&m.content))
            .unwrap_or_default()
    } else {
        summarize_data(log.type_name(idx), &log.data_value(idx))
    };
    one_line(&body, SUMMARY_CHARS)
}

/// [`summarize`] preceded by the op for replaces and malformed ops (`[replace 4..9] …`), for
/// views without an op column.
pub fn summarize_with_op(log: &EventLog, idx: EventIdx) -> String {
    let prefix = match log.op(idx) {
        SurfaceOp::Replace { start, end } => format!("[replace {start}..{end}] "),
        SurfaceOp::Malformed(_) => "[malformed op] ".to_string(),
        _ => String::new(),
    };
    one_line(&format!("{prefix}{}", summarize(log, idx)), SUMMARY_CHARS)
}

/// Text of message content blocks: texts, tool calls as `name(args)`, tool results' text.
pub fn text_of_blocks(blocks: &[Value]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") | Some("reasoning") | Some("thinking") => {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    parts.push(t.to_string());
                }
            }
            Some("tool-call") => {
                let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                let args = b.get("arguments").map(compact).unwrap_or_default();
                parts.push(format!("{name}({args})"));
            }
            Some("tool-result") => {
                let inner = b
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|a| text_of_blocks(a));
                parts.push(format!("→ {}", inner.unwrap_or_default()));
            }
            _ => parts.push(compact(b)),
        }
    }
    parts.join(" · ")
}

fn summarize_data(type_name: &str, data: &Value) -> String {
    let get = |k: &str| data.get(k);
    match EventType::of(type_name) {
        EventType::ToolCall => {
            let name = get("name").and_then(Value::as_str).unwrap_or("?");
            let args = get("arguments").map(compact).unwrap_or_default();
            format!("{name}({args})")
        }
        EventType::AssistantChunk => {
            let chunk = get("chunk").unwrap_or(&Value::Null);
            let kind = chunk.get("type").and_then(Value::as_str).unwrap_or("chunk");
            let detail = ["text", "argumentsDelta", "delta"]
                .iter()
                .find_map(|k| chunk.get(*k).and_then(Value::as_str))
                .map(str::to_string)
                .or_else(|| chunk.get("reason").map(compact))
                .or_else(|| chunk.get("usage").map(compact))
                .unwrap_or_default();
            format!("{kind} {detail}")
        }
        EventType::CompactionSummary => get("summary")
            .and_then(Value::as_array)
            .map(|a| text_of_blocks(a))
            .unwrap_or_else(|| compact(data)),
        _ => {
            if type_name.starts_with("turn/") || type_name.starts_with("step/") {
                let mut s = String::new();
                for k in ["turn", "step"] {
                    if let Some(v) = get(k) {
                        s.push_str(&format!("{k} {} ", compact(v)));
                    }
                }
                if let Some(r) = get("reason") {
                    s.push_str(&compact(r));
                }
                s
            } else {
                compact(data)
            }
        }
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Collapses whitespace and cuts to `max_chars` characters (with an ellipsis).
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars + 4));
    let mut last_space = false;
    for (n, c) in text.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        if c.is_whitespace() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(c);
            last_space = false;
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_and_lines() {
        let blocks = vec![
            json!({"type":"text","text":"hello\n  world"}),
            json!({"type":"tool-call","name":"bash","arguments":"{}"}),
        ];
        assert_eq!(
            one_line(&text_of_blocks(&blocks), SUMMARY_CHARS),
            "hello world · bash({})"
        );
        let long = "x".repeat(500);
        assert_eq!(one_line(&long, 10).chars().count(), 11);
        assert_eq!(
            summarize_data("turn/end", &json!({"turn":1,"reason":{"kind":"completed"}})),
            "turn 1 {\"kind\":\"completed\"}"
        );
    }
}
