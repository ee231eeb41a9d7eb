//! Column widths that fit the seqs the open log can show: sized from the digits of its last
//! seq (seqs grow along the log) in the column's font, never narrower than the theme's
//! width, so a seven-digit seq or a `replace 1008638..1008640` is never cut.

use egui::{FontId, Ui};

use crate::session::loaded::Session;
use crate::theme;

/// Decimal digits of `n`.
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Digits of the widest seq the log shows: its last one (at least 1).
pub fn seq_digits(session: &Session) -> usize {
    session.log.events.last().map_or(1, |e| digits(e.seq))
}

/// Width of `digits` digits in `font` (digits share one advance in the fonts the UI uses).
fn digits_width(ui: &Ui, font: &FontId, digits: usize) -> f32 {
    let digit = ui.fonts_mut(|f| f.glyph_width(font, '0'));
    digits as f32 * digit
}

/// Width of a seq column in `font` for `session`, its margin included.
pub fn seq_column_width(ui: &Ui, session: &Session, font: &FontId) -> f32 {
    (digits_width(ui, font, seq_digits(session)) + theme::COLUMN_MARGIN).max(theme::SEQ_WIDTH)
}

/// Width of the surface panel's op column in `font`: `replace N..M` with two seqs as wide as
/// the log's widest, its margin included.
pub fn op_column_width(ui: &Ui, session: &Session, font: &FontId) -> f32 {
    let words = ui.fonts_mut(|f| {
        "replace .."
            .chars()
            .map(|c| f.glyph_width(font, c))
            .sum::<f32>()
    });
    (words + digits_width(ui, font, 2 * seq_digits(session)) + theme::COLUMN_MARGIN)
        .max(theme::OP_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_seqs() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(1_009_662), 7);
        assert_eq!(digits(u64::MAX), 20);
    }

    /// The width of `text` laid out in `font`, and the two column widths for `session`.
    fn measure(session: &Session, text: &str, font: FontId) -> (f32, f32, f32) {
        let ctx = egui::Context::default();
        let mut out = (0.0, 0.0, 0.0);
        let mut output = ctx.run_ui(Default::default(), |ui| {
            let laid = ui
                .painter()
                .layout_no_wrap(text.into(), font.clone(), egui::Color32::WHITE)
                .size()
                .x;
            out = (
                laid,
                seq_column_width(ui, session, &font),
                op_column_width(ui, session, &font),
            );
        });
        output.textures_delta.clear();
        out
    }

    #[test]
    fn short_seqs_keep_the_theme_widths() {
        let s = crate::session::loaded::test_session();
        let (_, seq, op) = measure(&s, "3", FontId::monospace(12.0));
        assert_eq!(seq, theme::SEQ_WIDTH);
        assert!(op >= theme::OP_WIDTH, "{op}");
    }

    #[test]
    fn seven_digit_seqs_fit_their_columns() {
        const LOG: &str = concat!(
            r#"{"type":"session","version":0,"id":"t","createdAt":1}"#,
            "\n",
            r#"{"type":"user/message","seq":1008638,"time":5,"data":{"content":[{"type":"text","text":"a"}]},"surfaceOp":"append"}"#,
            "\n",
            r#"{"type":"user/message","seq":1009662,"time":7,"data":{"content":[{"type":"text","text":"s"}]},"sourceEventSeqs":[1008638],"surfaceOp":{"op":"replace","start":1008638,"end":1008638}}"#,
            "\n",
        );
        let source = crate::session::loader::Source::Embedded {
            name: "t",
            bytes: LOG.as_bytes(),
        };
        let s = crate::session::loaded::test_session_pending(&source);
        let mono = FontId::monospace(12.0);
        let (seq_text, seq, _) = measure(&s, "1009662", mono);
        assert!(
            seq >= seq_text + theme::COLUMN_MARGIN - 0.5,
            "{seq} {seq_text}"
        );
        let font = FontId::proportional(12.0);
        let (op_text, _, op) = measure(&s, "replace 1008638..1009662", font);
        assert!(op_text > theme::OP_WIDTH, "{op_text}");
        assert!(op >= op_text + theme::COLUMN_MARGIN - 0.5, "{op} {op_text}");
    }
}
