//! The Tune view's frontier chart (egui_plot), as `tune --html` draws it: every setting a
//! point at (requests over the window at their most, its objective), its range an error bar,
//! the frontier in blue and joined, dominated settings grey, the baseline a square, the
//! recommendation ringed (and the selected setting, in the folder view). A point's hover says
//! its setting; a click on it is a click on its row.

use egui::{Align2, Color32, Ui};
use egui_plot::{Line, MarkerShape, Plot, PlotPoint, PlotTransform, PlotUi, Points, Text};

use surface_analysis::cost::money;
use surface_analysis::policy::tune::{Objective, TuneRow};
use surface_reports::tune::Sweep;
use surface_reports::tune::text::{objective_name, objective_text, setting_text};

use crate::theme;

/// A row's place on the chart: (requests over the window at most, objective likely, its
/// smallest, its largest); `None` without an objective (unpriced).
fn place(s: &Sweep, row: &TuneRow) -> Option<[f64; 4]> {
    let o = s.objective.of(row)?;
    Some([row.totals.requests_over_window.max, o.likely, o.min, o.max])
}

/// An axis value of the objective, short: money, or tokens in k (M from ten million).
fn objective_tick(objective: Objective, v: f64) -> String {
    match objective {
        Objective::Cost => money(v),
        Objective::Prompt if v.abs() >= 1e7 => format!("{:.0} M", v / 1e6),
        Objective::Prompt if v.abs() >= 1e3 => format!("{:.0} k", v / 1e3),
        Objective::Prompt => format!("{v:.0}"),
    }
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about four: the
/// objective axis labels four or five values however short the chart (powers of ten alone
/// left one label on a narrow range).
fn nice_step(span: f64) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let rough = span / 4.0;
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * power)
}

/// The row nearest `pointer` on screen within the pick distance.
fn nearest(s: &Sweep, transform: &PlotTransform, pointer: egui::Pos2) -> Option<usize> {
    s.rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let p = place(s, r)?;
            let at = transform.position_from_point(&PlotPoint::new(p[0], p[1]));
            Some((i, at.distance(pointer)))
        })
        .filter(|(_, d)| *d <= theme::TUNE_PICK_DISTANCE)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The plot: fixed (no zoom, drag or scroll: a click is a pick), from 0 requests, its axes
/// named and their ticks short.
fn plot(s: &Sweep, height: f32) -> Plot<'static> {
    let objective = s.objective;
    Plot::new("tune-frontier")
        .height(height)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .show_x(false)
        .show_y(false)
        .include_x(0.0)
        .x_axis_label("requests over the window (at most)")
        .y_axis_label(objective_name(s))
        .y_axis_formatter(move |mark, _| objective_tick(objective, mark.value))
        .y_grid_spacer(egui_plot::uniform_grid_spacer(|input| {
            let step = nice_step(input.bounds.1 - input.bounds.0);
            [step / 5.0, step, step * 5.0]
        }))
        .y_axis_min_width(theme::TUNE_Y_AXIS_WIDTH)
        .x_axis_formatter(|mark, _| {
            if mark.value.fract() == 0.0 && mark.value >= 0.0 {
                format!("{:.0}", mark.value)
            } else {
                String::new()
            }
        })
}

/// Every setting's error bar and point, the frontier joined.
fn settings_items(plot: &mut PlotUi<'_>, s: &Sweep, pal: &theme::Palette) {
    let (r, _, _) = theme::TUNE_POINT_RADIUS;
    let mut front = Vec::new();
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for (i, row) in s.rows.iter().enumerate() {
        let Some([x, y, lo, hi]) = place(s, row) else {
            continue;
        };
        let frontier = s.choice.frontier.contains(&i);
        let colour = if frontier {
            pal.strip_curve
        } else {
            pal.trigger_none
        };
        if hi > lo {
            plot.line(
                Line::new("", vec![[x, lo], [x, hi]])
                    .color(colour.gamma_multiply(0.5))
                    .width(1.0)
                    .allow_hover(false),
            );
        }
        if frontier {
            front.push([x, y]);
            on.push([x, y]);
        } else {
            off.push([x, y]);
        }
    }
    front.sort_by(|a, b| a[0].total_cmp(&b[0]).then(b[1].total_cmp(&a[1])));
    plot.points(
        Points::new("dominated", off)
            .color(pal.trigger_none)
            .radius(r),
    );
    // No band: the frontier's points often share one x (no request over the window).
    plot.line(
        Line::new("frontier", front)
            .color(pal.strip_curve)
            .width(1.5)
            .allow_band(false),
    );
    plot.points(Points::new("frontier", on).color(pal.strip_curve).radius(r));
}

