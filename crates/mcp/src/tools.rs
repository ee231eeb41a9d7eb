//! The tool list: each tool's name, what it answers, its input schema (its arguments and the
//! paging ones) and the list of its document that an answer is cut along.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ToolError;
use crate::args::{
    AtArgs, AuditArgs, CompareArgs, CostArgs, EventsArgs, FileArgs, MessagesArgs, PageArgs,
    PolicyArgs, SessionsArgs, TuneArgs,
};

/// One tool.
pub struct ToolSpec {
    /// Its name.
    pub name: &'static str,
    /// What it answers.
    pub description: &'static str,
    /// The lists its answer is cut along, in order (one cursor walks them all; none: the
    /// answer is whole).
    pub list: &'static [&'static str],
    schema: fn() -> JsonObject,
}

/// Every tool, in the order `tools/list` gives them.
pub const TOOLS: [ToolSpec; 11] = [
    spec::<SessionsArgs>(
        "sessions",
        "The sessions a file holds (id, created (epoch ms), events, parent, seed length, origin, errors, warnings), as {\"sessions\": [...]} — the document of `surface-viewer sessions FILE --json`; or every session under a folder with its figures, the files that could not be read and the walk's notes — the document of `sessions DIR --json`.",
        &["sessions"],
    ),
    spec::<FileArgs>(
        "check",
        "Findings of a session log: the format, the mode, the harness era whose rules decided the severities, and every finding with its rule, severity, seq and line. The document of `check FILE --json`.",
        &["findings"],
    ),
    spec::<AtArgs>(
        "surface",
        "The surface (what the model's context held) at the end or at a seq: each node's seq, type, op and meter tokens, the ops rejected up to there, and the meter's total, window and threshold. The document of `surface FILE --json`.",
        &["nodes"],
    ),
    spec::<MessagesArgs>(
        "messages",
        "The messages derived from the surface at the end or at a seq. The array `messages FILE` prints, as {\"messages\": [...]}.",
        &["messages"],
    ),
    spec::<AtArgs>(
        "request",
        "The model request in force at a seq: header, system prompt, tools, messages, the meter's estimate and the provider's reported usage. The document of `request FILE --json`.",
        &["messages"],
    ),
    spec::<EventsArgs>(
        "events",
        "Events with their JSON: a seq range (from, to; inclusive) or the events whose JSON holds a text (query), or both.",
        &["matches"],
    ),
    spec::<AuditArgs>(
        "audit",
        "Every replace op (compaction): kind, trigger, fill before and after, tokens saved, lost terms, refetches, fidelity; failed compactions; requests over the threshold. The document of `audit FILE --json`.",
        &["replaces", "failed"],
    ),
    spec::<PolicyArgs>(
        "policy",
        "The harness's compaction policy replayed: every decision verified against the log and the settings it implies, or (what_if) another setting with its ledger beside the log's. The document of `policy FILE --json`.",
        &["checks"],
    ),
    spec::<CostArgs>(
        "cost",
        "What context cost: the model calls' tokens per turn and in total, the cache hit rate, each compaction's balance; priced with a price file. The document of `cost FILE --json`.",
        &["calls", "compactions", "turns"],
    ),
    spec::<CompareArgs>(
        "compare",
        "Two runs side by side: the first divergence, per turn and in total the calls, tokens, compactions and cost, B − A and B / A. The document of `compare A B --json`.",
        &["turns"],
    ),
    spec::<TuneArgs>(
        "tune",
        "Which compaction setting to ship: the policy swept over a grid of settings across the sessions, per setting the totals with ranges, the baseline, the frontier and the recommendation. The document of `tune PATH... --json`.",
        &["settings"],
    ),
];

const fn spec<T: JsonSchema>(
    name: &'static str,
    description: &'static str,
    list: &'static [&'static str],
) -> ToolSpec {
    ToolSpec {
        name,
        description,
        list,
        schema: schema_of::<T>,
    }
}

/// `T`'s schema with the paging arguments added.
fn schema_of<T: JsonSchema>() -> JsonObject {
    let mut schema = schemars::schema_for!(T)
        .as_object()
        .cloned()
        .unwrap_or_default();
    let paging = schemars::schema_for!(PageArgs);
    if let (Some(Value::Object(props)), Some(Value::Object(more))) = (
        schema.get_mut("properties"),
        paging.as_object().and_then(|p| p.get("properties")),
    ) {
        props.extend(more.clone());
    }
    schema
}

/// The tool named `name`.
pub fn find(name: &str) -> Result<&'static ToolSpec, ToolError> {
    TOOLS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| ToolError::UnknownTool(name.to_string()))
}

/// Every tool as MCP lists it.
pub fn listed() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|t| {
            let mut tool = Tool::new(t.name, t.description, Arc::new((t.schema)()));
            tool.annotations = Some(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            );
            tool
        })
        .collect()
}

/// The arguments of `tool` read from `args` as `T`; an error names the argument at fault.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolError> {
    let error = match serde_json::from_value::<T>(Value::Object(args.clone())) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e.to_string(),
    };
    // serde names a missing or unknown argument but not one of the wrong type: find the one
    // whose removal changes the error.
    let culprit = args.keys().find(|k| {
        let mut fewer = args.clone();
        fewer.remove(*k);
        serde_json::from_value::<T>(Value::Object(fewer))
            .map_or_else(|e| e.to_string() != error, |_| true)
    });
    let message = match culprit {
        Some(k) if !error.contains('`') => format!("argument `{k}`: {error}"),
        _ => error,
    };
    Err(ToolError::Argument {
        tool: tool.to_string(),
        message,
    })
}
