//! `request`: the model call in force at a cursor (docs/meter.md) — header, messages, the
//! meter's estimate and the provider's reported usage.

use std::io::Write as _;

use serde_json::Value;

use super::load::{describe_cursor, load, write_context};
use super::{EXIT_OK, Input, MeterOptions, print_json};
use surface_engine::{Request, Surface, one_line, text_of_blocks};

/// Runs `request`.
pub fn run(
    input: &Input,
    at: Option<u64>,
    json: bool,
    options: &MeterOptions,
) -> anyhow::Result<u8> {
    let loaded = load(input, false)?;
    let log = &loaded.log;
    let meter = super::meter_of(log, &Surface::at_end(log));
    let file = input.file.display().to_string();
    let source = loaded.source(&file);
    // Nothing to show is trouble (exit 2), not a finding: exit 1 means a judgement of the log.
    let request = surface_reports::request::request_of(&source, &meter, at)?;
    if json {
        print_json(&surface_reports::request::document(
            &source,
            &request,
            at,
            options.threshold_ratio,
        )?)?;
    } else {
        let threshold = surface_reports::request::threshold(&request, options.threshold_ratio);
        write_human(&request, at, threshold)?;
    }
    Ok(EXIT_OK)
}

fn write_human(request: &Request, at: Option<u64>, threshold: Option<u64>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let opt = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    write_context(writeln!(
        out,
        "model request {}: turn {}, step {} (step/start seq {}{}) — {} / {}",
        describe_cursor(at),
        opt(request.turn),
        opt(request.step),
        request.seq,
        request
            .message_seq
            .map_or(String::new(), |s| format!(", answered by seq {s}")),
        request.provider.as_deref().unwrap_or("?"),
        request.model.as_deref().unwrap_or("?"),
    ))?;
    let e = &request.estimate;
    write_context(writeln!(
        out,
        "  estimate (the meter's prices): system {} + tools {} + messages {} = {} tokens",
        e.system, e.tools, e.messages, e.total
    ))?;
    write_context(writeln!(
        out,
        "  meter total when the messages were fixed: {} ({} baseline)",
        request.meter.total,
        request.meter.baseline_kind.as_str()
    ))?;
    match (request.context_window, threshold) {
        (Some(w), Some(t)) => write_context(writeln!(
            out,
            "  context window {w}, threshold {t}: {:.1}% full",
            request.meter.total as f64 * 100.0 / w as f64
        ))?,
        _ => write_context(writeln!(out, "  context window unknown"))?,
    }
    match &request.reported {
        Some(r) => write_context(writeln!(
            out,
            "  reported by the provider: input {} + cache read {} + cache write {} = {} prompt tokens, output {}",
            r.input,
            r.cache_read,
            r.cache_write,
            r.prompt(),
            r.output
        ))?,
        None => write_context(writeln!(out, "  no usage reported"))?,
    }
    let system = request.system.as_deref().unwrap_or("(none)");
    write_context(writeln!(out, "system: {}", one_line(system, 100)))?;
    write_context(writeln!(out, "tools ({}):", request.tools.len()))?;
    for tool in &request.tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        write_context(writeln!(out, "  {name:<16} {}", one_line(description, 80)))?;
    }
    write_context(writeln!(
        out,
        "messages ({}), as they stood before seq {}:",
        request.messages.len(),
        opt(request.messages_before_seq)
    ))?;
    for (m, price) in request.messages.iter().zip(&request.message_prices) {
        write_context(writeln!(
            out,
            "  {:>7}  {:<9} {:>7}  {}",
            m.seq,
            m.role,
            price,
            one_line(&text_of_blocks(&m.content), 90)
        ))?;
    }
    Ok(())
}
