//! The context curve of the HTML report as an inline SVG: the meter's total over the whole log
//! (a band from the lowest to the highest figure of each pixel column, so a million events
//! cost one pass and a long log's sawtooth still shows its drops), the context
//! window and the threshold, every replace op marked in its trigger's colour and every
//! request made over the threshold as a dot. Marks that share a pixel column are drawn once
//! (the most urgent trigger's colour; short ticks when they crowd), so a thousand compactions
//! leave the curve readable; hover titles name or count each mark; no script.

use std::fmt::Write as _;

use super::Report;
use surface_analysis::audit::{ReplaceAudit, Trigger};
use surface_engine::EventIdx;
use surface_engine::meter::threshold;

const WIDTH: f64 = 1100.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 30.0;

/// The colour of a trigger (and of a replace without one).
pub fn trigger_colour(trigger: Option<Trigger>) -> &'static str {
    match trigger {
        Some(Trigger::Overflow) => "#d62728",
        Some(Trigger::Command) => "#8e44ad",
        Some(Trigger::Pressure) => "#e67e22",
        Some(Trigger::BelowThreshold) => "#2b8a3e",
        None => "#7f8c8d",
    }
}

struct Plot {
    events: usize,
    y_max: f64,
}

impl Plot {
    fn x(&self, event: usize) -> f64 {
        let n = self.events.max(1) as f64;
        LEFT + (event as f64 + 0.5) / n * (WIDTH - LEFT - RIGHT)
    }

    fn y(&self, tokens: u64) -> f64 {
        let h = HEIGHT - TOP - BOTTOM;
        TOP + h - (tokens as f64 / self.y_max).min(1.0) * h
    }
}

/// The SVG element.
pub fn context_svg(report: &Report<'_>) -> String {
    let totals: Vec<u32> = (0..report.meter.len())
        .map(|i| report.meter.total_after(i))
        .collect();
    let n = totals.len();
    let windows = report.meter.window_changes();
    let peak = totals.iter().copied().max().unwrap_or(0);
    let window_peak = windows.iter().map(|w| w.1).max().unwrap_or(0);
    let plot = Plot {
        events: n,
        y_max: (u64::from(peak).max(window_peak).max(1) as f64) * 1.05,
    };
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" aria-label="The meter's total over the session, with the context window, the threshold and every replace op">"#
    );
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="#f8f9fb" stroke="#d0d4da"/>"##,
        WIDTH - LEFT - RIGHT,
        HEIGHT - TOP - BOTTOM
    );
    area(&mut svg, &plot, &totals);
    limits(&mut svg, &plot, report);
    let groups = by_column(&report.audit.replaces, |r| plot.x(r.event.get()));
    let crowded = groups.len() as f64 > (WIDTH - LEFT - RIGHT) / CROWDED_SPACING;
    for group in &groups {
        match group.as_slice() {
            [r] if !crowded => replace_mark(&mut svg, &plot, r),
            _ => replace_group_mark(&mut svg, &plot, group),
        }
    }
    let requests = &report.audit.over_threshold_requests;
    for group in by_column(requests, |o| plot.x(o.cursor.saturating_sub(1))) {
        let Some(top) = group.iter().max_by_key(|o| o.tokens) else {
            continue;
        };
        let title = match group.len() {
            1 => format!(
                "request at seq {}: {} tokens ≥ threshold {}",
                top.seq, top.tokens, top.threshold
            ),
            n => format!(
                "{n} requests over the threshold here (seq {} … {}); the largest {} tokens at seq {}",
                group[0].seq,
                group[n - 1].seq,
                top.tokens,
                top.seq
            ),
        };
        let _ = write!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{}" fill="#c0392b"><title>{title}</title></circle>"##,
            plot.x(top.cursor.saturating_sub(1)),
            plot.y(top.tokens),
            if crowded { 2.0 } else { 3.5 },
        );
    }
    axes(&mut svg, &plot, report);
    svg.push_str("</svg>");
    svg
}

