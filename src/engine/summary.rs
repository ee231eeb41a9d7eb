//! One-line, human summaries of an event's payload, shared by the CLI and the GUI.

use serde_json::Value;

/// Maximum characters in a summary line.
pub const SUMMARY_CHARS: usize = 96;

/// A one-line summary of an event of `type_name` with payload `data`: the first text of a
/// message, the tool name and arguments of a call, the reason of a turn end, and so on.
pub fn summarize(type_name: &str, data: &Value) -> String {
    let text = match type_name {
        "tool/call" => format!(
            "{}({})",
            str_at(data, "/name").unwrap_or("?"),
            str_at(data, "/arguments").unwrap_or("")
        ),
        "turn/end" => data
            .pointer("/reason/kind")
            .and_then(Value::as_str)
            .map_or_else(|| compact(data), str::to_string),
        "assistant/chunk" => data
            .pointer("/chunk/text")
            .or_else(|| data.pointer("/chunk/argumentsDelta"))
            .and_then(Value::as_str)
            .map_or_else(
                || str_at(data, "/chunk/type").unwrap_or("chunk").to_string(),
                |t| format!("{t:?}"),
            ),
        "compaction/summary" | "compact/summary" => {
            first_text(data.get("summary")).unwrap_or_else(|| compact(data))
        }
        _ => message_text(data).unwrap_or_else(|| compact(data)),
    };
    one_line(&text)
}

/// The first readable text of a message-shaped payload, in any era's shape.
fn message_text(data: &Value) -> Option<String> {
    let content = data
        .pointer("/message/content")
        .or_else(|| data.get("content"))?;
    first_text(Some(content))
}

fn first_text(content: Option<&Value>) -> Option<String> {
    for block in content?.as_array()? {
        let t = block.get("type").and_then(Value::as_str).unwrap_or("");
        match t {
            "text" | "reasoning" => {
                if let Some(s) = block.get("text").and_then(Value::as_str)
                    && !s.trim().is_empty()
                {
                    return Some(s.to_string());
                }
            }
            "tool-call" => {
                return Some(format!(
                    "→ {}({})",
                    block.get("name").and_then(Value::as_str).unwrap_or("?"),
                    block.get("arguments").and_then(Value::as_str).unwrap_or("")
                ));
            }
            "tool-result" => {
                let inner = first_text(block.get("content")).unwrap_or_default();
                return Some(format!("← {inner}"));
            }
            _ => {}
        }
    }
    None
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn compact(data: &Value) -> String {
    match data {
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Collapses whitespace and cuts to [`SUMMARY_CHARS`] characters with an ellipsis.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(SUMMARY_CHARS + 3);
    let mut count = 0;
    let mut last_space = false;
    for c in text.chars() {
        let c = if c.is_whitespace() { ' ' } else { c };
        if c == ' ' && (last_space || count == 0) {
            continue;
        }
        last_space = c == ' ';
        if count == SUMMARY_CHARS {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries() {
        assert_eq!(
            summarize(
                "user/message",
                &json!({"content":[{"type":"text","text":"hello\n  world"}]})
            ),
            "hello world"
        );
        assert_eq!(
            summarize("tool/call", &json!({"name":"bash","arguments":"{\"c\":1}"})),
            "bash({\"c\":1})"
        );
        assert_eq!(
            summarize("turn/end", &json!({"reason":{"kind":"completed"}})),
            "completed"
        );
        let long = "x".repeat(500);
        assert_eq!(one_line(&long).chars().count(), SUMMARY_CHARS + 1);
    }
}
