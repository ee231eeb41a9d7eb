//! The context strip's legend, one line under it: what the x axis is (and how to switch it),
//! what the curve, the lines, the squares and the marks mean, each in its own colour — the
//! replace ops' trigger colours once the audit is known, the what-if's curve and threshold
//! while one is drawn, the cache split's two parts while it is on, the cache breaks' causes
//! present while they are marked — and the toggles of the cache split, the cache breaks and
//! the what-if.

use egui::text::LayoutJob;
use egui::{Color32, FontId, TextFormat, Ui};

use surface_analysis::audit::Trigger;
use surface_analysis::cost::Cause;

use crate::command::{StripCommand, UiCommand};
use crate::theme::{self, Palette};

/// What the legend names besides the fixed marks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Legend {
    /// The x axis is wall-clock time.
    pub time: bool,
    /// Each model call's prompt is split into cache read and the rest.
    pub cache_split: bool,
    /// The replace ops carry their trigger's colour (the audit is known).
    pub audited: bool,
    /// A what-if is drawn: its threshold ratio.
    pub what_if: Option<f64>,
    /// The cache breaks are marked: the causes the log's breaks have (`Cause::ALL`'s order).
    pub breaks: Option<crate::strip::breaks_layer::Causes>,
}

/// What the legend names the x axis after.
pub fn axis_name(time: bool) -> &'static str {
    if time {
        "x: wall-clock time (T: event index)"
    } else {
        "x: event index (T: wall-clock time)"
    }
}

/// The legend as coloured chips and names.
pub fn legend_job(font: FontId, pal: &Palette, legend: Legend) -> LayoutJob {
    let mut job = LayoutJob::default();
    let text = TextFormat::simple(font.clone(), pal.weak_text);
    job.append(axis_name(legend.time), 0.0, text.clone());
    let chip = |job: &mut LayoutJob, glyph: &str, color: Color32, name: &str| {
        job.append(" · ", 0.0, text.clone());
        job.append(glyph, 0.0, TextFormat::simple(font.clone(), color));
        job.append(name, 3.0, text.clone());
    };
    chip(
        &mut job,
        "■",
        pal.strip_curve,
        "context tokens (the harness's meter)",
    );
    chip(&mut job, "—", pal.strip_window, "context window");
    chip(&mut job, "- -", pal.warning, "compaction threshold");
    if let Some(ratio) = legend.what_if {
        let ratio = surface_analysis::policy::four_digits(ratio);
        chip(
            &mut job,
            "—",
            pal.what_if,
            &format!("what-if total (T {ratio})"),
        );
        chip(&mut job, "- -", pal.what_if, "what-if threshold");
    }
    chip(
        &mut job,
        "■",
        pal.strip_reported,
        "prompt tokens the provider reported for a model call",
    );
    if legend.cache_split {
        chip(&mut job, "▮", pal.cache_read, "cache read");
        chip(
            &mut job,
            "▮",
            pal.cache_rest,
            "rest of the prompt (uncached + cache write)",
        );
    }
    if legend.audited {
        job.append(" · replace ops (top) by trigger:", 0.0, text.clone());
        for t in [
            Some(Trigger::Overflow),
            Some(Trigger::Command),
            Some(Trigger::Pressure),
            Some(Trigger::BelowThreshold),
            None,
        ] {
            let name = t.map_or("none", Trigger::as_str);
            job.append("▮", 4.0, TextFormat::simple(font.clone(), pal.trigger(t)));
            job.append(name, 2.0, text.clone());
        }
    } else {
        chip(
            &mut job,
            "▮",
            pal.family(theme::Family::Compaction),
            "replace op (top; trigger colour once audited)",
        );
    }
    chip(
        &mut job,
        "▲",
        pal.strip_over_threshold,
        "request over the threshold",
    );
    if let Some(causes) = legend.breaks {
        breaks_entries(&mut job, &font, pal, causes);
    }
    if legend.time {
        chip(&mut job, "▬", pal.strip_call_span(), "model call");
        chip(
            &mut job,
            "■",
            pal.family(theme::Family::Compaction).gamma_multiply(0.5),
            "compaction",
        );
        chip(&mut job, "■", pal.weak_text.gamma_multiply(0.4), "idle");
    }
    job
}

