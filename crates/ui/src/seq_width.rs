//! Column widths that fit what they show: the timeline's seq column sized from the digits of
//! the log's last seq (seqs grow along the log) in the column's font, never narrower than the
//! theme's width, so a seven-digit seq or a `replace 1008638..1008640` is never cut; and the
//! surface panel's seq, role, op and token columns sized to the nodes they show, so that the
//! summary column takes the rest of the panel.

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

/// The surface panel's fixed columns, each as wide as its widest text among the nodes shown
/// plus a margin; the summary column takes what is left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeColumns {
    /// The seq column.
    pub seq: f32,
    /// The role column.
    pub role: f32,
    /// The op column (`append`, `replace 258..250`).
    pub op: f32,
    /// The tokens column.
    pub tokens: f32,
}

impl NodeColumns {
    /// The widths for rows whose texts are `(seq, role, op, tokens)`, laid out in `mono` (seq,
    /// role, tokens) and `proportional` (op).
    pub fn fit<'a>(
        ui: &Ui,
        rows: impl Iterator<Item = (u64, &'a str, String, String)>,
        (mono, proportional): (&FontId, &FontId),
    ) -> Self {
        let width = |text: String, font: &FontId| {
            ui.fonts_mut(|f| {
                f.layout_no_wrap(text, font.clone(), egui::Color32::WHITE)
                    .size()
                    .x
            })
        };
        let mut out = NodeColumns {
            seq: 0.0,
            role: 0.0,
            op: 0.0,
            tokens: 0.0,
        };
        let mut digits_seen = 0;
        for (seq, role, op, tokens) in rows {
            let d = digits(seq);
            if d > digits_seen {
                digits_seen = d;
                out.seq = out.seq.max(digits_width(ui, mono, d));
            }
            out.role = out.role.max(width(role.to_string(), mono));
            out.op = out.op.max(width(op, proportional));
            out.tokens = out.tokens.max(width(tokens, mono));
        }
        let m = theme::COLUMN_MARGIN;
        NodeColumns {
            seq: out.seq + m,
            role: out.role + m,
            op: out.op + m,
            tokens: out.tokens + m,
        }
    }

    /// The four widths together.
    #[cfg(test)]
    pub fn total(&self) -> f32 {
        self.seq + self.role + self.op + self.tokens
    }
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

    /// Runs `f` in a frame of a fresh context.
    fn in_frame<R: Default>(f: impl FnOnce(&Ui) -> R) -> R {
        let ctx = egui::Context::default();
        let mut out = R::default();
        let mut f = Some(f);
        let mut output = ctx.run_ui(Default::default(), |ui| {
            if let Some(f) = f.take() {
                out = f(ui);
            }
        });
        output.textures_delta.clear();
        out
    }

    fn laid(ui: &Ui, text: &str, font: &FontId) -> f32 {
        ui.painter()
            .layout_no_wrap(text.into(), font.clone(), egui::Color32::WHITE)
            .size()
            .x
    }

    #[test]
    fn short_seqs_keep_the_theme_widths() {
        let s = crate::session::loaded::test_session();
        let seq = in_frame(|ui| seq_column_width(ui, &s, &FontId::monospace(12.0)));
        assert_eq!(seq, theme::SEQ_WIDTH);
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
        let font = FontId::proportional(12.0);
        let op = "replace 1008638..1008638";
        let (seq, seq_text, columns, op_text) = in_frame(|ui| {
            let rows = [(1_009_662, "user", op.to_string(), "12".to_string())];
            (
                seq_column_width(ui, &s, &mono),
                laid(ui, "1009662", &mono),
                Some(NodeColumns::fit(ui, rows.into_iter(), (&mono, &font))),
                laid(ui, op, &font),
            )
        });
        let columns = columns.unwrap();
        assert!(
            seq >= seq_text + theme::COLUMN_MARGIN - 0.5,
            "{seq} {seq_text}"
        );
        assert!(columns.seq >= seq_text + theme::COLUMN_MARGIN - 0.5);
        assert!(
            columns.op >= op_text + theme::COLUMN_MARGIN - 0.5,
            "{columns:?} {op_text}"
        );
    }

    #[test]
    fn short_nodes_leave_the_summary_column_the_room() {
        let mono = FontId::monospace(12.0);
        let font = FontId::proportional(12.0);
        let columns = in_frame(|ui| {
            let rows = [
                (3, "user", "append".to_string(), "12".to_string()),
                (14, "assistant", "append".to_string(), "340".to_string()),
            ];
            Some(NodeColumns::fit(ui, rows.into_iter(), (&mono, &font)))
        })
        .unwrap();
        // The fixed widths these columns had: seq 60, role 76, op 92, tokens 52.
        let fixed = 280.0;
        assert!(columns.total() < fixed - 80.0, "{columns:?} vs {fixed}");
        assert!(columns.role > 0.0 && columns.op > 0.0 && columns.tokens > 0.0);
    }
}
