//! The headless command line: `check`, `surface`, `messages`, `preview`, `sessions`
//! (docs/check.md), `audit` (docs/audit.md), `request` and `tokens` (docs/meter.md), `policy`
//! (docs/policy.md), `cost` (docs/cost.md), `compare` (docs/compare.md), `tune` (docs/tune.md);
//! `check`, `sessions`, `policy` and `cost` also on a folder, and `export`
//! writes sessions as Parquet tables (docs/export.md). Each subcommand is a thin
//! shell over `store` + `engine`.

#![forbid(unsafe_code)]

pub mod audit;
mod check;
mod check_dir;
pub mod compare;
pub mod cost;
mod csv_out;
mod dir;
pub mod export;
pub mod fleet;
mod load;
mod messages;
pub mod policy;
mod preview;
mod request;
mod sessions;
mod sessions_dir;
mod surface;
mod tokens;
pub mod tune;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

pub use load::{Loaded, load};
pub use surface_passes::{check_report_of, meter_of};
pub use surface_store::install_map_guard;

/// Exit code: clean — the command did its work and judged nothing wrong.
pub const EXIT_OK: u8 = 0;
/// Exit code: findings — `check` found errors, `preview` proposes an invalid op, `policy`
/// disagrees with a decision of the log.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: trouble — unreadable input, a usage error, a refused write, nothing to show.
pub const EXIT_UNREADABLE: u8 = 2;

/// The exit-code rule, at the end of `--help` (README.md § Exit status says the same).
const EXIT_STATUS_HELP: &str = "\
Exit status (as grep's): 0 clean; 1 findings — check found an error-level finding, preview
proposes an invalid op, policy disagrees with the log; 2 trouble — unreadable input, a usage
error, a refused write, nothing to show. surface, messages, tokens, request, audit, cost,
compare and sessions exit 0 or 2. A folder: check exits 1 when any session has an error or cannot be
read, policy when any disagrees (a what-if: diverges) or cannot be read, cost when any cannot
be read; check, policy, cost and sessions exit 2 only when none can be read. export exits 1 when
some session could not be read (its sessions row holds the error), 2 when none could.";

/// The first line of `--help`: what the tool is for and every headless command (a scenario
/// test holds it complete against the subcommands clap knows).
const ABOUT: &str = "Audit what an LLM agent actually saw in a deepseek-harness session log. \
Headless commands: check, surface, messages, preview, request, tokens, audit, policy, cost, \
compare, tune, sessions, export, mcp; without one, the desktop viewer opens.";

/// Audit what an LLM agent actually saw: deepseek-harness session logs, their surface,
/// provenance and replay. Without a subcommand, opens the desktop viewer.
#[derive(Debug, Parser)]
#[command(
    name = "surface-viewer",
    version,
    about = ABOUT,
    after_help = EXIT_STATUS_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// A headless command; without one the desktop viewer opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Session log to open in the viewer (.jsonl, .jsonl.zstd or SQLite), or a folder to browse
    /// every session under it; the bundled sample when omitted.
    pub file: Option<PathBuf>,
    /// Session to open in a SQLite file holding several.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Follow FILE live while an agent is still writing it (JSONL, zstd or SQLite).
    #[arg(long, requires = "file")]
    pub follow: bool,
}

