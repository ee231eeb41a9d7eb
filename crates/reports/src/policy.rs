//! `policy`'s document: the compaction policy replayed over a log — every decision verified,
//! the inferred settings, or a what-if with its counts as ranges — with the log's ledger and
//! the what-if's beside it.

use serde::Serialize;
use serde_json::Value;
use surface_analysis::cost::{Ledger, LedgerSummary, PriceTable};
use surface_analysis::policy::tune::{SessionFigures, what_if_sweep};
use surface_analysis::policy::{EstimateBasis, PolicyReport, Ranges, ReplayMode, replay};
use surface_engine::EventLog;

use crate::{ReportError, Source};

pub use crate::policy_settings::{SettingsText, Spelling, settings_of};

/// The actual and what-if ledgers side by side.
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
    /// Whether a decision disagrees (verify) or the what-if diverges.
    pub fn differs(&self) -> bool {
        match self.report.mode {
            ReplayMode::Verify => self.report.disagreements() > 0,
            ReplayMode::WhatIf => self.report.first_divergence.is_some(),
        }
    }
}

/// Replays the policy over `log` with the settings of `text` (held against the log's window),
/// the ledgers priced by `prices`.
pub fn policy_of(
    log: &EventLog,
    text: &SettingsText,
    spelling: Spelling,
    prices: Option<&PriceTable>,
) -> Result<PolicyRun, ReportError> {
    let (surface, meter, scan) = surface_passes::surface_meter_and_scan_of(log, true);
    let settings = settings_of(text, meter.window_at(log.len()), spelling)?;
    let mode = if text.what_if {
        ReplayMode::WhatIf
    } else {
        ReplayMode::Verify
    };
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
    prices: Option<&'a str>,
    skipped: &'a [surface_engine::Skipped],
    #[serde(flatten)]
    report: &'a PolicyReport,
    ranges: Option<&'a Ranges>,
    ledger: &'a Ledgers,
    estimate: Option<&'a EstimateBasis>,
}

/// The `--json` document of `policy` (`prices_file` the price file as named).
pub fn document(
    source: &Source<'_>,
    prices_file: Option<&str>,
    run: &PolicyRun,
) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(Document {
        file: source.file,
        prices: prices_file,
        skipped: source.skipped,
        report: &run.report,
        ranges: run.ranges.as_ref(),
        ledger: &run.ledger,
        estimate: run.estimate.as_ref(),
    })?)
}
