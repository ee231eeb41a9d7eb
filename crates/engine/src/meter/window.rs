//! The `contextWindow` value of a request: a positive integer, absent, or bad.

use serde_json::Value;

/// A `contextWindow` that is present but not a positive integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("contextWindow is not a positive integer")]
pub struct BadWindow;

/// A `contextWindow` value: `Ok(None)` when absent, `Err` when it is not a positive integer.
pub fn context_window(window: Option<&Value>) -> Result<Option<u64>, BadWindow> {
    match window {
        None | Some(Value::Null) => Ok(None),
        Some(w) => match w.as_u64().or_else(|| {
            let f = w.as_f64()?;
            (f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
        }) {
            Some(w) if w > 0 => Ok(Some(w)),
            _ => Err(BadWindow),
        },
    }
}
