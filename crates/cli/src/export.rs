//! `export PATH... --to OUT`: every session under the PATHs as Apache Parquet tables
//! (docs/export.md) — `OUT/<table>/part-NNNNN.parquet` for `sessions`, `events`, `calls`,
//! `checks`, `compactions` and `findings` — that DuckDB, Polars, Spark and Trino read with a
//! glob. Sessions are read and analysed in parallel, one at a time per worker, and their rows
//! streamed into row groups; a session that cannot be read is a `sessions` row with its error.
//! Written beside OUT and moved into place at the end (`staging.rs`). Column by column:
//! docs/export.md.

mod calls;
mod cells;
mod checks;
mod compactions;
mod events;
mod findings;
mod jobs;
mod key_cells;
mod part;
mod session;
mod sessions;
mod staging;
mod table;
mod tables;
mod tune;
mod writer;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use surface_analysis::policy::tune::Grid;
use surface_store::{ReadLimits, for_each_parallel};

use super::cost::PriceOptions;
use super::dir::{plural, threads};
use super::load::write_context;
use super::policy::{PolicySettingsArgs, settings_of};
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, Input};
use part::{Parts, RowCounts};
use session::{Outcome, Recipe};
use sessions::SessionRow;
use staging::Staging;
pub use tables::{TABLE_NAMES, Tables};
use writer::SessionKey;

pub use writer::{ROW_GROUP_ROWS, SCHEMA_VERSION};

/// Every column of every table as `(table, column, Parquet type, nullable)`, in file order
/// (`events` with its `payload` column): what docs/export.md documents.
pub fn columns() -> Vec<(&'static str, &'static str, &'static str, bool)> {
    let mut out = Vec::new();
    let mut add = |table: &'static str, cols: Vec<(&'static str, &'static str, bool)>| {
        out.extend(cols.into_iter().map(|(c, t, n)| (table, c, t, n)));
    };
    add("sessions", sessions::TABLE.describe());
    add("events", events::TABLE_WITH_PAYLOAD.describe());
    add("calls", calls::TABLE.describe());
    add("checks", checks::TABLE.describe());
    add("compactions", compactions::TABLE.describe());
    add("findings", findings::TABLE.describe());
    add("tune", tune::TABLE.describe());
    out
}

/// `export`'s arguments.
#[derive(Debug, Args)]
pub struct ExportOptions {
    /// Session files (.jsonl, .jsonl.zstd, SQLite) and folders to search for them.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The folder to write: one folder per table, part-NNNNN.parquet files in each.
    #[arg(long, value_name = "OUT")]
    pub to: PathBuf,
    /// Only these tables (comma-separated): sessions, events, calls, checks, compactions,
    /// findings (and tune, with --tune).
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    pub tables: Option<Vec<String>>,
    /// Add each event's JSON to the events table (a `payload` column).
    #[arg(long)]
    pub payload: bool,
    /// OUT may exist: replace its table folders (only those written, only when they hold
    /// nothing but part files), leave everything else in it.
    #[arg(long)]
    pub force: bool,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The most text one session may hold once decompressed (512M, 2G); a session past it is
    /// a sessions row with the error.
    #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
    pub max_bytes: Option<u64>,
    #[command(flatten)]
    pub prices: PriceOptions,
    #[command(flatten)]
    pub policy: PolicySettingsArgs,
    /// Add the `tune` table: every session under every setting of tune's grid (the default
    /// grid of 240 settings, or the --grid axes).
    #[arg(long)]
    pub tune: bool,
    /// An axis of the --tune grid, as `tune --grid` takes it: NAME=VALUES, VALUES a list or
    /// FROM:TO:STEP. Repeat for more axes.
    #[arg(long = "grid", value_name = "NAME=VALUES", requires = "tune")]
    pub grid: Vec<String>,
}

