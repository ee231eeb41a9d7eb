//! The `surface-viewer` binary: headless commands, or the desktop viewer without one.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser as _;
use surface_cli::{self as cli, Cli, Command, EXIT_UNREADABLE, McpOptions};

fn main() -> ExitCode {
    // The program, not the library, decides the process's signal handling: the guard that
    // lets the store map large logs (it chains to whatever SIGBUS handler was there before).
    surface_cli::install_map_guard();
    let args = Cli::parse();
    let result = match args.command {
        // The MCP server and the command line never call each other: the binary picks.
        Some(Command::Mcp { options }) => return serve_mcp(options),
        Some(command) => cli::run(command),
        None => open_viewer(args.file, args.session, args.follow),
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("surface-viewer: error: {}", one_line(&err));
            ExitCode::from(EXIT_UNREADABLE)
        }
    }
}

/// `surface-viewer mcp [--root DIR]... [--max-bytes N]`: the MCP server on stdio until the
/// client closes stdin (docs/mcp.md).
fn serve_mcp(options: McpOptions) -> ExitCode {
    let config = surface_mcp::Config {
        roots: options.roots,
        read_limit: options.max_bytes,
    };
    match surface_mcp::serve(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("surface-viewer mcp: error: {err}");
            ExitCode::from(EXIT_UNREADABLE)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                .is_some_and(|k| k == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain().map(ToString::to_string) {
        // Store errors already include their source in their own message.
        if !line.contains(&cause) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&cause);
        }
    }
    line
}

#[cfg(feature = "gui")]
fn open_viewer(
    file: Option<std::path::PathBuf>,
    session: Option<String>,
    follow: bool,
) -> anyhow::Result<ExitCode> {
    surface_ui::run(file, session, follow)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "gui"))]
fn open_viewer(
    _file: Option<std::path::PathBuf>,
    _session: Option<String>,
    _follow: bool,
) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this build has no desktop viewer (built without the `gui` feature); use a subcommand such as `check` — see --help"
    )
}
