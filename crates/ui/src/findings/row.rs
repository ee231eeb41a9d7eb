//! The text of one findings row: the rule and place on the first line, the message on the
//! second, each cut with "…" at the row's width (a one-row truncation would drop the message).

use std::sync::Arc;

use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontId, Galley, TextFormat};

use surface_engine::Finding;

/// A job of `text` in `font` and `color`, cut with "…" after `rows` rows of `width`.
fn job(text: String, font: &FontId, color: Color32, width: f32, rows: usize) -> LayoutJob {
    let mut job = LayoutJob::simple_format(text, TextFormat::simple(font.clone(), color));
    job.wrap = TextWrapping {
        max_width: width.max(1.0),
        max_rows: rows,
        break_anywhere: true,
        ..Default::default()
    };
    job
}

/// The two-line text of a finding in `font` and `color`, each line cut at `width`; `layout`
/// lays a job out (the context's fonts).
pub fn finding_row_galley(
    head: &str,
    message: &str,
    (font, color, width): (&FontId, Color32, f32),
    mut layout: impl FnMut(LayoutJob) -> Arc<Galley>,
) -> Arc<Galley> {
    // The head alone first, cut to one row, so that the message keeps the second.
    let head = layout(job(head.to_string(), font, color, width, 1));
    let head: String = head
        .rows
        .iter()
        .flat_map(|r| r.glyphs.iter().map(|g| g.chr))
        .collect();
    let text = format!("{head}\n{}", message.replace('\n', " "));
    layout(job(text, font, color, width, 2))
}

/// Where a finding is: its seq and line, either, or the whole log.
pub fn place_of(f: &Finding) -> String {
    match (f.seq, f.line) {
        (Some(s), Some(l)) => format!("seq {s}, line {l}"),
        (Some(s), None) => format!("seq {s}"),
        (None, Some(l)) => format!("line {l}"),
        (None, None) => "whole log".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_gets_the_second_row() {
        let ctx = egui::Context::default();
        let mut rows = Vec::new();
        let mut output = ctx.run_ui(Default::default(), |ui| {
            let galley = finding_row_galley(
                "■ surface.replace.provenance-incomplete · seq 86, line 81",
                "sourceEventSeqs does not include every shadowed node; missing [17, 18, 19, 20, 21, 22, 23, 24, 25]",
                (&FontId::proportional(13.0), Color32::WHITE, 300.0),
                |job| ui.fonts_mut(|f| f.layout_job(job)),
            );
            rows = galley
                .rows
                .iter()
                .map(|r| r.glyphs.iter().map(|g| g.chr).collect::<String>())
                .collect();
        });
        output.textures_delta.clear();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows[0].starts_with("■ surface.replace"), "{rows:?}");
        assert!(rows[1].starts_with("sourceEventSeqs does not"), "{rows:?}");
        assert!(rows[1].ends_with('…'), "{rows:?}");
    }
}
