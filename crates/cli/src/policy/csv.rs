//! `policy --csv`: one row per check, for a spreadsheet.

use surface_analysis::policy::PolicyReport;

use crate::csv_out::CsvWriter;

/// The columns, in order.
pub const COLUMNS: [&str; 16] = [
    "step_start_seq",
    "turn",
    "step",
    "trigger",
    "total",
    "threshold",
    "window",
    "outcome",
    "pruned",
    "summaries",
    "total_after",
    "exact",
    "agrees",
    "log_pruned",
    "why",
    "near",
];

/// The report as CSV with a header line (see [`crate::csv_out`]).
pub fn csv(report: &PolicyReport) -> std::io::Result<Vec<u8>> {
    let mut out = CsvWriter::new(Vec::new(), &COLUMNS)?;
    let list = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
    for c in &report.checks {
        let trigger = serde_json::to_value(c.trigger)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let summaries = list(
            &mut c
                .summaries
                .iter()
                .map(|s| format!("{}..{}{}", s.start, s.end, if s.ok { "" } else { "!" })),
        );
        let log_pruned = c.actual.as_ref().map_or(String::new(), |a| {
            list(&mut a.pruned.iter().map(u64::to_string))
        });
        let pruned = list(&mut c.pruned.iter().map(u64::to_string));
        out.row(&[
            c.step_start_seq.into(),
            c.turn.into(),
            c.step.into(),
            trigger.as_str().into(),
            c.total.into(),
            c.threshold.into(),
            c.window.into(),
            c.outcome.as_str().into(),
            pruned.as_str().into(),
            summaries.as_str().into(),
            c.total_after.into(),
            c.exact.into(),
            c.agrees.into(),
            log_pruned.as_str().into(),
            c.why.as_deref().or(c.note.as_deref()).into(),
            c.near.into(),
        ])?;
    }
    Ok(out.into_inner())
}