/// The headless commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Findings; exit 0 without error-level findings, 1 with some, 2 when unreadable. FILE may
    /// be a folder: every session under it is checked in parallel (exit 1 when any session has
    /// an error or cannot be read, 2 only when nothing could be read).
    Check {
        #[command(flatten)]
        input: Input,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        /// Worker threads for a folder (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// The surface (the model's context) at the end or at a seq.
    Surface {
        #[command(flatten)]
        input: Input,
        /// The surface after every event with seq ≤ SEQ.
        #[arg(long, value_name = "SEQ")]
        at: Option<u64>,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        /// Include the closers the harness would synthesize for an open final turn.
        #[arg(long)]
        repair: bool,
        #[command(flatten)]
        meter: MeterOptions,
    },
    /// The derived messages as a JSON array.
    Messages {
        #[command(flatten)]
        input: Input,
        /// The messages after every event with seq ≤ SEQ.
        #[arg(long, value_name = "SEQ")]
        at: Option<u64>,
        /// Include the closers the harness would synthesize for an open final turn.
        #[arg(long)]
        repair: bool,
    },
    /// Preview the replace op that would shadow surface nodes START..=END with a summary.
    Preview {
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        options: preview::PreviewOptions,
    },
    /// The model request in force at a seq: header, messages, the meter's estimate and the
    /// provider's reported usage.
    Request {
        #[command(flatten)]
        input: Input,
        /// The request of the last step whose step/start is at or before SEQ.
        #[arg(long, value_name = "SEQ")]
        at: Option<u64>,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        meter: MeterOptions,
    },
    /// The harness's token meter after every event.
    Tokens {
        #[command(flatten)]
        input: Input,
        /// One JSON document on stdout.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// CSV on stdout, one line per event.
        #[arg(long)]
        csv: bool,
        #[command(flatten)]
        meter: MeterOptions,
    },
    /// Every replace op: kind, trigger, fill before and after, tokens saved, the compaction's
    /// own record, lost terms and refetches; failed compactions; requests over the threshold.
    Audit {
        #[command(flatten)]
        input: Input,
        /// One JSON document on stdout.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Markdown tables on stdout, to paste into a pull request.
        #[arg(long)]
        markdown: bool,
        /// Also write a self-contained HTML report to OUT (a new file; never the log, a file of
        /// its session, or any session log).
        #[arg(long, value_name = "OUT")]
        html: Option<PathBuf>,
        /// Replace OUT when it exists (never a session log).
        #[arg(long, requires = "html")]
        force: bool,
        #[command(flatten)]
        meter: MeterOptions,
        #[command(flatten)]
        prices: cost::PriceOptions,
    },
    /// What context cost: the model calls' tokens per turn and in total, the cache hit rate,
    /// and each compaction's summarizer tokens, saved tokens, broken cache and (with --prices)
    /// balance. FILE may be a folder: one row per session, in parallel, and the totals.
    Cost {
        #[command(flatten)]
        input: Input,
        /// One JSON document on stdout.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// CSV on stdout, one row per model call (a folder: one row per session).
        #[arg(long)]
        csv: bool,
        #[command(flatten)]
        prices: cost::PriceOptions,
        /// Also every request's first change against the previous agent request: its cause,
        /// the identical prefix, the tokens sent again, and the provider's own misses.
        #[arg(long)]
        requests: bool,
        /// Worker threads for a folder (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Two runs side by side (the same task under two settings, a fork and its parent): the
    /// first divergence, per turn and in total the calls, tokens, compactions, peak, requests
    /// over the threshold, refetches and (with --prices) cost, B − A and B / A, and which run
    /// was cheaper and why.
    Compare {
        #[command(flatten)]
        options: compare::CompareOptions,
    },
    /// The harness's compaction policy replayed: verify every decision the log holds, the
    /// settings it implies, and --what-if another setting with its ledger beside the log's;
    /// exit 0 when every decision agrees, 1 when some disagree, 2 on trouble. FILE may be a
    /// folder: one row per session, in parallel, and the totals.
    Policy {
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        options: policy::PolicyOptions,
        /// Worker threads for a folder (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// The sessions in a file: id, created, events, parent. FILE may be a folder: every
    /// session under it, with its project, title and figures.
    Sessions {
        /// The session file, or a folder to search.
        file: PathBuf,
        /// Accepted for symmetry with the other commands; lists only that session.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// The most text one session may hold once decompressed, in bytes (512M, 2G); a
        /// session past it is unreadable. Default: the smaller of 16G and three quarters of
        /// physical memory.
        #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
        max_bytes: Option<u64>,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        /// Worker threads for a folder (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Which compaction setting to ship: the policy swept over a grid of settings across
    /// every session under the PATHs (each read once), per setting the fleet's totals with
    /// their ranges, the baseline, the frontier and the recommendation (docs/tune.md).
    Tune {
        #[command(flatten)]
        options: tune::TuneOptions,
    },
    /// A read-only Model Context Protocol server on stdio: the headless commands' questions as
    /// tools an agent can call, reading only under the roots (docs/mcp.md).
    // The binary serves it (surface-mcp); this crate only reads its arguments. Hidden from the
    // list of commands until README.md's synopsis names it (a scenario test holds the two equal).
    Mcp {
        #[command(flatten)]
        options: McpOptions,
    },
    /// Every session under the PATHs as Apache Parquet tables for DuckDB, Polars, Spark or
    /// Trino: OUT/<table>/part-NNNNN.parquet for sessions, events, calls, checks, compactions
    /// and findings (docs/export.md).
    Export {
        #[command(flatten)]
        options: export::ExportOptions,
    },
}

/// `mcp`'s arguments.
#[derive(Clone, Debug, Args)]
pub struct McpOptions {
    /// A folder the server may read under (repeat for more; default: the current directory).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// The most text one session may hold once decompressed, in bytes (512M, 2G); past it a
    /// log is not read. Default: the smaller of 16G and three quarters of physical memory.
    #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
    pub max_bytes: Option<u64>,
}

/// The file and session every command reads.
#[derive(Clone, Debug, Args)]
pub struct Input {
    /// The session file (.jsonl, .jsonl.zstd or SQLite, detected by content); for `check`,
    /// `policy` and `cost`, also a folder.
    pub file: PathBuf,
    /// Session id in a SQLite file (default: the only one, else the most recently created).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The most text one session may hold once decompressed, in bytes (suffixes K, M, G, T:
    /// 512M, 2G); past it the file is not read (exit 2). Default: the smaller of 16G and
    /// three quarters of physical memory.
    #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
    pub max_bytes: Option<u64>,
}

impl Input {
    /// The limits the file is read within (`--max-bytes`, else the defaults).
    pub fn limits(&self) -> surface_store::ReadLimits {
        surface_store::ReadLimits::with_max_bytes(self.max_bytes)
    }
}

/// The meter's settings, for every command that shows a threshold.
#[derive(Debug, Args, Clone, Copy)]
pub struct MeterOptions {
    /// Compaction threshold as a fraction of the context window (the harness's default 0.8).
    #[arg(long, value_name = "R", default_value_t = surface_engine::DEFAULT_THRESHOLD_RATIO, value_parser = parse_ratio)]
    pub threshold_ratio: f64,
}

impl Default for MeterOptions {
    fn default() -> Self {
        MeterOptions {
            threshold_ratio: surface_engine::DEFAULT_THRESHOLD_RATIO,
        }
    }
}

fn parse_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err(format!("{text:?} is not a positive number (e.g. 0.8)")),
    }
}

/// Why [`run`] refuses `mcp`.
const MCP_IS_THE_BINARYS: &str = "`mcp` is served by the surface-viewer binary, not surface-cli";

/// Runs a headless command, writing to stdout. Errors that make the input unreadable are
/// returned; the caller prints them as one line and exits with [`EXIT_UNREADABLE`].
pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    let code = match command {
        Command::Check { input, json, jobs } if input.file.is_dir() => {
            check_dir::run(&input, json, jobs)?
        }
        Command::Check { input, json, .. } => check::run(&input, json)?,
        Command::Surface {
            input,
            at,
            json,
            repair,
            meter,
        } => surface::run(&input, at, json, repair, &meter)?,
        Command::Messages { input, at, repair } => messages::run(&input, at, repair)?,
        Command::Preview { input, options } => preview::run(&input, options)?,
        Command::Request {
            input,
            at,
            json,
            meter,
        } => request::run(&input, at, json, &meter)?,
        Command::Tokens {
            input,
            json,
            csv,
            meter,
        } => {
            let format = match (json, csv) {
                (true, _) => tokens::TokensFormat::Json,
                (_, true) => tokens::TokensFormat::Csv,
                _ => tokens::TokensFormat::Human,
            };
            tokens::run(&input, format, &meter)?
        }
        Command::Audit {
            input,
            json,
            markdown,
            html,
            force,
            meter,
            prices,
        } => {
            let format = match (json, markdown) {
                (true, _) => audit::AuditFormat::Json,
                (_, true) => audit::AuditFormat::Markdown,
                _ => audit::AuditFormat::Human,
            };
            let html = html
                .as_deref()
                .map(|out| audit::HtmlOut { path: out, force });
            audit::run(&input, format, html, &meter, &prices)?
        }
        Command::Cost {
            input,
            json,
            csv,
            prices,
            jobs,
            ..
        } if input.file.is_dir() => fleet::cost_dir::run(&input, (json, csv), &prices, jobs)?,
        Command::Cost {
            input,
            json,
            csv,
            prices,
            requests,
            ..
        } => {
            let format = match (json, csv) {
                (true, _) => cost::CostFormat::Json,
                (_, true) => cost::CostFormat::Csv,
                _ => cost::CostFormat::Human,
            };
            cost::run(&input, format, &prices, requests)?
        }
        Command::Compare { options } => compare::run(&options)?,
        Command::Policy {
            input,
            options,
            jobs,
        } if input.file.is_dir() => fleet::policy_dir::run(&input, &options, jobs)?,
        Command::Policy { input, options, .. } => policy::run(&input, &options)?,
        Command::Sessions {
            file,
            session,
            max_bytes,
            json,
            jobs,
        } => sessions_of(&file, session.as_deref(), max_bytes, json, jobs)?,
        Command::Export { options } => export::run(&options)?,
        Command::Tune { options } => tune::run(&options)?,
        // The server is the binary's (surface-mcp); the command line never calls it.
        Command::Mcp { .. } => anyhow::bail!(MCP_IS_THE_BINARYS),
    };
    Ok(ExitCode::from(code))
}

/// `sessions FILE` or `sessions DIR`, reading within `max_bytes`.
fn sessions_of(
    file: &std::path::Path,
    session: Option<&str>,
    max_bytes: Option<u64>,
    json: bool,
    jobs: Option<usize>,
) -> anyhow::Result<u8> {
    let limits = surface_store::ReadLimits::with_max_bytes(max_bytes);
    if file.is_dir() {
        sessions_dir::run(file, session, &limits, json, jobs)
    } else {
        sessions::run(file, session, &limits, json)
    }
}

/// Writes a JSON document to stdout followed by a newline.
fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    use std::io::Write as _;
    // Buffered: stdout flushes at every newline, and pretty JSON has one per field.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}
