//! `policy`: the harness's compaction policy replayed over a log (docs/policy.md) — verify
//! every decision, the inferred settings, and `--what-if` another setting on the same session
//! with its counts as ranges and its ledger beside the log's (docs/policy.md#the-what-ifs-ledger); a readable report, one JSON
//! document or CSV (one row per check). Exit 0 when every decision agrees with the log, 1 when
//! some disagree (or a what-if diverges), 2 on trouble. [`policy_of`] is the per-session run
//! that `policy DIR` (`fleet/`) makes on every session.

mod csv;
mod human;
mod settings;

use std::io::Write as _;

use clap::Args;

use super::cost::PriceOptions;
use super::load::{load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use surface_analysis::cost::PriceTable;
use surface_engine::EventLog;
use surface_reports::policy::Spelling;

pub use csv::COLUMNS as CSV_COLUMNS;
pub use settings::settings_of;
pub use surface_reports::policy::{Ledgers, PolicyRun};

/// The policy's settings as the command line gives them (`policy`, `policy DIR` and `export`).
/// Numbers are read here, not by the argument parser, so that a bad value is one line naming
/// its flag ([`settings_of`]).
#[derive(Debug, Args, Clone, Default)]
pub struct PolicySettingsArgs {
    /// Threshold ratio T (pressure fires at ⌊window × T⌋; default 0.8).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub threshold_ratio: Option<String>,
    /// Retain ratio R: a summary keeps ⌊window × R⌋ tokens at the tail (default 0.16).
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    pub retain_ratio: Option<String>,
    /// Retain budget in tokens N, instead of a ratio.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub retain_tokens: Option<String>,
    /// Summaries per pressure check beyond the first (default 1).
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub compaction_retries: Option<String>,
    /// Replay without the tool-result pruner.
    #[arg(long)]
    pub no_prune: bool,
    /// The pruner's sizes in code points: threshold, head kept, tail kept (default 8192,4096,1024).
    #[arg(long, value_name = "CHARS,HEAD,TAIL", allow_hyphen_values = true)]
    pub prune: Option<String>,
    /// Price of a hypothetical summary in a what-if (default: the mean of the log's own).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub summary_tokens: Option<String>,
    /// Remove the log's compactions and replay the session with these settings (a what-if).
    #[arg(long)]
    pub what_if: bool,
}

/// The policy's settings and the report's form, as the command line gives them.
#[derive(Debug, Args, Clone, Default)]
pub struct PolicyOptions {
    #[command(flatten)]
    pub settings: PolicySettingsArgs,
    /// One JSON document on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV on stdout, one row per check (a folder: one row per session).
    #[arg(long)]
    pub csv: bool,
    #[command(flatten)]
    pub prices: PriceOptions,
}

/// Replays the policy over `log` with the settings of `options` (held against the log's
/// window), with the ledgers priced by `prices`.
pub fn policy_of(
    log: &EventLog,
    options: &PolicyOptions,
    prices: Option<&PriceTable>,
) -> anyhow::Result<PolicyRun> {
    Ok(surface_reports::policy::policy_of(
        log,
        &settings::text_of(&options.settings),
        Spelling::Flag,
        prices,
    )?)
}

/// Runs `policy`.
pub fn run(input: &Input, options: &PolicyOptions) -> anyhow::Result<u8> {
    // Settings and a price file that cannot be read are refused before the log is; a retain
    // budget in tokens is held against the log's threshold once the window is known.
    settings_of(&options.settings, None)?;
    let prices = options.prices.read()?;
    let loaded = load(input, false)?;
    let run = policy_of(&loaded.log, options, prices.as_ref())?;
    let file = input.file.display().to_string();
    if options.json {
        let prices_file = options
            .prices
            .prices
            .as_ref()
            .map(|p| p.display().to_string());
        print_json(&surface_reports::policy::document(
            &loaded.source(&file),
            prices_file.as_deref(),
            &run,
        )?)?;
    } else {
        let text = if options.csv {
            csv::csv(&run.report)?
        } else {
            human::human(&file, &run).into_bytes()
        };
        let mut out = std::io::stdout().lock();
        write_context(out.write_all(&text))?;
        write_context(out.flush())?;
    }
    Ok(if run.differs() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}