/// A label beside a mark at `x`, on the side with more room: its text and anchor.
fn beside(plot: &PlotUi<'_>, x: f64, text: &str, vertical: egui::Align) -> (String, Align2) {
    let b = plot.plot_bounds();
    let left = x <= (b.min()[0] + b.max()[0]) / 2.0;
    let horizontal = if left {
        egui::Align::Min
    } else {
        egui::Align::Max
    };
    let text = if left {
        format!("   {text}")
    } else {
        format!("{text}   ")
    };
    (text, Align2([horizontal, vertical]))
}

/// The baseline's square, and the rings of the recommendation and the selected setting.
fn marks(plot: &mut PlotUi<'_>, s: &Sweep, selected: Option<usize>, pal: &theme::Palette) {
    let (_, square, ring) = theme::TUNE_POINT_RADIUS;
    if let Some([x, y, ..]) = place(s, &s.baseline) {
        plot.points(
            Points::new("baseline", vec![[x, y]])
                .shape(MarkerShape::Square)
                .color(pal.bar_tools)
                .radius(square),
        );
        let (text, anchor) = beside(plot, x, "baseline", egui::Align::Center);
        plot.text(
            Text::new("baseline", PlotPoint::new(x, y), text)
                .anchor(anchor)
                .color(pal.bar_tools),
        );
    }
    let mut ringed = |i: usize, colour: Color32, label: &str| {
        if let Some([x, y, ..]) = s.rows.get(i).and_then(|r| place(s, r)) {
            plot.points(
                Points::new(label, vec![[x, y]])
                    .filled(false)
                    .color(colour)
                    .radius(ring),
            );
            let (text, anchor) = beside(plot, x, &format!("{label} #{i}"), egui::Align::Max);
            plot.text(
                Text::new(label, PlotPoint::new(x, y), text)
                    .anchor(anchor)
                    .color(colour),
            );
        }
    };
    if let Some(i) = selected.filter(|&i| s.choice.recommended != Some(i)) {
        ringed(i, pal.text, "selected");
    }
    if let Some(i) = s.choice.recommended {
        ringed(i, pal.what_if, "recommended");
    }
}

/// Draws the chart `height` high (`click`: what a click on a point does, for its hover); the
/// row whose point was clicked.
pub fn chart_ui(
    ui: &mut Ui,
    s: &Sweep,
    (selected, click): (Option<usize>, &str),
    height: f32,
) -> Option<usize> {
    let pal = theme::palette(ui);
    let response = plot(s, height).show(ui, |plot| {
        settings_items(plot, s, &pal);
        marks(plot, s, selected, &pal);
    });
    let transform = response.transform;
    let hovered = response
        .response
        .hover_pos()
        .and_then(|p| nearest(s, &transform, p));
    let clicked = response.response.clicked();
    let at = response.response.interact_pointer_pos();
    if let Some(i) = hovered {
        let row = &s.rows[i];
        response.response.on_hover_text(format!(
            "#{i} {}\n{}: {}\nrequests over the window: {:.0} at most\n{click}",
            setting_text(row.settings.as_ref()),
            objective_name(s),
            objective_text(s, row),
            row.totals.requests_over_window.max
        ));
    }
    if clicked {
        at.and_then(|p| nearest(s, &transform, p))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_short() {
        assert_eq!(objective_tick(Objective::Prompt, 2_500_000.0), "2500 k");
        assert_eq!(objective_tick(Objective::Prompt, 25_000_000.0), "25 M");
        assert_eq!(objective_tick(Objective::Prompt, 12_300.0), "12 k");
        assert_eq!(objective_tick(Objective::Prompt, 12.0), "12");
        assert_eq!(objective_tick(Objective::Cost, 1.5), "1.5000");
    }

    #[test]
    fn a_step_cuts_the_axis_into_about_four_round_parts() {
        assert_eq!(nice_step(310_000.0), 100_000.0);
        assert_eq!(nice_step(30_000.0), 10_000.0);
        assert_eq!(nice_step(7.0), 2.0);
        assert_eq!(nice_step(0.012), 0.005);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(nice_step(f64::NAN), 1.0);
    }
}