/// The lowest and highest total of each of `columns` pixel columns over `totals`, each joined
/// to the previous column's last total (so that a drop between two columns is drawn).
pub fn column_extents(totals: &[u32], columns: usize) -> Vec<(u32, u32)> {
    let n = totals.len();
    let mut out = Vec::with_capacity(columns);
    let mut last: Option<u32> = None;
    for c in 0..columns.min(n) {
        let from = c * n / columns;
        let to = ((c + 1) * n / columns).clamp(from + 1, n);
        let slice = &totals[from..to];
        let lo = slice.iter().copied().min().unwrap_or(0);
        let hi = slice.iter().copied().max().unwrap_or(0);
        let (lo, hi) = match last {
            Some(p) => (lo.min(p), hi.max(p)),
            None => (lo, hi),
        };
        last = slice.last().copied();
        out.push((lo, hi));
    }
    out
}

/// The meter's total as a band per pixel column, from its lowest to its highest figure there
/// (a long log's sawtooth stays a sawtooth), over the area under the lowest.
fn area(svg: &mut String, plot: &Plot, totals: &[u32]) {
    let columns = totals.len().min((WIDTH - LEFT - RIGHT) as usize);
    let extents = column_extents(totals, columns);
    if extents.is_empty() {
        return;
    }
    let x = |c: usize| LEFT + (c as f64 + 0.5) / columns as f64 * (WIDTH - LEFT - RIGHT);
    let base = plot.y(0);
    let mut lows = String::new();
    let mut highs = String::new();
    for (c, &(lo, hi)) in extents.iter().enumerate() {
        let sep = if c == 0 { "" } else { " L" };
        let _ = write!(lows, "{sep}{:.1},{:.1}", x(c), plot.y(u64::from(lo)));
        let _ = write!(highs, "{sep}{:.1},{:.1}", x(c), plot.y(u64::from(hi)));
    }
    let mut lows_back = String::new();
    for (c, &(lo, _)) in extents.iter().enumerate().rev() {
        let _ = write!(lows_back, " L{:.1},{:.1}", x(c), plot.y(u64::from(lo)));
    }
    let (first_x, last_x) = (x(0), x(extents.len() - 1));
    let _ = write!(
        svg,
        r##"<path d="M{first_x:.1},{base:.1} L{lows} L{last_x:.1},{base:.1} Z" fill="#cfe0f5" stroke="none"/>"##
    );
    let _ = write!(
        svg,
        r##"<path d="M{highs}{lows_back} Z" fill="#1f6fd1" fill-opacity="0.45" stroke="#1f6fd1" stroke-width="1" stroke-linejoin="round"><title>the meter's total: lowest to highest in each column</title></path>"##
    );
}

/// The window (solid) and threshold (dashed) in force, segment by segment.
fn limits(svg: &mut String, plot: &Plot, report: &Report<'_>) {
    let windows = report.meter.window_changes();
    let n = report.log.len();
    let ratio = report.audit.threshold_ratio;
    for (k, &(event, window)) in windows.iter().enumerate() {
        let from = plot.x(event as usize);
        let to = windows
            .get(k + 1)
            .map_or(plot.x(n.saturating_sub(1)), |next| plot.x(next.0 as usize));
        let (yw, yt) = (plot.y(window), plot.y(threshold(window, ratio)));
        let _ = write!(
            svg,
            r##"<line x1="{from:.1}" y1="{yw:.1}" x2="{to:.1}" y2="{yw:.1}" stroke="#555" stroke-width="1"><title>context window {window}</title></line>"##
        );
        let _ = write!(
            svg,
            r##"<line x1="{from:.1}" y1="{yt:.1}" x2="{to:.1}" y2="{yt:.1}" stroke="#e67e22" stroke-width="1" stroke-dasharray="5 4"><title>threshold {}</title></line>"##,
            threshold(window, ratio)
        );
    }
}

/// Fewer pixels per replace-op column than this and the marks are drawn as short ticks.
const CROWDED_SPACING: f64 = 6.0;
/// Length of a replace-op tick when the marks crowd.
const TICK: f64 = 14.0;

