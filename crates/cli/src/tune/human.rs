//! `tune`'s report on a terminal: the settings sorted by the objective (the best rows), the
//! baseline, the frontier and the recommendation with its why.

use super::sweep::Sweep;
use crate::dir::plural;
use crate::fleet::table::table;
use surface_analysis::cost::money;
use surface_analysis::policy::tune::{Objective, RowSettings, Span, TuneRow, pruner_name};

/// Rows the table shows.
const TOP: usize = 20;

/// A figure with its range: `likely (min–max)`, or `likely` when exact.
pub fn span_text(s: &Span, money_figure: bool) -> String {
    let f = |x: f64| {
        if money_figure {
            money(x)
        } else {
            format!("{x:.0}")
        }
    };
    if s.min == s.max {
        f(s.likely)
    } else {
        format!("{} ({}–{})", f(s.likely), f(s.min), f(s.max))
    }
}

/// A setting in one line: `T 0.8 R 0.16 retries 1 pruner on`.
pub fn setting_text(s: Option<&RowSettings>) -> String {
    let Some(s) = s else {
        return "as they ran".to_string();
    };
    let retain = match (s.retain_ratio, s.retain_tokens) {
        (Some(r), _) => format!("R {r}"),
        (_, Some(n)) => format!("N {n}"),
        _ => String::new(),
    };
    let mut text = format!(
        "T {} {retain} retries {} pruner {}",
        s.threshold_ratio,
        s.compaction_retries,
        pruner_name(s.pruner)
    );
    if let Some(n) = s.summary_tokens {
        text.push_str(&format!(" summary {n}"));
    }
    text
}

/// The indices of `rows` by objective (likely), lowest first.
pub fn by_objective(s: &Sweep) -> Vec<usize> {
    let value = |r: &TuneRow| s.objective.of(r).map_or(f64::INFINITY, |x| x.likely);
    let mut order: Vec<usize> = (0..s.rows.len()).collect();
    order.sort_by(|&a, &b| value(&s.rows[a]).total_cmp(&value(&s.rows[b])));
    order
}

fn cells(s: &Sweep, index: Option<usize>, row: &TuneRow) -> Vec<String> {
    let cost = s.objective == Objective::Cost;
    let mark = match index {
        Some(i) if s.choice.recommended == Some(i) => "★",
        Some(i) if s.choice.frontier.contains(&i) => "◆",
        _ => "",
    };
    vec![
        index.map_or("base".to_string(), |i| i.to_string()),
        mark.to_string(),
        setting_text(row.settings.as_ref()),
        s.objective
            .of(row)
            .map_or("–".to_string(), |x| span_text(&x, cost)),
        format!("{:.0}", row.totals.requests_over_window.max),
        span_text(&row.totals.summaries, false),
        span_text(&row.totals.prunes, false),
        format!("{:.0} %", row.totals.peak_fill.likely * 100.0),
        format!("{}/{}", row.exact_sessions, row.sessions),
    ]
}

/// The report.
pub fn human(s: &Sweep) -> String {
    let objective = match (s.objective, &s.currency) {
        (Objective::Cost, Some(c)) => format!("cost ({c})"),
        (Objective::Cost, None) => "cost".to_string(),
        (Objective::Prompt, _) => "agent prompt".to_string(),
    };
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

/// The recommendation in a sentence or two.
pub fn recommendation(s: &Sweep) -> String {
    let Some(i) = s.choice.recommended else {
        return format!("no recommendation: {}\n", s.choice.why);
    };
    let cost = s.objective == Objective::Cost;
    let mut text = format!(
        "recommended (★): #{i} {} — {}",
        setting_text(s.rows[i].settings.as_ref()),
        s.choice.why
    );
    if let Some(saving) = &s.choice.saving {
        text.push_str(&format!(
            "; saves {} against the baseline",
            span_text(saving, cost)
        ));
    }
    text.push('\n');
    text
}
