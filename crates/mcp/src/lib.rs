//! `surface-viewer mcp`: a read-only Model Context Protocol server on stdio (docs/mcp.md).
//! Every tool answers with the document the matching command prints for `--json`
//! (surface-reports) and a short text summary; paths resolve inside the `--root` folders
//! only, answers are cut at `max_bytes` with a cursor to continue, opened logs are kept in a
//! small least-recently-used cache, and nothing is ever written. Bad input is a tool error
//! (one sentence); the server keeps serving. Tokio lives here only, on one thread; the work
//! of a call runs on a blocking thread beside it.

#![forbid(unsafe_code)]

mod answer;
mod args;
mod cache;
mod call;
mod error;
mod per_file;
mod roots;
mod server;
mod summary;
mod tools;
mod tune;

use std::path::PathBuf;

pub use call::State;
pub use error::{ServeError, ToolError};
pub use roots::Roots;

/// How the server is started.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The folders paths must resolve inside (none: the current directory).
    pub roots: Vec<PathBuf>,
    /// The most text one session may hold once decompressed (the command line's
    /// `--max-bytes` read limit; none: its default).
    pub read_limit: Option<u64>,
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve(config: &Config) -> Result<(), ServeError> {
    let state = State::new(config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(server::run(state))
}