/// Runs `export`.
pub fn run(options: &ExportOptions) -> anyhow::Result<u8> {
    // Everything the command line gets wrong is refused before anything is read or written.
    let tables = Tables::of(options.tables.as_deref(), options.tune)?;
    let policy = &options.policy;
    settings_of(policy, None)?;
    let tune_settings = options
        .tune
        .then(|| Grid::parse(&options.grid).map(|g| g.expand().settings))
        .transpose()?;
    let prices = options.prices.read()?;
    let limits = ReadLimits::with_max_bytes(options.max_bytes);
    let threads = threads(options.jobs);
    let found = jobs::jobs_of(&options.paths, &limits, threads)?;
    let staging = Staging::begin(&options.to, &tables.names(), options.force)?;
    let parts = Parts::new(&staging, tables, options.payload);
    let recipe = Recipe {
        policy,
        prices: prices.as_ref(),
        tables,
        payload: options.payload,
        tune: tune_settings.as_deref(),
    };
    let mut out = std::io::stdout().lock();
    let mut unreadable = 0usize;
    for u in &found.unreadable {
        let key = Arc::new(SessionKey {
            session_id: None,
            path: u.file.display().to_string(),
        });
        let mut part = parts.take()?;
        let written = part.write_sessions(&key, SessionRow::unreadable(&u.error));
        parts.put(part);
        written?;
        write_context(writeln!(out, "{}: unreadable: {}", key.path, u.error))?;
        unreadable += 1;
    }
    let total = found.jobs.len();
    // A terminal shows the progress; so does a pipe when the viewer's "Export this folder…"
    // runs this command and reads it (`SURFACE_VIEWER_PROGRESS=1`).
    let progress = (std::io::stderr().is_terminal()
        || std::env::var_os("SURFACE_VIEWER_PROGRESS").is_some_and(|v| v == "1"))
        && total > 1;
    let (mut done, mut exported) = (0usize, 0usize);
    let mut failed: Option<anyhow::Error> = None;
    let cancel = AtomicBool::new(false);
    for_each_parallel(
        found.jobs,
        threads,
        &cancel,
        |job: jobs::Job| {
            let input = Input {
                file: job.file.clone(),
                session: job.session.clone(),
                max_bytes: options.max_bytes,
            };
            let mut part = parts.take()?;
            let exported = session::export(&input, job.id.as_deref(), &recipe, &mut part);
            parts.put(part);
            exported
        },
        |result: anyhow::Result<(Arc<SessionKey>, Outcome)>| {
            if failed.is_some() {
                return;
            }
            done += 1;
            let shown = match result {
                Ok((_, Outcome::Exported)) => {
                    exported += 1;
                    Ok(())
                }
                Ok((key, Outcome::Unreadable(error))) => {
                    unreadable += 1;
                    if progress {
                        eprint!("\r\x1b[K");
                    }
                    write_context(writeln!(out, "{}: unreadable: {error}", key.path))
                }
                Err(e) => Err(e),
            };
            if let Err(e) = shown {
                failed = Some(e);
                cancel.store(true, Ordering::Relaxed);
            } else if progress {
                eprint!("\rexporting: {done}/{total} sessions");
            }
        },
    );
    if progress {
        eprint!("\r\x1b[K");
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let counts = parts.finish()?;
    staging.commit()?;
    write_summary(&mut out, options, exported, unreadable, &counts, tables)?;
    Ok(if exported == 0 {
        EXIT_UNREADABLE
    } else if unreadable > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// The last line: what was exported where, and each table's rows.
fn write_summary(
    out: &mut impl std::io::Write,
    options: &ExportOptions,
    exported: usize,
    unreadable: usize,
    counts: &RowCounts,
    tables: Tables,
) -> anyhow::Result<()> {
    let all = counts.in_table_order();
    let rows: Vec<String> = TABLE_NAMES
        .iter()
        .zip(all)
        .filter(|(name, _)| tables.names().contains(name))
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    write_context(writeln!(
        out,
        "exported {}{} to {}: {} rows",
        plural(exported, "session"),
        if unreadable > 0 {
            format!(" ({unreadable} unreadable)")
        } else {
            String::new()
        },
        options.to.display(),
        rows.join(", ")
    ))
}