/// `items` (in log order) grouped by the whole pixel column `x` puts them in.
fn by_column<T>(items: &[T], x: impl Fn(&T) -> f64) -> Vec<Vec<&T>> {
    let mut groups: Vec<(i64, Vec<&T>)> = Vec::new();
    for item in items {
        let c = x(item).floor() as i64;
        match groups.last_mut() {
            Some((last, group)) if *last == c => group.push(item),
            _ => groups.push((c, vec![item])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// How urgent a trigger is, to colour a column several replace ops share.
fn urgency(trigger: Option<Trigger>) -> u8 {
    match trigger {
        Some(Trigger::Overflow) => 4,
        Some(Trigger::Command) => 3,
        Some(Trigger::Pressure) => 2,
        Some(Trigger::BelowThreshold) => 1,
        None => 0,
    }
}

/// One short tick for the replace ops of a pixel column, titled with their count.
fn replace_group_mark(svg: &mut String, plot: &Plot, group: &[&ReplaceAudit]) {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return;
    };
    let x = plot.x(first.event.get());
    let trigger = group
        .iter()
        .map(|r| r.trigger)
        .max_by_key(|&t| urgency(t))
        .flatten();
    let freed: i64 = group
        .iter()
        .map(|r| r.tokens_before as i64 - r.tokens_after as i64)
        .sum();
    let title = if group.len() == 1 {
        format!(
            "seq {} {}, {}: {} → {} tokens",
            first.seq,
            first.kind.as_str(),
            first.trigger.map_or("without a trigger", |t| t.as_str()),
            first.tokens_before,
            first.tokens_after
        )
    } else {
        format!(
            "{} replace ops here (seq {} … {}), {freed} tokens freed in all",
            group.len(),
            first.seq,
            last.seq
        )
    };
    let _ = write!(
        svg,
        r##"<a href="#r-{seq}"><line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="{}" stroke-width="1"><title>{title}</title></line></a>"##,
        TOP + TICK,
        trigger_colour(trigger),
        seq = first.seq,
    );
}

fn replace_mark(svg: &mut String, plot: &Plot, r: &ReplaceAudit) {
    let EventIdx(i) = r.event;
    let x = plot.x(i as usize);
    let colour = trigger_colour(r.trigger);
    let dash = if r.valid {
        ""
    } else {
        r#" stroke-dasharray="2 2""#
    };
    let _ = write!(
        svg,
        r##"<a href="#r-{seq}"><line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="{colour}" stroke-width="1.5" opacity="0.75"{dash}><title>seq {seq} {kind}, {trigger}: {b} → {a} tokens</title></line><path d="M{:.1},{TOP} l4,-6 l-8,0 z" fill="{colour}"/></a>"##,
        HEIGHT - BOTTOM,
        x,
        seq = r.seq,
        kind = r.kind.as_str(),
        trigger = r.trigger.map_or("without a trigger", |t| t.as_str()),
        b = r.tokens_before,
        a = r.tokens_after,
    );
}

fn axes(svg: &mut String, plot: &Plot, report: &Report<'_>) {
    let bottom = HEIGHT - BOTTOM;
    let mut ticks = vec![0];
    if let Some(w) = report.audit.window {
        ticks.push(w);
        if let Some(t) = report.audit.threshold {
            ticks.push(t);
        }
    } else {
        ticks.push((plot.y_max / 1.05) as u64);
    }
    for t in ticks {
        let _ = write!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="end" fill="#444">{t}</text>"##,
            LEFT - 6.0,
            plot.y(t) + 4.0
        );
    }
    let n = report.log.len();
    if n == 0 {
        return;
    }
    for k in 0..=4 {
        let event = (n - 1) * k / 4;
        let anchor = match k {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let _ = write!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="{anchor}" fill="#444">seq {}</text>"##,
            plot.x(event),
            bottom + 18.0,
            report.log.event(EventIdx(event as u32)).seq
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_grouped_by_pixel_column() {
        let xs = [10.2, 10.9, 11.0, 30.5, 30.6];
        let groups = by_column(&xs, |&x| x);
        let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![2, 1, 2]);
        assert!(by_column(&[] as &[f64], |&x| x).is_empty());
    }

    #[test]
    fn each_column_spans_its_lowest_and_highest_total() {
        // A sawtooth of period 4 over 2 columns: each column holds a climb and a drop.
        let totals = [10, 20, 30, 5, 10, 20, 30, 5];
        assert_eq!(column_extents(&totals, 2), vec![(5, 30), (5, 30)]);
        // One event per column: joined to the previous column's figure.
        assert_eq!(
            column_extents(&[10, 30, 5], 3),
            vec![(10, 10), (10, 30), (5, 30)]
        );
        assert!(column_extents(&[], 4).is_empty());
        assert_eq!(column_extents(&[7, 9], 5).len(), 2);
    }

    #[test]
    fn the_most_urgent_trigger_colours_a_shared_column() {
        assert!(urgency(Some(Trigger::Overflow)) > urgency(Some(Trigger::Pressure)));
        assert!(urgency(Some(Trigger::BelowThreshold)) > urgency(None));
    }
}
