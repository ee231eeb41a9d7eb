//! `surface`'s document: the nodes of the surface at a cursor with their ops and meter
//! prices, the ops rejected up to it, and the meter's figures there.

use serde_json::{Value, json};
use surface_engine::{EventIdx, EventLog, EventState, Meter, Surface, SurfaceOp};

use crate::Source;

/// The events before the cursor whose op was rejected, each with the reason in words.
pub fn rejected(log: &EventLog, surface: &Surface) -> Vec<(EventIdx, String)> {
    log.indices()
        .take(surface.cursor())
        .filter_map(|i| match surface.state(i) {
            EventState::Invalid(reason) => {
                let (s, e) = match log.op(i) {
                    SurfaceOp::Replace { start, end } => (start, end),
                    _ => (0, 0),
                };
                Some((i, reason.describe(s, e)))
            }
            _ => None,
        })
        .collect()
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

/// The `--json` document of the surface at `at` (`surface` the surface there, `meter` the
/// log's meter) with the threshold at `threshold_ratio`.
pub fn document(
    source: &Source<'_>,
    at: Option<u64>,
    surface: &Surface,
    meter: &Meter,
    threshold_ratio: f64,
) -> Value {
    let log = source.log;
    let figure = meter.at(surface.cursor());
    let nodes: Vec<Value> = surface
        .nodes()
        .map(|i| {
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
    let invalid: Vec<Value> = rejected(log, surface)
        .iter()
        .map(|(i, reason)| {
            json!({"seq": log.event(*i).seq, "type": log.type_name(*i), "reason": reason})
        })
        .collect();
    json!({
        "at": at,
        "mode": surface.mode().as_str(),
        "nodes": nodes,
        "invalid": invalid,
        "repaired": source.repaired,
        "skipped": source.skipped,
        "tokens": {
            "total": figure.total,
            "surface": figure.surface,
            "baseline_kind": figure.baseline_kind,
            "window": meter.window_at(surface.cursor()),
            "threshold_ratio": threshold_ratio,
            "threshold": meter.threshold_at(surface.cursor(), threshold_ratio),
        },
    })
}
