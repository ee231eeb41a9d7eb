//! `policy`: the harness's compaction policy replayed over a log (docs/policy.md) — verify
//! every decision, the inferred settings, and `--what-if` another setting on the same session
//! with its counts as ranges and its ledger beside the log's (§11); a readable report, one JSON
//! document or CSV (one row per check). Exit 0 when every decision agrees with the log, 1 when
//! some disagree (or a what-if diverges), 2 on trouble. [`policy_of`] is the per-session run
//! that `policy DIR` (`fleet/`) makes on every session.

mod csv;
mod human;
mod settings;

use std::io::Write as _;

use clap::Args;
use serde::Serialize;

use super::cost::PriceOptions;
use super::load::{load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use surface_engine::cost::{Ledger, LedgerSummary, PriceTable};
use surface_engine::policy::tune::{SessionFigures, what_if_sweep};
use surface_engine::policy::{EstimateBasis, PolicyReport, Ranges, ReplayMode, replay};
use surface_engine::{EventLog, Skipped};

pub use csv::COLUMNS as CSV_COLUMNS;
pub use settings::settings_of;

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

/// The actual and what-if ledgers side by side (docs/cost.md, "In the what-if").
#[derive(Clone, Debug, Serialize)]
pub struct Ledgers {
    /// The log's own ledger.
    pub actual: LedgerSummary,
    /// The what-if's estimate (`null` in verify mode).
    pub what_if: Option<LedgerSummary>,
}

/// One session's policy run: the replay, its counts as ranges and both ledgers.
pub struct PolicyRun {
    /// The replay's report.
    pub report: PolicyReport,
    /// A what-if's fired, summary and prune counts as ranges (`None` in verify mode).
    pub ranges: Option<Ranges>,
    /// The ledgers.
    pub ledger: Ledgers,
    /// What the what-if ledger rests on (`None` in verify mode).
    pub estimate: Option<EstimateBasis>,
    /// A what-if's figures as `tune` weighs them (`None` in verify mode).
    pub figures: Option<SessionFigures>,
}

impl PolicyRun {
    /// Whether the run makes the command exit 1: a decision disagrees (verify) or the what-if
    /// diverges.
    pub fn differs(&self) -> bool {
        match self.report.mode {
            ReplayMode::Verify => self.report.disagreements() > 0,
            ReplayMode::WhatIf => self.report.first_divergence.is_some(),
        }
    }
}

/// Replays the policy over `log` with the settings of `options` (held against the log's
/// window), with the ledgers priced by `prices`.
pub fn policy_of(
    log: &EventLog,
    options: &PolicyOptions,
    prices: Option<&PriceTable>,
) -> anyhow::Result<PolicyRun> {
    let (surface, meter, scan) = surface_passes::surface_meter_and_scan_of(log, true);
    let settings = settings_of(&options.settings, meter.window_at(log.len()))?;
    let mode = if options.settings.what_if {
        ReplayMode::WhatIf
    } else {
        ReplayMode::Verify
    };
    // The ledger of the log as it ran needs only the parts: built beside the input.
    let (input, parts, actual) =
        surface_passes::policy_input_and_parts(log, &surface, &meter, &scan, |parts| {
            LedgerSummary::of(&Ledger::build(parts, prices))
        });
    let report = replay(log, &meter, &input, &settings, mode);
    let sweep = what_if_sweep(log, &meter, &input, &parts, &settings, prices, &report);
    Ok(PolicyRun {
        report,
        ranges: sweep.as_ref().map(|s| s.ranges),
        ledger: Ledgers {
            actual,
            what_if: sweep.as_ref().map(|s| s.ledger.clone()),
        },
        estimate: sweep.as_ref().map(|s| s.basis.clone()),
        figures: sweep.map(|s| s.figures),
    })
}

/// The JSON document: the file, the report, then the ranges and ledgers.
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    prices: Option<String>,
    skipped: &'a [Skipped],
    #[serde(flatten)]
    report: &'a PolicyReport,
    ranges: Option<&'a Ranges>,
    ledger: &'a Ledgers,
    estimate: Option<&'a EstimateBasis>,
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
        print_json(&Document {
            file: &file,
            prices: options
                .prices
                .prices
                .as_ref()
                .map(|p| p.display().to_string()),
            skipped: &loaded.skipped,
            report: &run.report,
            ranges: run.ranges.as_ref(),
            ledger: &run.ledger,
            estimate: run.estimate.as_ref(),
        })?;
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
