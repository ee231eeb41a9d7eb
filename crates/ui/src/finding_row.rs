//! The text of one findings row: the rule and place on the first line, the message on the
//! second, each cut with "…" at the row's width (a one-row truncation would drop the message).

use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontId, TextFormat};

/// Rows a finding's text may take.
const ROWS: usize = 2;

/// The two-line text of a finding in `font` and `color`, wrapped at `width`.
pub fn finding_row_job(
    head: &str,
    message: &str,
    font: FontId,
    color: Color32,
    width: f32,
) -> LayoutJob {
    let mut job = LayoutJob::simple_format(
        format!("{head}\n{}", message.replace('\n', " ")),
        TextFormat::simple(font, color),
    );
    job.wrap = TextWrapping {
        max_width: width.max(1.0),
        max_rows: ROWS,
        break_anywhere: true,
        ..Default::default()
    };
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_gets_the_second_row() {
        let ctx = egui::Context::default();
        let mut rows = Vec::new();
        let mut output = ctx.run_ui(Default::default(), |ui| {
            let job = finding_row_job(
                "■ surface.replace.provenance-incomplete · seq 86, line 81",
                "sourceEventSeqs does not include every shadowed node; missing [17, 18, 19, 20, 21, 22, 23, 24, 25]",
                FontId::proportional(13.0),
                Color32::WHITE,
                300.0,
            );
            let galley = ui.fonts_mut(|f| f.layout_job(job));
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
