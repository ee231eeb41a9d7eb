//! What goes wrong: a tool call's error (answered as an MCP error result, one sentence, the
//! server serving on) and the server's own (it cannot start or its transport failed).

use std::path::PathBuf;

use surface_reports::ReportError;

/// A tool call that cannot be answered; its text is the error result's one sentence.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No tool has this name.
    #[error("no tool named {0:?}; tools/list names every tool")]
    UnknownTool(String),
    /// An argument is missing, unknown or of the wrong type.
    #[error("{tool}: {message}")]
    Argument {
        /// The tool.
        tool: String,
        /// What is wrong, naming the argument.
        message: String,
    },
    /// The path does not exist under any root.
    #[error("{0}: no such file or folder under the roots")]
    Missing(String),
    /// A folder where a session file is needed.
    #[error(
        "{0} is a folder: the tools read session files (a folder is the command line's: check DIR, policy DIR, …)"
    )]
    Folder(String),
    /// The path resolves outside every root.
    #[error("{given} resolves to {}, outside the roots ({roots}); only files under a --root are read", resolved.display())]
    Outside {
        /// The path as given.
        given: String,
        /// Where it leads.
        resolved: PathBuf,
        /// The roots, comma-separated.
        roots: String,
    },
    /// A cursor this server did not give for this answer.
    #[error("cursor {0:?} is not one this answer gave (use next_cursor as it came)")]
    Cursor(String),
    /// The document could not be built: the file is unreadable, a seq is out of range, …
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A call's worker thread failed (never expected).
    #[error("the call failed inside the server: {0}")]
    Internal(String),
}

/// The server cannot start or serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A `--root` that is not a folder.
    #[error("--root {}: {source}", path.display())]
    Root {
        /// The root as given.
        path: PathBuf,
        /// Why it cannot be used.
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
    /// The MCP session could not be set up or ended in error.
    #[error("MCP transport: {0}")]
    Transport(String),
}
