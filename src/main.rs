//! The `surface-viewer` binary: headless commands, or the desktop viewer without one.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser as _;
use surface_cli::{self as cli, Cli, EXIT_UNREADABLE};

fn main() -> ExitCode {
    // The program, not the library, decides the process's signal handling: the guard that
    // lets the store map large logs (it chains to whatever SIGBUS handler was there before).
    surface_cli::install_map_guard();
    if std::env::args_os().nth(1).is_some_and(|a| a == "mcp") {
        return serve_mcp();
    }
    let args = Cli::parse();
    let result = match args.command {
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
#[derive(Debug, clap::Parser)]
#[command(
    name = "surface-viewer mcp",
    about = "A read-only Model Context Protocol server on stdio: every headless question as a tool (docs/mcp.md)."
)]
struct McpArgs {
    /// A folder the server may read under (repeat for more; default: the current directory).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<std::path::PathBuf>,
    /// The most text one session may hold once decompressed, in bytes (512M, 2G); past it a
    /// log is not read.
    #[arg(long, value_name = "N", value_parser = surface_mcp::parse_byte_size)]
    max_bytes: Option<u64>,
}

fn serve_mcp() -> ExitCode {
    let args = McpArgs::parse_from(std::env::args_os().skip(1));
    let config = surface_mcp::Config {
        roots: args.roots,
        read_limit: args.max_bytes,
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
