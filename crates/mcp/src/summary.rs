//! The short text beside each structured result: what the document says in a sentence or
//! two (the counts an agent asks for first), and whether the answer was cut.

use serde_json::Value;

/// The summary of `doc`, the (possibly cut) answer of tool `name` along its lists `lists`.
pub fn of(name: &str, doc: &Value, lists: &[&str]) -> String {
    let mut text = match name {
        "check" => check(doc),
        "surface" => surface(doc),
        "request" => request(doc),
        "sessions" => sessions(doc),
        "messages" => messages(doc),
        "events" => events(doc),
        "audit" => audit(doc),
        "policy" => policy(doc),
        "cost" => cost(doc),
        "compare" => compare(doc),
        "tune" => tune(doc),
        _ => generic(name, doc),
    };
    if let Some(cursor) = doc.get("next_cursor").and_then(Value::as_str) {
        let held: Vec<String> = (lists.iter())
            .filter_map(|&k| Some((k, doc.get(k)?.as_array()?.len())))
            .filter(|&(_, n)| n > 0)
            .map(|(k, n)| format!("{n} items of `{k}`"))
            .collect();
        let held = if held.is_empty() {
            "no item".to_string()
        } else {
            held.join(" and ")
        };
        text.push_str(&format!(
            " This answer was cut: it holds {held}; call again with cursor \"{cursor}\" for the rest."
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

fn count(doc: &Value, key: &str, keep: impl Fn(&Value) -> bool) -> usize {
    doc[key]
        .as_array()
        .map_or(0, |a| a.iter().filter(|v| keep(v)).count())
}

fn sessions(doc: &Value) -> String {
    let list = doc["sessions"].as_array().map_or(&[][..], Vec::as_slice);
    let each: Vec<String> = list
        .iter()
        .take(5)
        .map(|s| {
            // A folder's listing holds the figures apart; a file's beside the id.
            let f = if s["figures"].is_object() {
                &s["figures"]
            } else {
                s
            };
            match s["error"].as_str() {
                Some(e) => format!("{} (unreadable: {e})", num(s, "id")),
                None => format!(
                    "{} ({} events, {} errors, {} warnings)",
                    num(s, "id"),
                    num(f, "events"),
                    num(f, "errors"),
                    num(f, "warnings")
                ),
            }
        })
        .collect();
    let more = list.len().saturating_sub(5);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "{} sessions in this answer: {}{more}.",
        list.len(),
        each.join(", ")
    )
}

fn messages(doc: &Value) -> String {
    let list = doc["messages"].as_array().map_or(&[][..], Vec::as_slice);
    match (list.first(), list.last()) {
        (Some(first), Some(last)) => format!(
            "{} messages in this answer, from seq {} ({}) to seq {} ({}).",
            list.len(),
            num(first, "seq"),
            num(first, "role"),
            num(last, "seq"),
            num(last, "role")
        ),
        _ => "No messages: the surface there is empty.".to_string(),
    }
}

fn events(doc: &Value) -> String {
    let list = doc["matches"].as_array().map_or(&[][..], Vec::as_slice);
    let span = match (list.first(), list.last()) {
        (Some(a), Some(b)) => format!(", seqs {} to {}", num(a, "seq"), num(b, "seq")),
        _ => String::new(),
    };
    format!(
        "{}: {} of its {} events match; this answer holds {}{span}.",
        num(doc, "file"),
        num(doc, "matched"),
        num(doc, "events"),
        list.len()
    )
}

fn audit(doc: &Value) -> String {
    let replaces = count(doc, "replaces", |_| true);
    let invalid = count(doc, "replaces", |r| r["valid"] == false);
    let lost = count(doc, "replaces", |r| {
        r["lost_terms"].as_array().is_some_and(|t| !t.is_empty())
    });
    format!(
        "{}: {replaces} replace ops in this answer ({invalid} invalid, {lost} with lost terms), {} failed compactions, {} requests over the threshold {} (window {}).",
        num(doc, "file"),
        count(doc, "failed", |_| true),
        count(doc, "over_threshold_requests", |_| true),
        num(doc, "threshold"),
        num(doc, "window"),
    )
}

fn policy(doc: &Value) -> String {
    let checks = count(doc, "checks", |_| true);
    let disagree = count(doc, "checks", |c| c["agrees"] == false);
    let divergence = match doc.get("first_divergence") {
        Some(Value::Null) | None => String::new(),
        Some(d) => format!(" First divergence: {d}."),
    };
    format!(
        "{}: the policy replayed ({}), {checks} pressure checks in this answer, {disagree} disagreeing with the log.{divergence}",
        num(doc, "file"),
        num(doc, "mode"),
    )
}

fn cost(doc: &Value) -> String {
    let agent = &doc["totals"]["agent"];
    let priced = match doc["totals"]["all"].get("cost") {
        Some(Value::Number(c)) => format!(", {c} {} in all", num(doc, "currency")),
        _ => String::new(),
    };
    format!(
        "{}: {} agent calls, {} prompt tokens ({} read from the cache, hit rate {}), {} compactions{priced}.",
        num(doc, "file"),
        num(agent, "calls"),
        num(agent, "prompt"),
        num(agent, "cache_read"),
        num(agent, "cache_hit_rate"),
        count(doc, "compactions", |_| true),
    )
}

fn compare(doc: &Value) -> String {
    let (a, b) = (&doc["totals"]["a"], &doc["totals"]["b"]);
    let split = match doc.get("first_divergence") {
        Some(Value::Null) | None => "no divergence".to_string(),
        Some(d) => format!(
            "first divergence at A seq {} / B seq {} ({})",
            num(d, "a_seq"),
            num(d, "b_seq"),
            num(d, "kind")
        ),
    };
    format!(
        "A {} vs B {}: {split}; prompt tokens {} vs {}, summaries {} vs {}, agent calls {} vs {}.",
        num(&doc["a"], "file"),
        num(&doc["b"], "file"),
        num(a, "prompt"),
        num(b, "prompt"),
        num(a, "summaries"),
        num(b, "summaries"),
        num(a, "agent_calls"),
        num(b, "agent_calls"),
    )
}

fn tune(doc: &Value) -> String {
    format!(
        "{} sessions swept ({} unreadable) over {} settings by {}: recommended setting {} — {}",
        num(doc, "sessions"),
        num(doc, "unreadable"),
        count(doc, "settings", |_| true),
        num(doc, "objective"),
        num(doc, "recommended"),
        num(doc, "why"),
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
