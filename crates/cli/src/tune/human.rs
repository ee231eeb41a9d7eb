//! `tune`'s report on a terminal: the settings sorted by the objective (the best rows), the
//! baseline, the frontier and the recommendation with its why — in the words every shell
//! shares (`surface_reports::tune::text`).

use super::sweep::Sweep;
use crate::dir::plural;
use crate::fleet::table::table;
use surface_analysis::policy::tune::TuneRow;
use surface_reports::tune::text::{
    by_objective, objective_name, objective_text, recommendation, setting_text, span_text,
};

/// Rows the table shows.
const TOP: usize = 20;

fn cells(s: &Sweep, index: Option<usize>, row: &TuneRow) -> Vec<String> {
    let mark = match index {
        Some(i) if s.choice.recommended == Some(i) => "★",
        Some(i) if s.choice.frontier.contains(&i) => "◆",
        _ => "",
    };
    vec![
        index.map_or("base".to_string(), |i| i.to_string()),
        mark.to_string(),
        setting_text(row.settings.as_ref()),
        objective_text(s, row),
        format!("{:.0}", row.totals.requests_over_window.max),
        span_text(&row.totals.summaries, false),
        span_text(&row.totals.prunes, false),
        format!("{:.0} %", row.totals.peak_fill.likely * 100.0),
        format!("{}/{}", row.exact_sessions, row.sessions),
    ]
}

/// The report.
pub fn human(s: &Sweep) -> String {
    let objective = objective_name(s);
    let header = [
        "#",
        "",
        "setting",
        objective.as_str(),
        "over window (max)",
        "summaries",
        "prunes",
        "peak fill",
        "exact",
    ];
    let mut rows = vec![cells(s, None, &s.baseline)];
    rows.extend(
        by_objective(s)
            .into_iter()
            .take(TOP)
            .map(|i| cells(s, Some(i), &s.rows[i])),
    );
    let mut out = table(&header, &rows);
    if s.rows.len() > TOP {
        out.push_str(&format!(
            "… {} more settings (--json or --csv for all)\n",
            s.rows.len() - TOP
        ));
    }
    for line in s.sessions_list.iter().filter(|l| l.error.is_some()) {
        out.push_str(&format!(
            "{}: unreadable: {}\n",
            line.file.display(),
            line.error.as_deref().unwrap_or("")
        ));
    }
    out.push_str(&format!(
        "\n{} swept under {} ({} left out); frontier (◆): {}\n",
        plural(s.sessions, "session"),
        plural(s.rows.len(), "setting"),
        s.left_out,
        s.choice
            .frontier
            .iter()
            .map(|i| format!("#{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push_str(&recommendation(s));
    out
}
