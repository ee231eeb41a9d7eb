//! `tune --html OUT`: one self-contained page (no script, no link, no font or image from
//! anywhere): the frontier chart as inline SVG — every setting a point at (requests over the
//! window, objective), its range an error bar, the frontier joined, the baseline and the
//! recommendation marked — the table by objective, the recommendation and its why, the grid
//! and what was left out.

use super::sweep::Sweep;
use surface_analysis::policy::tune::{Objective, Span, TuneRow};
use surface_reports::tune::text::{
    by_objective, objective_text, recommendation, setting_text, span_text,
};

const W: f64 = 960.0;
const H: f64 = 420.0;
const PAD: f64 = 60.0;

/// `text` with `&`, `<`, `>` and `"` escaped.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

struct Scale {
    x_max: f64,
    y_min: f64,
    y_max: f64,
}

impl Scale {
    fn of(points: &[(f64, Span)]) -> Scale {
        let x_max = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1.0);
        let y_min = points.iter().map(|p| p.1.min).fold(f64::INFINITY, f64::min);
        let y_max = points
            .iter()
            .map(|p| p.1.max)
            .fold(f64::NEG_INFINITY, f64::max);
        let (y_min, y_max) = if y_min.is_finite() && y_max > y_min {
            (y_min, y_max)
        } else {
            (y_min.min(0.0), y_min.max(0.0) + 1.0)
        };
        Scale {
            x_max,
            y_min,
            y_max,
        }
    }

    fn x(&self, v: f64) -> f64 {
        PAD + v / self.x_max * (W - 2.0 * PAD)
    }

    fn y(&self, v: f64) -> f64 {
        H - PAD - (v - self.y_min) / (self.y_max - self.y_min) * (H - 2.0 * PAD)
    }
}

fn chart(s: &Sweep) -> String {
    let objective = |r: &TuneRow| s.objective.of(r);
    let points: Vec<(f64, Span)> = s
        .rows
        .iter()
        .chain(std::iter::once(&s.baseline))
        .filter_map(|r| objective(r).map(|o| (r.totals.requests_over_window.max, o)))
        .collect();
    let k = Scale::of(&points);
    let mut svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img">"##
    );
    svg.push_str(&format!(
        r##"<line x1="{PAD}" y1="{b}" x2="{r}" y2="{b}" stroke="#888"/><line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{b}" stroke="#888"/>"##,
        b = H - PAD,
        r = W - PAD
    ));
    let cost = s.objective == Objective::Cost;
    for (v, y) in [(k.y_min, k.y(k.y_min)), (k.y_max, k.y(k.y_max))] {
        svg.push_str(&format!(
            r##"<text x="{}" y="{y:.1}" font-size="11" text-anchor="end">{}</text>"##,
            PAD - 4.0,
            esc(&span_text(&Span::exact(v), cost))
        ));
    }
    svg.push_str(&format!(
        r##"<text x="{}" y="{}" font-size="12" text-anchor="middle">requests over the window (max) — 0 … {}</text>"##,
        W / 2.0,
        H - PAD / 3.0,
        k.x_max
    ));
    for (i, r) in s.rows.iter().enumerate() {
        let Some(o) = objective(r) else { continue };
        let (x, y) = (k.x(r.totals.requests_over_window.max), k.y(o.likely));
        let colour = if s.choice.frontier.contains(&i) {
            "#1f6feb"
        } else {
            "#999"
        };
        svg.push_str(&format!(
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{colour}" stroke-opacity="0.5"/><circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"><title>#{i} {}</title></circle>"##,
            k.y(o.min),
            k.y(o.max),
            esc(&setting_text(r.settings.as_ref()))
        ));
    }
    let mut front: Vec<(f64, f64)> = s
        .choice
        .frontier
        .iter()
        .filter_map(|&i| {
            objective(&s.rows[i]).map(|o| {
                (
                    k.x(s.rows[i].totals.requests_over_window.max),
                    k.y(o.likely),
                )
            })
        })
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let path: Vec<String> = front
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    svg.push_str(&format!(
        r##"<polyline points="{}" fill="none" stroke="#1f6feb" stroke-width="1.5"/>"##,
        path.join(" ")
    ));
    if let Some(o) = objective(&s.baseline) {
        let (x, y) = (
            k.x(s.baseline.totals.requests_over_window.max),
            k.y(o.likely),
        );
        svg.push_str(&format!(
            r##"<rect x="{:.1}" y="{:.1}" width="10" height="10" fill="#d29922"><title>baseline: the sessions as they ran</title></rect><text x="{:.1}" y="{:.1}" font-size="12">baseline</text>"##,
            x - 5.0, y - 5.0, x + 8.0, y + 4.0
        ));
    }
    if let Some(i) = s.choice.recommended
        && let Some(o) = objective(&s.rows[i])
    {
        let (x, y) = (
            k.x(s.rows[i].totals.requests_over_window.max),
            k.y(o.likely),
        );
        svg.push_str(&format!(
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="8" fill="none" stroke="#2da44e" stroke-width="2.5"/><text x="{:.1}" y="{:.1}" font-size="12" fill="#2da44e">recommended #{i}</text>"##,
            x + 10.0,
            y - 10.0
        ));
    }
    svg.push_str("</svg>");
    svg
}

