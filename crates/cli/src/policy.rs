//! `policy`: the harness's compaction policy replayed over a log (viewer-spec §10.4) — verify
//! every decision, the inferred settings, and `--what-if` another setting on the same session;
//! a readable report, one JSON document or CSV (one row per check). Exit 0 when every decision
//! agrees with the log, 1 when some disagree (or a what-if diverges), 2 on trouble.

mod csv;
mod human;
mod settings;

use std::io::Write as _;

use clap::Args;
use serde::Serialize;

use super::load::{load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use surface_engine::Surface;
use surface_engine::policy::{PolicyInput, PolicyReport, ReplayMode, replay};

pub use csv::COLUMNS as CSV_COLUMNS;
pub use settings::settings_of;

/// The policy's settings and the report's form, as the command line gives them. Numbers are
/// read here, not by the argument parser, so that a bad value is one line naming its flag.
#[derive(Debug, Args, Clone, Default)]
pub struct PolicyOptions {
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
    /// Remove the log's compactions and replay the session with these settings.
    #[arg(long)]
    pub what_if: bool,
    /// One JSON document on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV on stdout, one row per check.
    #[arg(long)]
    pub csv: bool,
}

/// The JSON document: the file, then the report.
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    #[serde(flatten)]
    report: &'a PolicyReport,
}

/// Runs `policy`.
pub fn run(input: &Input, options: &PolicyOptions) -> anyhow::Result<u8> {
    // Settings that cannot be read are refused before the log is; a retain budget in tokens
    // is held against the log's threshold once the window is known.
    settings_of(options, None)?;
    let loaded = load(input, false)?;
    let log = &loaded.log;
    let surface = Surface::at_end(log);
    let meter = super::meter_of(log, &surface);
    let settings = settings_of(options, meter.window_at(log.len()))?;
    let policy_input = PolicyInput::build(log, &surface, &meter);
    let mode = if options.what_if {
        ReplayMode::WhatIf
    } else {
        ReplayMode::Verify
    };
    let report = replay(log, &meter, &policy_input, &settings, mode);
    let file = input.file.display().to_string();
    if options.json {
        print_json(&Document {
            file: &file,
            report: &report,
        })?;
    } else {
        let text = if options.csv {
            csv::csv(&report)?
        } else {
            human::human(&file, &report).into_bytes()
        };
        let mut out = std::io::stdout().lock();
        write_context(out.write_all(&text))?;
        write_context(out.flush())?;
    }
    let disagrees = match mode {
        ReplayMode::Verify => report.disagreements() > 0,
        ReplayMode::WhatIf => report.first_divergence.is_some(),
    };
    Ok(if disagrees { EXIT_FINDINGS } else { EXIT_OK })
}
