//! Replace preview: the event a compaction of a chosen surface range would append, whether it
//! is valid at the cursor, what it shadows, and the node/token totals before and after — in
//! the harness's token meter (docs/meter.md).

use super::event_type::EventType;
use serde::Serialize;
use serde_json::{Value, json};

use super::event::EventIdx;
use super::log::EventLog;
use super::meter::{Meter, text_message_price};
use super::surface::Surface;

/// What the user asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewRequest {
    /// Seq of the first node to shadow.
    pub start: u64,
    /// Seq of the last node to shadow (inclusive).
    pub end: u64,
    /// The replacement's text.
    pub summary: String,
    /// `time` for the event (the engine has no clock; `None` reuses the last event's time).
    pub time: Option<i64>,
}

/// Node and token totals of a surface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Number of nodes.
    pub nodes: usize,
    /// The meter's total (docs/meter.md): what the compaction policy compares with its
    /// threshold. The name is `preview --json`'s (docs/check.md#preview).
    pub approx_tokens: u64,
    /// The sum of the meter's node prices on the surface.
    pub surface_tokens: u64,
}

/// The preview.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Preview {
    /// Whether the op would be applied at the cursor.
    pub valid: bool,
    /// Why not, when invalid.
    pub errors: Vec<String>,
    /// Things worth knowing that do not make it invalid.
    pub warnings: Vec<String>,
    /// Seqs of the nodes it would shadow, in surface order (empty when invalid).
    pub shadowed: Vec<u64>,
    /// Totals of the surface at the cursor.
    pub before: Totals,
    /// Totals after the replace (equal to `before` when invalid).
    pub after: Totals,
    /// The resulting surface as seqs (the replacement's seq in place of the range).
    pub after_nodes: Vec<u64>,
    /// The proposed event as it would be appended.
    pub event: Value,
}

impl Preview {
    /// The proposed event as one JSONL line.
    pub fn event_line(&self) -> String {
        self.event.to_string()
    }
}

/// Builds the preview of replacing `start..=end` at the surface's cursor, priced by `meter`
/// (built over `log`).
pub fn preview_replace(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    req: &PreviewRequest,
) -> Preview {
    let seq = log.next_seq();
    let check = surface.check_replace(log, req.start, req.end);
    let mut errors = Vec::new();
    if let Some(reason) = surface.replace_problem(&check) {
        errors.push(reason.describe(req.start, req.end));
    }
    let mut warnings = Vec::new();
    if req.start > req.end {
        warnings.push(format!(
            "start {} is numerically greater than end {} (allowed by position; the ADR-era invariant rejected it)",
            req.start, req.end
        ));
    }
    if req.summary.trim().is_empty() {
        warnings.push("the summary text is empty".to_string());
    }
    if surface.cursor() < log.len() {
        warnings.push(
            "the cursor is before the end of the log: appended now, the event would be checked against the surface at the end"
                .to_string(),
        );
    }
    let nodes: Vec<EventIdx> = surface.nodes().collect();
    let figure = meter.at(surface.cursor());
    let before = Totals {
        nodes: nodes.len(),
        approx_tokens: figure.total,
        surface_tokens: figure.surface,
    };
    let shadowed: Vec<EventIdx> = match (errors.is_empty(), check.first, check.last) {
        (true, Some(first), Some(last)) => surface.chain(first, last),
        _ => Vec::new(),
    };
    let shadowed_seqs: Vec<u64> = shadowed.iter().map(|&i| log.event(i).seq).collect();
    let event = proposed_event(log, seq, req, &shadowed_seqs);
    let (after, after_nodes) = if shadowed.is_empty() {
        (before, nodes.iter().map(|&i| log.event(i).seq).collect())
    } else {
        let removed: u64 = shadowed.iter().map(|&n| meter.price(n)).sum();
        let surface_after =
            figure.surface.saturating_sub(removed) + text_message_price(&req.summary);
        let mut seqs = Vec::with_capacity(nodes.len() + 1 - shadowed.len());
        let mut inside = false;
        for &n in &nodes {
            if n == shadowed[0] {
                inside = true;
                seqs.push(seq);
            }
            if !inside {
                seqs.push(log.event(n).seq);
            }
            if inside && Some(&n) == shadowed.last() {
                inside = false;
            }
        }
        (
            Totals {
                nodes: nodes.len() + 1 - shadowed.len(),
                approx_tokens: meter.total_with_surface(surface.cursor(), surface_after),
                surface_tokens: surface_after,
            },
            seqs,
        )
    };
    Preview {
        valid: errors.is_empty(),
        errors,
        warnings,
        shadowed: shadowed_seqs,
        before,
        after,
        after_nodes,
        event,
    }
}

fn proposed_event(log: &EventLog, seq: u64, req: &PreviewRequest, shadowed: &[u64]) -> Value {
    let mut data = json!({
        "content": [{"type": "text", "text": req.summary}],
        "source": {"kind": "plugin", "plugin": "surface-viewer"},
    });
    if uses_identified_messages(log) {
        data["role"] = json!("user");
        data["id"] = json!(format!("surface-viewer-replace-{seq}"));
    }
    let mut event = json!({"type": EventType::UserMessage.spelled(), "seq": seq});
    if let Some(t) = req.time.or_else(|| log.last_time()) {
        event["time"] = json!(t);
    }
    event["data"] = data;
    event["sourceEventSeqs"] = json!(shadowed);
    event["surfaceOp"] = json!({"op": "replace", "start": req.start, "end": req.end});
    event
}

/// True when the log's user messages carry an `id` (HEAD era), so the proposal should too.
fn uses_identified_messages(log: &EventLog) -> bool {
    let Some(user) = log.types.id_of(EventType::UserMessage) else {
        return false;
    };
    log.indices()
        .find(|&i| log.event(i).kind == user)
        .is_some_and(|i| log.data_value(i).get("id").is_some())
}
