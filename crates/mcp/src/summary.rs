//! The short text beside each structured result: what the document says in a sentence or
//! two (the counts an agent asks for first), and whether the answer was cut.

use serde_json::Value;

/// The summary of `doc`, the (possibly cut) answer of tool `name` along list `list`.
pub fn of(name: &str, doc: &Value, list: Option<&str>) -> String {
    let mut text = match name {
        "check" => check(doc),
        "surface" => surface(doc),
        "request" => request(doc),
        _ => generic(name, doc),
    };
    if let Some(cursor) = doc.get("next_cursor").and_then(Value::as_str) {
        let shown = list
            .and_then(|k| doc.get(k))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        text.push_str(&format!(
            " This answer was cut: it holds {shown} items of `{}`; call again with cursor \"{cursor}\" for the rest.",
            list.unwrap_or("?")
        ));
    }
    text
}

fn num(doc: &Value, key: &str) -> String {
    match doc.get(key) {
        Some(Value::Null) | None => "?".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

fn check(doc: &Value) -> String {
    let findings = doc["findings"].as_array().map_or(&[][..], Vec::as_slice);
    let errors = findings.iter().filter(|f| f["severity"] == "error").count();
    let mut text = format!(
        "{}: {} events, {} mode, era {}; {errors} error{}, {} warning{}.",
        num(doc, "file"),
        num(doc, "events"),
        num(doc, "mode"),
        num(&doc["era"], "label"),
        if errors == 1 { "" } else { "s" },
        findings.len() - errors,
        if findings.len() - errors == 1 {
            ""
        } else {
            "s"
        },
    );
    if let Some(f) = findings.first() {
        text.push_str(&format!(
            " First: {} {} (seq {}): {}",
            num(f, "severity"),
            num(f, "rule"),
            num(f, "seq"),
            num(f, "message")
        ));
    }
    text
}

fn surface(doc: &Value) -> String {
    let t = &doc["tokens"];
    format!(
        "Surface {}: {} mode, {} nodes in this answer, {} tokens on the surface, meter total {} (window {}, threshold {}); {} rejected ops.",
        match doc.get("at").and_then(Value::as_u64) {
            Some(at) => format!("at seq {at}"),
            None => "at the end".to_string(),
        },
        num(doc, "mode"),
        doc["nodes"].as_array().map_or(0, Vec::len),
        num(t, "surface"),
        num(t, "total"),
        num(t, "window"),
        num(t, "threshold"),
        doc["invalid"].as_array().map_or(0, Vec::len),
    )
}

fn request(doc: &Value) -> String {
    format!(
        "Model request at step/start seq {} (turn {}, step {}), {}/{}: estimate {} tokens, {} messages in this answer, {} tools.",
        num(doc, "seq"),
        num(doc, "turn"),
        num(doc, "step"),
        num(doc, "provider"),
        num(doc, "model"),
        num(&doc["estimate"], "total"),
        doc["messages"].as_array().map_or(0, Vec::len),
        doc["tools"].as_array().map_or(0, Vec::len),
    )
}

/// The document's plain members and the length of its lists.
fn generic(name: &str, doc: &Value) -> String {
    let Some(map) = doc.as_object() else {
        return format!("{name}: {doc}");
    };
    let parts: Vec<String> = map
        .iter()
        .filter(|(k, _)| k.as_str() != "next_cursor")
        .filter_map(|(k, v)| match v {
            Value::Array(items) => Some(format!("{k}: {} items", items.len())),
            Value::String(s) if s.len() <= 120 => Some(format!("{k}: {s}")),
            Value::Number(n) => Some(format!("{k}: {n}")),
            Value::Bool(b) => Some(format!("{k}: {b}")),
            _ => None,
        })
        .take(12)
        .collect();
    format!("{name} — {}.", parts.join("; "))
}