/// The cache breaks' entries: one per cause the log's breaks have, in its mark's shape and
/// colour ("none" when no request broke the cache).
fn breaks_entries(job: &mut LayoutJob, font: &FontId, pal: &Palette, causes: [bool; 7]) {
    let text = TextFormat::simple(font.clone(), pal.weak_text);
    job.append(
        " · cache breaks (first change) by cause:",
        0.0,
        text.clone(),
    );
    let mut any = false;
    for (cause, _) in Cause::ALL.iter().zip(causes).filter(|(_, on)| *on) {
        any = true;
        let glyph = crate::strip::breaks_layer::glyph(*cause);
        let color = pal.cache_break(*cause);
        job.append(glyph, 4.0, TextFormat::simple(font.clone(), color));
        job.append(cause.as_str(), 2.0, text.clone());
    }
    if !any {
        job.append("none (append-only growth throughout)", 4.0, text);
    }
}

/// Shows the legend under the strip, after the what-if toggle when a what-if exists and the
/// cache breaks' toggle once the first changes are known (`Some(shown)` each).
pub fn strip_legend_ui(
    ui: &mut Ui,
    legend: Legend,
    (what_if_shown, breaks_shown): (Option<bool>, Option<bool>),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let font = FontId::proportional(theme::STRIP_LEGEND_SIZE);
    ui.horizontal_wrapped(|ui| {
        let mut split = legend.cache_split;
        let toggle = ui
            .checkbox(
                &mut split,
                egui::RichText::new("cache split")
                    .size(theme::STRIP_LEGEND_SIZE)
                    .color(pal.cache_read),
            )
            .on_hover_text(
                "Split each model call's reported prompt (uncached + cache read + cache write) \
                 into the cache read (below) and the rest (above): after a compaction the next \
                 call's cache read drops — the cache it broke, cache_lost = max(0, P_prev − \
                 cache_read_next)",
            );
        if toggle.changed() {
            commands.push(StripCommand::ShowCacheSplit(split).into());
        }
        if let Some(shown) = breaks_shown {
            let mut on = shown;
            let toggle = ui
                .checkbox(
                    &mut on,
                    egui::RichText::new("cache breaks")
                        .size(theme::STRIP_LEGEND_SIZE)
                        .color(pal.cache_break(Cause::Replace)),
                )
                .on_hover_text(
                    "Mark each model call whose request first differs from the previous one \
                     before its end (the cache breaks there), by cause; hover a mark for the \
                     tokens sent again, click it to open the request (docs/cost.md, \"Why the \
                     cache missed\")",
                );
            if toggle.changed() {
                commands.push(StripCommand::ShowCacheBreaks(on).into());
            }
        }
        if let Some(shown) = what_if_shown {
            let mut on = shown;
            let toggle = ui
                .checkbox(
                    &mut on,
                    egui::RichText::new("what-if curve")
                        .size(theme::STRIP_LEGEND_SIZE)
                        .color(pal.what_if),
                )
                .on_hover_text(
                    "Draw the Policy tab's latest what-if over the strip: its total and its threshold",
                );
            if toggle.changed() {
                commands.push(StripCommand::ShowWhatIf(on).into());
            }
        }
        let shown = Legend {
            what_if: legend.what_if.filter(|_| what_if_shown == Some(true)),
            ..legend
        };
        ui.add(egui::Label::new(legend_job(font, &pal, shown)).wrap());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_names_every_mark() {
        let pal = theme::palette_for(&egui::Visuals::dark());
        let font = || FontId::proportional(10.0);
        let index = legend_job(font(), &pal, Legend::default()).text;
        for name in [
            "context window",
            "compaction threshold",
            "provider reported",
        ] {
            assert!(index.contains(name), "{name}: {index}");
        }
        // Model calls, compactions and idle time are drawn on the time axis only.
        assert!(!index.contains("idle") && !index.contains('▬'), "{index}");
        assert!(!index.contains("what-if"), "{index}");
        assert!(!index.contains("cache read"), "{index}");
        let split = Legend {
            cache_split: true,
            ..Legend::default()
        };
        let split = legend_job(font(), &pal, split).text;
        assert!(split.contains("cache read") && split.contains("uncached + cache write"));
        let time = Legend {
            time: true,
            ..Legend::default()
        };
        let time = legend_job(font(), &pal, time).text;
        assert!(time.contains("idle") && time.contains("x: wall-clock time"));
        // The audit's trigger colours, and the what-if's curve and threshold, each named.
        let all = Legend {
            audited: true,
            what_if: Some(0.795572916),
            breaks: Some([false, false, true, true, false, false, false]),
            ..Legend::default()
        };
        let all = legend_job(font(), &pal, all).text;
        for name in [
            "by trigger:",
            "overflow",
            "below-threshold",
            "what-if total (T 0.7956)",
            "what-if threshold",
            "cache breaks (first change) by cause:",
            "◆replace",
            "■tools",
        ] {
            assert!(all.contains(name), "{name}: {all}");
        }
        assert!(
            !all.contains("insert") && !index.contains("cache breaks"),
            "{all}"
        );
    }
}
