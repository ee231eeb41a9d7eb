//! The meter's warnings (viewer-spec §7 and "bad input"): a `request/header` whose header is
//! not an object or whose system prompt / tools have the wrong JSON type, an
//! `assistant/message` usage that is not token counts, a `contextWindow` that is not a positive
//! integer. The figure is computed without that part; these findings say why.

use serde_json::Value;

use super::header::{HeaderProblem, RequestHeader};
use crate::{EventIdx, EventLog, Finding, Rule};

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

/// Every meter warning of `log`, in log order.
pub fn meter_findings(log: &EventLog) -> Vec<Finding> {
    let header = log.types.get("request/header");
    let context = log.types.get("request/context");
    let assistant = log.types.get("assistant/message");
    let mut out = Vec::new();
    for idx in log.indices() {
        let kind = Some(log.event(idx).kind);
        if kind == header {
            let (_, problems) = RequestHeader::from_data(&log.data_value(idx));
            for p in problems {
                let rule = match p {
                    HeaderProblem::NotAnObject => Rule::MeterBadHeader,
                    HeaderProblem::SystemNotString => Rule::MeterBadSystem,
                    HeaderProblem::ToolsNotArray => Rule::MeterBadTools,
                };
                out.push(finding(log, idx, rule, p.describe().to_string()));
            }
        } else if kind == context && super::raw::context_window_of(log, idx).is_err() {
            out.push(finding(
                log,
                idx,
                Rule::MeterBadWindow,
                "request/context contextWindow is not a positive integer; the window in force is unchanged".to_string(),
            ));
        } else if kind == assistant
            && let Some(Err(why)) = super::raw::usage_field(log, idx)
        {
            out.push(finding(
                log,
                idx,
                Rule::MeterBadUsage,
                format!("{why}; the meter anchors this message without provider usage"),
            ));
        }
    }
    out
}

fn finding(log: &EventLog, idx: EventIdx, rule: Rule, message: String) -> Finding {
    let e = log.event(idx);
    Finding::new(rule, Some(e.seq), (e.line > 0).then_some(e.line), message)
}
