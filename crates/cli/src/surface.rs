//! `surface`: the surface nodes at a cursor, and the ops rejected up to it.

use std::io::Write as _;

use serde_json::{Value, json};

use super::load::{describe_cursor, load, write_context};
use super::{EXIT_OK, Input, MeterOptions, print_json};
use surface_engine::{EventIdx, EventLog, EventState, Surface, SurfaceOp, one_line, summarize};

/// Runs `surface`.
pub fn run(
    input: &Input,
    at: Option<u64>,
    json: bool,
    repair: bool,
    options: &MeterOptions,
) -> anyhow::Result<u8> {
    let loaded = load(input, repair)?;
    let log = &loaded.log;
    let surface = loaded.surface_at(at);
    let meter = super::meter_of(log, &Surface::at_end(log));
    let figure = meter.at(surface.cursor());
    let nodes: Vec<EventIdx> = surface.nodes().collect();
    let invalid: Vec<(EventIdx, String)> = log
        .indices()
        .take(surface.cursor())
        .filter_map(|i| match surface.state(i) {
            EventState::Invalid(reason) => {
                let (s, e) = endpoints(log, i);
                Some((i, reason.describe(s, e)))
            }
            _ => None,
        })
        .collect();
    if json {
        let nodes_json: Vec<Value> = nodes
            .iter()
            .map(|&i| {
                let e = log.event(i);
                let mut v = json!({
                    "seq": e.seq,
                    "type": log.type_name(i),
                    "op": op_json(log.op(i)),
                    "tokens": meter.price(i),
                });
                if e.is_synthesized() {
                    v["synthesized"] = json!(true);
                }
                if e.is_seed() {
                    v["seed"] = json!(true);
                }
                v
            })
            .collect();
        let invalid_json: Vec<Value> = invalid
            .iter()
            .map(|(i, reason)| json!({"seq": log.event(*i).seq, "type": log.type_name(*i), "reason": reason}))
            .collect();
        print_json(&json!({
            "at": at,
            "mode": surface.mode().as_str(),
            "nodes": nodes_json,
            "invalid": invalid_json,
            "repaired": loaded.repaired,
            "skipped": loaded.skipped,
            "tokens": {
                "total": figure.total,
                "surface": figure.surface,
                "baseline_kind": figure.baseline_kind,
                "window": meter.window_at(surface.cursor()),
                "threshold_ratio": options.threshold_ratio,
                "threshold": meter.threshold_at(surface.cursor(), options.threshold_ratio),
            },
        }))?;
        return Ok(EXIT_OK);
    }
    let mut out = std::io::stdout().lock();
    let tokens: Vec<u64> = nodes.iter().map(|&i| meter.price(i)).collect();
    let window = match (
        meter.window_at(surface.cursor()),
        meter.threshold_at(surface.cursor(), options.threshold_ratio),
    ) {
        (Some(w), Some(t)) => format!(
            " of window {w} ({:.1}%, threshold {t})",
            figure.total as f64 * 100.0 / w as f64
        ),
        _ => String::new(),
    };
    write_context(writeln!(
        out,
        "surface {} — {} mode, {} nodes, {} tokens on the surface; meter total {} ({}){window}",
        describe_cursor(at),
        surface.mode().as_str(),
        nodes.len(),
        figure.surface,
        figure.total,
        figure.baseline_kind.as_str(),
    ))?;
    if let Some(h) = &log.header
        && let Some(parent) = &h.parent_session
    {
        write_context(writeln!(
            out,
            "fork of session {parent}: its first {} events are the inherited seed (seq marked *)",
            h.seed_length.unwrap_or(0)
        ))?;
    }
    write_context(writeln!(
        out,
        "{:>7}  {:<18} {:<16} {:>7}  summary",
        "seq", "type", "op", "tokens"
    ))?;
    for (&i, t) in nodes.iter().zip(&tokens) {
        let e = log.event(i);
        let op = match log.op(i) {
            SurfaceOp::Replace { start, end } => format!("replace {start}..{end}"),
            _ if e.is_synthesized() => "append (repair)".to_string(),
            SurfaceOp::Append => "append".to_string(),
            _ => "(legacy)".to_string(),
        };
        let summary = one_line(&summarize(log, i), 96);
        write_context(writeln!(
            out,
            "{:>7}  {:<18} {:<16} {:>7}  {}",
            if e.is_seed() {
                format!("*{}", e.seq)
            } else {
                e.seq.to_string()
            },
            log.type_name(i),
            op,
            t,
            summary
        ))?;
    }
    if !invalid.is_empty() {
        write_context(writeln!(out, "rejected ops:"))?;
        for (i, reason) in &invalid {
            write_context(writeln!(
                out,
                "{:>7}  {:<18} {}",
                log.event(*i).seq,
                log.type_name(*i),
                reason
            ))?;
        }
    }
    Ok(EXIT_OK)
}

fn endpoints(log: &EventLog, i: EventIdx) -> (u64, u64) {
    match log.op(i) {
        SurfaceOp::Replace { start, end } => (start, end),
        _ => (0, 0),
    }
}

/// The op as JSON: `"append"`, the replace object, `"malformed"` or null.
pub fn op_json(op: SurfaceOp) -> Value {
    match op {
        SurfaceOp::None => Value::Null,
        SurfaceOp::Append => json!("append"),
        SurfaceOp::Replace { start, end } => json!({"op": "replace", "start": start, "end": end}),
        SurfaceOp::Malformed(_) => json!("malformed"),
    }
}