fn table(s: &Sweep) -> String {
    let mut t = String::from(
        "<table><tr><th>#</th><th>setting</th><th>objective (likely, min–max)</th><th>over window (max)</th><th>over threshold</th><th>summaries</th><th>prunes</th><th>failures</th><th>peak fill</th><th>exact sessions</th></tr>",
    );
    let line = |label: String, r: &TuneRow, class: &str| {
        format!(
            "<tr class=\"{class}\"><td>{label}</td><td>{}</td><td>{}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0} %</td><td>{}/{}</td></tr>",
            esc(&setting_text(r.settings.as_ref())),
            esc(&objective_text(s, r)),
            r.totals.requests_over_window.max,
            span_text(&r.totals.requests_over_threshold, false),
            span_text(&r.totals.summaries, false),
            span_text(&r.totals.prunes, false),
            span_text(&r.totals.failures, false),
            r.totals.peak_fill.likely * 100.0,
            r.exact_sessions,
            r.sessions
        )
    };
    t.push_str(&line("baseline".to_string(), &s.baseline, "base"));
    for i in by_objective(s) {
        let class = if s.choice.recommended == Some(i) {
            "rec"
        } else if s.choice.frontier.contains(&i) {
            "front"
        } else {
            ""
        };
        t.push_str(&line(i.to_string(), &s.rows[i], class));
    }
    t.push_str("</table>");
    t
}

/// The page.
pub fn page(s: &Sweep) -> String {
    let grid: Vec<String> = s
        .grid
        .axes
        .iter()
        .map(|(a, v)| {
            format!(
                "{} = {}",
                a.name(),
                serde_json::to_string(v).unwrap_or_default()
            )
        })
        .collect();
    format!(
        r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tune: which setting to ship</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; }}
td:nth-child(2), th:nth-child(2) {{ text-align: left; }}
tr.rec {{ background: #dafbe1; font-weight: bold; }}
tr.front {{ background: #ddf4ff; }}
tr.base {{ background: #fff8c5; }}
</style></head><body>
<h1>Which setting to ship</h1>
<p>{sessions} swept under {settings} ({left} left out); objective: {objective}.</p>
<p><strong>{rec}</strong></p>
{chart}
<p>Blue: the frontier (no other setting is as good on the objective, requests over the window and summaries, and better on one); grey: dominated; bars: each objective's range; square: the baseline (the sessions as they ran).</p>
<h2>Settings by objective</h2>
{table}
<h2>Grid</h2>
<ul>{grid}</ul>
<p>{left} combinations left out (a retain ratio at or above the threshold ratio, or a retain budget at or above a session's threshold).</p>
</body></html>
"##,
        sessions = crate::dir::plural(s.sessions, "session"),
        settings = crate::dir::plural(s.rows.len(), "setting"),
        left = s.left_out,
        objective = match s.objective {
            Objective::Cost => "cost",
            Objective::Prompt => "agent prompt tokens",
        },
        rec = esc(recommendation(s).trim()),
        chart = chart(s),
        table = table(s),
        grid = grid
            .iter()
            .map(|g| format!("<li>{}</li>", esc(g)))
            .collect::<String>(),
    )
}
