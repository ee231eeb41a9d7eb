//! The meter's warnings (docs/meter.md and "bad input"): a `request/header` whose header is
//! not an object or whose system prompt / tools have the wrong JSON type, an
//! `assistant/message` usage that is not token counts, a `contextWindow` that is not a positive
//! integer. The figure is computed without that part; these findings say why.

use super::header::{HeaderProblem, RequestHeader};
use crate::EventType;
use crate::{EventIdx, EventLog, Finding, Rule};

/// Every meter warning of `log`, in log order.
pub fn meter_findings(log: &EventLog) -> Vec<Finding> {
    let header = log.types.id_of(EventType::RequestHeader);
    let context = log.types.id_of(EventType::RequestContext);
    let assistant = log.types.id_of(EventType::AssistantMessage);
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
