//! `request`'s document: the model call in force at a cursor — header, messages, the meter's
//! estimate and the provider's reported usage — with the threshold at the given ratio.

use serde_json::{Value, json};
use surface_engine::{Meter, Request, Surface, request_at};

use crate::{ReportError, Source};

/// The request of the last step whose step/start is at or before `at` (the end without one);
/// none is [`ReportError::NoRequest`].
pub fn request_of(
    source: &Source<'_>,
    meter: &Meter,
    at: Option<u64>,
) -> Result<Request, ReportError> {
    let log = source.log;
    let cursor = at.map_or(log.len(), |seq| log.cursor_for_seq(seq));
    let mut scratch = Surface::new(log);
    request_at(log, meter, cursor, &mut scratch).ok_or_else(|| ReportError::NoRequest {
        file: source.file.to_string(),
        place: match at {
            Some(seq) => format!("at or before seq {seq}"),
            None => "in the log".to_string(),
        },
    })
}

/// The threshold of `request`'s window at `threshold_ratio`, when the window is known.
pub fn threshold(request: &Request, threshold_ratio: f64) -> Option<u64> {
    request
        .context_window
        .map(|w| surface_engine::meter::threshold(w, threshold_ratio))
}

/// The `--json` document: the request, then `at`, the ratio, the threshold and what the
/// reader skipped.
pub fn document(
    source: &Source<'_>,
    request: &Request,
    at: Option<u64>,
    threshold_ratio: f64,
) -> Result<Value, ReportError> {
    let mut doc = serde_json::to_value(request)?;
    if let Value::Object(map) = &mut doc {
        map.insert("at".into(), json!(at));
        map.insert("threshold_ratio".into(), json!(threshold_ratio));
        map.insert(
            "threshold".into(),
            json!(threshold(request, threshold_ratio)),
        );
        map.insert("skipped".into(), json!(source.skipped));
    }
    Ok(doc)
}
