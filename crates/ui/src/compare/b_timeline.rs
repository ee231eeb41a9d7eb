//! B's timeline beside A's, read-only: B's events (seq, turn.step, type, one-line summary),
//! virtualised, B's position marked and scrolled into view when the Compare tab moves it.

use egui::{RichText, Ui};

use surface_engine::{EventIdx, summarize_with_op};

use crate::compare::job::Compared;
use crate::theme;

/// Shows B's events; `scroll_to` scrolls B's position into view once.
/// Each comparison scrolls on its own (a new one starts at the top, not at the last one's
/// offset).
pub fn b_timeline_ui(ui: &mut Ui, run: &Compared, b_cursor: Option<usize>, scroll_to: bool) {
    let pal = theme::palette(ui);
    let log = &run.b_log;
    let mut area = egui::ScrollArea::vertical()
        .id_salt(("compare-b-timeline", std::ptr::from_ref(run) as usize))
        .max_height(theme::COMPARE_B_TIMELINE_HEIGHT)
        .auto_shrink([false, true]);
    if scroll_to && let Some(at) = b_cursor {
        let row = theme::ROW_HEIGHT + ui.spacing().item_spacing.y;
        let offset = (at as f32 * row - theme::COMPARE_B_TIMELINE_HEIGHT / 2.0).max(0.0);
        area = area.vertical_scroll_offset(offset);
    }
    area.show_rows(ui, theme::ROW_HEIGHT, log.len(), |ui, rows| {
        for i in rows {
            let idx = EventIdx(i as u32);
            let p = run.b.positions.of(idx);
            let text = format!(
                "{:>6}  {}.{:<3} {:<22} {}",
                log.event(idx).seq,
                p.turn,
                p.step,
                log.type_name(idx),
                summarize_with_op(log, idx)
            );
            let here = b_cursor == Some(i);
            let mut line = RichText::new(text).monospace();
            if here {
                line = line.strong().background_color(pal.selection_bg);
            }
            ui.add(egui::Label::new(line).truncate());
        }
    });
}
