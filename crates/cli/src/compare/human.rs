//! The `compare` report for a reader: both runs, the first divergence with both events in one
//! line each (the timeline's summaries), a table per turn (A, B, B − A), the totals with B / A,
//! why each run's cache missed, and one line that says which run was cheaper and why.

use std::fmt::Write as _;

use super::{Report, Run};
use crate::cost::requests::resent_line;
use surface_analysis::compare::{
    Difference, Divergence, DivergenceKind, FIGURE_COLUMNS, FigureColumn, MISSING, Position, Ratio,
    Row, SUMMARIZER_TOKENS_COLUMN, TurnPair, cheaper_line,
};
use surface_analysis::cost::{money_or_unpriced, signed_money};
use surface_engine::one_line;

/// Characters of an event's summary shown beside the divergence.
const SUMMARY_CHARS: usize = 100;

/// The human-readable report.
pub fn human(report: &Report<'_>) -> String {
    let mut out = String::new();
    run_line(&mut out, "A", report.a);
    run_line(&mut out, "B", report.b);
    let _ = writeln!(
        out,
        "threshold ratio {}; {}",
        report.a.analysed.threshold_ratio,
        match report.currency {
            Some(c) if report.comparison.totals.cheaper.fell_back() => {
                format!(
                    "costs in {c} where priced (some calls are unpriced: runs weighed in tokens)"
                )
            }
            Some(c) => format!("costs in {c}"),
            None => "prices: none (tokens only; --prices FILE for money)".to_string(),
        }
    );
    out.push('\n');
    divergence(&mut out, report);
    out.push('\n');
    table(&mut out, report);
    out.push('\n');
    cache_miss_lines(&mut out, report);
    out.push_str(&cheaper_line(report.comparison, report.currency));
    out.push('\n');
    out
}

/// Why each run's cache missed: its resent tokens by cause and its provider misses.
fn cache_miss_lines(out: &mut String, report: &Report<'_>) {
    let misses = &report.comparison.cache_misses;
    for (name, totals) in [("A", &misses.a), ("B", &misses.b)] {
        let line = resent_line(totals, report.currency)
            .unwrap_or_else(|| "the provider reports no cache reads".to_string());
        let _ = writeln!(out, "why {name}'s cache missed — {line}");
    }
}

fn run_line(out: &mut String, name: &str, run: &Run) {
    let a = &run.analysed;
    let window = a
        .window
        .map_or_else(|| "no window".to_string(), |w| format!("window {w}"));
    let _ = writeln!(
        out,
        "{name}: {} — {} events, {} turn{}, {} agent call{}, {window}",
        run.file,
        a.events,
        a.positions.turns(),
        plural(a.positions.turns()),
        a.total.agent_calls,
        plural(a.total.agent_calls),
    );
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn divergence(out: &mut String, report: &Report<'_>) {
    let Some(d) = &report.comparison.first_divergence else {
        let _ = writeln!(
            out,
            "no divergence: both logs hold the same {} events (seq, time, ids and provenance left out)",
            report.a.analysed.events
        );
        return;
    };
    let what = match d.kind {
        DivergenceKind::Type => "another type".to_string(),
        DivergenceKind::Content => match d.path.as_deref() {
            Some("") | None => "the same type, other content".to_string(),
            Some(path) => format!("the same type, other content at {path}"),
        },
        DivergenceKind::AEnded => "A ends there, B goes on".to_string(),
        DivergenceKind::BEnded => "B ends there, A goes on".to_string(),
    };
    let _ = writeln!(
        out,
        "first divergence after {} equal event{}: {what}",
        d.index,
        plural(d.index as u64)
    );
    event_line(out, "A", d.a_seq, &d.a_type, d.a_position, &d.a_summary);
    event_line(out, "B", d.b_seq, &d.b_type, d.b_position, &d.b_summary);
    explain(out, d);
}

fn event_line(
    out: &mut String,
    name: &str,
    seq: Option<u64>,
    kind: &Option<String>,
    position: Option<Position>,
    summary: &Option<String>,
) {
    let (Some(seq), Some(kind)) = (seq, kind) else {
        let _ = writeln!(out, "  {name}  (ended)");
        return;
    };
    let at = position.map_or_else(String::new, |p| format!("turn {}.{}", p.turn, p.step));
    let summary = summary
        .as_deref()
        .map_or_else(String::new, |s| one_line(s, SUMMARY_CHARS));
    let _ = writeln!(out, "  {name}  seq {seq:<7} {at:<10} {kind:<18} {summary}");
}

/// What the divergence means when one run compacted where the other went on.
fn explain(out: &mut String, d: &Divergence) {
    let compacting = |t: &Option<String>| {
        t.as_deref()
            .is_some_and(|t| t.starts_with("compaction/") || t.starts_with("compact/"))
    };
    let line = match (compacting(&d.a_type), compacting(&d.b_type)) {
        (true, false) => "  A compacted here; B did not (yet)",
        (false, true) => "  B compacted here; A did not (yet)",
        _ => return,
    };
    let _ = writeln!(out, "{line}");
}

/// The table's figure columns: both shells' columns, then the summarizer tokens.
fn columns() -> impl Iterator<Item = &'static FigureColumn> {
    FIGURE_COLUMNS.iter().chain([&SUMMARIZER_TOKENS_COLUMN])
}
const WIDTHS: [usize; 11] = [6, 9, 10, 8, 5, 6, 6, 7, 5, 7, 11];

