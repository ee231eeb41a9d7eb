//! Each tool's arguments, named as the command line names its options (in snake case), with
//! their JSON Schemas. Unknown arguments are refused, so a misspelt name is an error and not
//! a silent default. `cursor` and `max_bytes` are every tool's and are read apart
//! ([`PageArgs`]).

use schemars::JsonSchema;
use serde::Deserialize;

/// Every tool's paging arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageArgs {
    /// Continue an answer that was cut: the `next_cursor` it carried.
    pub cursor: Option<String>,
    /// The most bytes of JSON this answer may hold (default 65536); a larger one is cut at a
    /// whole item with `next_cursor`.
    pub max_bytes: Option<u64>,
}

/// A session file and the session in it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileArgs {
    /// The session file (.jsonl, .jsonl.zstd or SQLite), relative to a root or absolute
    /// inside one.
    pub path: String,
    /// The session id in a SQLite file (default: the only one, else the newest).
    pub session: Option<String>,
}

/// `sessions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsArgs {
    /// A session file (a SQLite file may hold many), or a folder: every session under it (no
    /// symbolic link followed out of the roots).
    pub path: String,
    /// Only this session.
    pub session: Option<String>,
}

/// `surface`, `request`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// The seq to stand at (default: the end of the log).
    pub at: Option<u64>,
    /// The compaction threshold as a fraction of the context window (default 0.8).
    pub threshold_ratio: Option<f64>,
}

/// `messages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessagesArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// The seq to stand at (default: the end of the log).
    pub at: Option<u64>,
}

/// `events`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// The first seq (inclusive; default the first event).
    pub from: Option<u64>,
    /// The last seq (inclusive; default the last event).
    pub to: Option<u64>,
    /// Only events whose JSON holds this text (ASCII letters in any case).
    pub query: Option<String>,
}

/// `audit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// The compaction threshold as a fraction of the context window (default 0.8).
    pub threshold_ratio: Option<f64>,
}

/// `cost`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CostArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// A price file under a root (JSON: currency, per, models); without it every figure stays
    /// in tokens.
    pub prices: Option<String>,
    /// Also every request's first change against the previous agent request (why the cache
    /// missed), as `cost --requests`.
    #[serde(default)]
    pub requests: bool,
}

/// `policy`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyArgs {
    /// The session file.
    pub path: String,
    /// The session id in a SQLite file.
    pub session: Option<String>,
    /// Threshold ratio T (default 0.8).
    pub threshold_ratio: Option<f64>,
    /// Retain ratio R (default 0.16).
    pub retain_ratio: Option<f64>,
    /// Retain budget in tokens, instead of a ratio.
    pub retain_tokens: Option<u64>,
    /// Summaries per pressure check beyond the first (default 1).
    pub compaction_retries: Option<u64>,
    /// Replay without the tool-result pruner.
    #[serde(default)]
    pub no_prune: bool,
    /// The pruner's sizes in code points, "CHARS,HEAD,TAIL" (default "8192,4096,1024").
    pub prune: Option<String>,
    /// Price of a hypothetical summary in a what-if (default: the mean of the log's own).
    pub summary_tokens: Option<u64>,
    /// Remove the log's compactions and replay the session with these settings.
    #[serde(default)]
    pub what_if: bool,
    /// A price file under a root.
    pub prices: Option<String>,
}

/// `compare`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareArgs {
    /// The first run, A.
    pub a: String,
    /// The second run, B.
    pub b: String,
    /// The session id of A in a SQLite file.
    pub session_a: Option<String>,
    /// The session id of B in a SQLite file.
    pub session_b: Option<String>,
    /// The compaction threshold as a fraction of the context window (default 0.8).
    pub threshold_ratio: Option<f64>,
    /// A price file under a root.
    pub prices: Option<String>,
}

/// `tune`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TuneArgs {
    /// Session files to sweep.
    pub paths: Vec<String>,
    /// Axes of the grid, each "NAME=VALUES" (as `tune --grid`); default the 240-setting grid.
    #[serde(default)]
    pub grid: Vec<String>,
    /// What the recommendation minimizes: "cost" (needs prices) or "prompt".
    pub objective: Option<Objective>,
    /// The most requests over the window a recommended setting may risk (default 0).
    pub max_over_window: Option<u64>,
    /// The largest share of requests over the threshold a recommended setting may have.
    pub max_over_threshold: Option<f64>,
    /// A price file under a root.
    pub prices: Option<String>,
}

/// What `tune` ranks by.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// Σ cost.
    Cost,
    /// Σ agent prompt tokens.
    Prompt,
}
