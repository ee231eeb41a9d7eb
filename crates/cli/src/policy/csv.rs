//! `policy --csv`: one row per check, for a spreadsheet.

use std::fmt::Write as _;

use surface_engine::policy::PolicyReport;

/// The columns, in order.
pub const COLUMNS: [&str; 15] = [
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
];

/// The report as CSV with a header line.
pub fn csv(report: &PolicyReport) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
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
        let agrees = c.agrees.map_or(String::new(), |a| a.to_string());
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            c.step_start_seq,
            opt(c.turn),
            opt(c.step),
            trigger,
            c.total,
            opt(c.threshold),
            opt(c.window),
            c.outcome.as_str(),
            list(&mut c.pruned.iter().map(u64::to_string)),
            summaries,
            c.total_after,
            c.exact,
            agrees,
            log_pruned,
            quote(c.why.as_deref().unwrap_or("")),
        );
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn quote(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