fn table(out: &mut String, report: &Report<'_>) {
    let priced = report.currency.is_some();
    let _ = write!(out, "{:>6}  {:<4}", "turn", "run");
    for (c, w) in columns().zip(WIDTHS) {
        let _ = write!(out, "  {:>w$}", c.label);
    }
    if priced {
        let _ = write!(out, "  {:>11}", "cost");
    }
    out.push('\n');
    turn_lines(out, &report.comparison.turns, priced);
    let totals = &report.comparison.totals;
    cells(out, "total", "A", Some(row_cells(&totals.a)), priced);
    cells(out, "", "B", Some(row_cells(&totals.b)), priced);
    cells(
        out,
        "",
        "B−A",
        Some(difference_cells(&totals.b_minus_a)),
        priced,
    );
    cells(out, "", "B/A", Some(ratio_cells(&totals.b_over_a)), priced);
    out.push_str(
        "  calls = agent calls, with their prompt, cache read and output; summ / prune = summaries / prunes;\n  \
         peak = the highest meter total; over = requests at or over the threshold;\n  \
         summ.tokens = the summarizer calls' prompt + output",
    );
    if priced {
        out.push_str("; cost = every call, agent and summarizer");
    }
    out.push('\n');
}

/// The cells of one line: the figures, one a column, and the cost.
struct Cells {
    figures: Vec<String>,
    cost: String,
}

/// Turns past which the per-turn lines are written on two threads (a long run has thousands;
/// the table is then most of the report's time, with both cores otherwise idle).
const TURNS_ON_TWO_THREADS: usize = 2_000;

/// The lines of `turns` (A, B and B − A each), in order: written in two halves on two threads
/// when there are many, then joined.
fn turn_lines(out: &mut String, turns: &[TurnPair], priced: bool) {
    if turns.len() < TURNS_ON_TWO_THREADS {
        write_turns(out, turns, priced);
        return;
    }
    let (first, second) = turns.split_at(turns.len() / 2);
    let later = std::thread::scope(|s| {
        let later = s.spawn(|| {
            let mut text = String::new();
            write_turns(&mut text, second, priced);
            text
        });
        write_turns(out, first, priced);
        later.join()
    });
    match later {
        Ok(text) => out.push_str(&text),
        Err(_) => write_turns(out, second, priced),
    }
}

fn write_turns(out: &mut String, turns: &[TurnPair], priced: bool) {
    // About 3 × 110 bytes a turn: grown once, not doubled along the way.
    out.reserve(turns.len() * 330);
    for t in turns {
        let turn = t.turn.to_string();
        cells(out, &turn, "A", t.a.as_ref().map(row_cells), priced);
        cells(out, "", "B", t.b.as_ref().map(row_cells), priced);
        if let Some(d) = &t.b_minus_a {
            cells(out, "", "B−A", Some(difference_cells(d)), priced);
        }
    }
}

fn cells(out: &mut String, turn: &str, run: &str, cells: Option<Cells>, priced: bool) {
    right_aligned(out, turn, 6);
    out.push_str("  ");
    left_aligned(out, run, 4);
    let Some(cells) = cells else {
        out.push_str("  (no such turn)\n");
        return;
    };
    for (c, w) in cells.figures.iter().zip(WIDTHS) {
        out.push_str("  ");
        right_aligned(out, c, w);
    }
    if priced {
        out.push_str("  ");
        right_aligned(out, &cells.cost, 11);
    }
    out.push('\n');
}

/// `text` after spaces that make it `width` characters wide (as `{:>width$}` writes it).
fn right_aligned(out: &mut String, text: &str, width: usize) {
    let chars = text.chars().count();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(chars)));
    out.push_str(text);
}

/// `text` followed by spaces that make it `width` characters wide (as `{:<width$}` writes it).
fn left_aligned(out: &mut String, text: &str, width: usize) {
    let chars = text.chars().count();
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(chars)));
}

fn missing() -> String {
    MISSING.to_string()
}

fn row_cells(r: &Row) -> Cells {
    Cells {
        figures: columns().map(|c| (c.row)(r)).collect(),
        // Printed only with prices: a missing cost is an unpriced call, never 0.
        cost: money_or_unpriced(r.cost, true),
    }
}

fn difference_cells(d: &Difference) -> Cells {
    Cells {
        figures: columns().map(|c| (c.difference)(d)).collect(),
        cost: d.cost.map_or_else(missing, signed_money),
    }
}

fn ratio_cells(r: &Ratio) -> Cells {
    Cells {
        figures: columns().map(|c| (c.ratio)(r)).collect(),
        cost: r.cost.map_or_else(missing, |r| format!("{r:.3}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_padding_writes_what_the_format_padding_writes() {
        for text in [
            "",
            "7",
            "-12",
            "+3",
            "–",
            "B−A",
            "1234567",
            "0.125",
            "123456789012",
        ] {
            for width in [0, 4, 6, 11] {
                let mut right = String::new();
                right_aligned(&mut right, text, width);
                assert_eq!(right, format!("{text:>width$}"), "{text:?} {width}");
                let mut left = String::new();
                left_aligned(&mut left, text, width);
                assert_eq!(left, format!("{text:<width$}"), "{text:?} {width}");
            }
        }
    }
}
