//! The context strip's legend, one line under it: what the x axis is (and how to switch it),
//! and what the curve, the lines, the squares and the marks mean, each in its own colour.

use egui::text::LayoutJob;
use egui::{Color32, FontId, TextFormat, Ui};

use crate::theme::{self, Palette};

/// What the legend names the x axis after.
pub fn axis_name(time: bool) -> &'static str {
    if time {
        "x: wall-clock time (T: event index)"
    } else {
        "x: event index (T: wall-clock time)"
    }
}

/// The legend as coloured chips and names.
pub fn legend_job(font: FontId, pal: &Palette, time: bool) -> LayoutJob {
    let mut job = LayoutJob::default();
    append_legend(&mut job, font, pal, time);
    job
}

/// Appends the legend to `job` (the strip's hover ends with it).
pub fn append_legend(job: &mut LayoutJob, font: FontId, pal: &Palette, time: bool) {
    let text = TextFormat::simple(font.clone(), pal.weak_text);
    job.append(axis_name(time), 0.0, text.clone());
    let mut chip = |glyph: &str, color: Color32, name: &str| {
        job.append(" · ", 0.0, text.clone());
        job.append(glyph, 0.0, TextFormat::simple(font.clone(), color));
        job.append(name, 3.0, text.clone());
    };
    chip("■", pal.strip_curve, "context tokens (the harness's meter)");
    chip("—", pal.strip_window, "context window");
    chip("- -", pal.warning, "compaction threshold");
    chip(
        "■",
        pal.strip_reported,
        "prompt tokens the provider reported for a model call",
    );
    chip(
        "▮",
        pal.family(theme::Family::Compaction),
        "replace op (top; trigger colour once audited)",
    );
    chip("▲", pal.strip_over_threshold, "request over the threshold");
    if time {
        chip("▬", pal.strip_call_span(), "model call");
        chip(
            "■",
            pal.family(theme::Family::Compaction).gamma_multiply(0.5),
            "compaction",
        );
        chip("■", pal.weak_text.gamma_multiply(0.4), "idle");
    }
}

/// Shows the legend under the strip.
pub fn strip_legend_ui(ui: &mut Ui, time: bool) {
    let pal = theme::palette(ui);
    let font = FontId::proportional(theme::STRIP_LEGEND_SIZE);
    let mut job = legend_job(font, &pal, time);
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_names_every_mark() {
        let pal = theme::palette_for(&egui::Visuals::dark());
        let index = legend_job(FontId::proportional(10.0), &pal, false).text;
        for name in [
            "context window",
            "compaction threshold",
            "provider reported",
        ] {
            assert!(index.contains(name), "{name}: {index}");
        }
        // Model calls, compactions and idle time are drawn on the time axis only.
        assert!(!index.contains("idle") && !index.contains('▬'), "{index}");
        let time = legend_job(FontId::proportional(10.0), &pal, true).text;
        assert!(time.contains("idle") && time.contains("x: wall-clock time"));
    }
}
