//! `audit`'s document: the file and event count, then every replace op with what it cost,
//! saved and lost, the failed compactions and the requests over the threshold.

use serde::Serialize;
use serde_json::Value;
use surface_analysis::audit::{Audit, LostTerms};

use crate::{ReportError, Source};

/// The JSON document: the file and event count, then the audit.
#[derive(Serialize)]
pub struct Document<'a> {
    /// The file as named.
    pub file: &'a str,
    /// Its events.
    pub events: usize,
    /// The records its reader skipped.
    pub skipped: &'a [surface_engine::Skipped],
    /// The audit.
    #[serde(flatten)]
    pub audit: &'a Audit,
}

/// The audit of `source` at `threshold_ratio` (one bracket scan beside the meter).
pub fn audit_of(source: &Source<'_>, threshold_ratio: f64) -> Audit {
    let log = source.log;
    let (surface, meter, scan) = surface_passes::surface_meter_and_scan_of(log, true);
    surface_passes::audit_read_ahead(
        log,
        &surface,
        &meter,
        threshold_ratio,
        &scan,
        LostTerms::Read,
    )
}

/// The `--json` document of `audit`.
pub fn document(source: &Source<'_>, audit: &Audit) -> Result<Value, ReportError> {
    Ok(serde_json::to_value(Document {
        file: source.file,
        events: source.log.len(),
        skipped: source.skipped,
        audit,
    })?)
}
