//! The Policy tab's verdict table: one row per check — seq, step, whether the log agrees, the
//! outcome, the total over the threshold, what the policy would prune and summarise, the total
//! after, exact or estimated — with the reason on a second line of the row (what differs, or why
//! the check ended as it did). Virtualised over rows of two heights, it scrolls sideways in a
//! narrow panel, marks the check at the cursor, scrolls to it when the cursor jumps there, and a
//! click moves the cursor to a check.

use std::sync::Arc;

use egui::{Align2, FontId, Pos2, Rect, Role, ScrollArea, Sense, Ui, UiBuilder, Vec2, WidgetInfo};

use surface_analysis::policy::{CheckVerdict, PolicyReport};

use crate::command::{NavCommand, UiCommand};
use crate::nav::reveal::ListScroll;
use crate::policy::rows::{Agreement, VerdictColumn, reason_text, verdict_cell};
use crate::theme::{self, Palette};

/// The table's layout for one report and its scroll.
#[derive(Debug, Default)]
pub struct VerdictTable {
    /// Each row's top in the table's content, then the bottom of the last row.
    tops: Vec<f32>,
    /// The report `tops` was laid out for (its address).
    laid_for: Option<usize>,
    scroll: ListScroll,
}

impl VerdictTable {
    /// Lays the rows of `report` out (once per report): a check with a reason takes two lines.
    fn layout(&mut self, report: &Arc<PolicyReport>) {
        let key = Arc::as_ptr(report) as usize;
        if self.laid_for == Some(key) {
            return;
        }
        self.tops.clear();
        let mut top = 0.0;
        for check in &report.checks {
            self.tops.push(top);
            top += row_height(check);
        }
        self.tops.push(top);
        self.laid_for = Some(key);
    }

    /// Scrolls the table to check `k` of the report it was laid out for.
    fn reveal(&mut self, k: usize) {
        if let (Some(&top), Some(&bottom)) = (self.tops.get(k), self.tops.get(k + 1)) {
            self.scroll.reveal(top, bottom - top);
        }
    }
}

/// A row's height: one line, or two with a reason.
fn row_height(check: &CheckVerdict) -> f32 {
    if reason_text(check).is_some() {
        2.0 * theme::POLICY_ROW_HEIGHT
    } else {
        theme::POLICY_ROW_HEIGHT
    }
}

/// Width of a row: the panel's, or all the columns' when they need more (it scrolls sideways).
fn row_width(ui: &Ui) -> f32 {
    let columns: f32 = theme::POLICY_COLUMNS.iter().sum();
    ui.available_width().max(columns + theme::SPACE)
}

/// The check at `cursor`: the last one measured at or before it (`None` before the first).
fn check_at(report: &PolicyReport, cursor: usize) -> Option<usize> {
    report
        .checks
        .partition_point(|c| c.cursor <= cursor)
        .checked_sub(1)
}

/// Shows the table of `report`; the check at `cursor` ([`check_at`]) is marked, and scrolled
/// to when `reveal` (the cursor just jumped).
pub fn verdict_table_ui(
    ui: &mut Ui,
    report: &Arc<PolicyReport>,
    table: &mut VerdictTable,
    (cursor, reveal): (usize, bool),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    if report.checks.is_empty() {
        ui.label("No checks: the log has no steps or /compact commands.");
        return;
    }
    table.layout(report);
    let at = check_at(report, cursor);
    if reveal && let Some(k) = at {
        table.reveal(k);
    }
    ScrollArea::horizontal()
        .id_salt("policy-wide")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let width = row_width(ui);
            let wide =
                Rect::from_min_size(ui.cursor().min, Vec2::new(width, ui.available_height()));
            ui.scope_builder(UiBuilder::new().max_rect(wide), |ui| {
                header_ui(ui, width, &pal);
                let area = ScrollArea::vertical()
                    .id_salt("policy-verdicts")
                    .auto_shrink([false, false]);
                let tops = &table.tops;
                let output = table.scroll.area(area).show_viewport(ui, |ui, viewport| {
                    ui.set_height(tops.last().copied().unwrap_or(0.0));
                    let origin = ui.max_rect().min;
                    let first = tops
                        .partition_point(|&t| t <= viewport.min.y)
                        .saturating_sub(1);
                    for (k, check) in report.checks.iter().enumerate().skip(first) {
                        let (Some(&top), Some(&bottom)) = (tops.get(k), tops.get(k + 1)) else {
                            break;
                        };
                        if top > viewport.max.y {
                            break;
                        }
                        let rect = Rect::from_min_max(
                            origin + Vec2::new(0.0, top),
                            origin + Vec2::new(width, bottom),
                        );
                        let here = at == Some(k);
                        row_ui(ui, rect, (k, check), here, &pal, commands);
                    }
                });
                table.scroll.update(&output, ui.ctx());
            });
        });
}

fn header_ui(ui: &mut Ui, width: f32, pal: &Palette) {
    let (rect, _) =
        ui.allocate_exact_size(Vec2::new(width, theme::POLICY_ROW_HEIGHT), Sense::hover());
    let font = FontId::proportional(theme::COMPACTION_FONT_SIZE);
    let mut x = rect.left() + theme::SPACE_SMALL;
    for (column, w) in VerdictColumn::ALL.into_iter().zip(theme::POLICY_COLUMNS) {
        let cell = Rect::from_x_y_ranges(x..=(x + w).min(rect.right()), rect.y_range());
        ui.interact(
            cell,
            ui.scope_id().with(("policy-column", column.title())),
            Sense::hover(),
        )
        .on_hover_text(column.hover())
        .widget_info(|| WidgetInfo::labeled(egui::Role::Label, true, column.title()));
        ui.painter().with_clip_rect(cell).text(
            Pos2::new(cell.left(), cell.center().y),
            Align2::LEFT_CENTER,
            column.title(),
            font.clone(),
            pal.weak_text,
        );
        x += w;
    }
}

/// One check's row: its cells, the reason under them, the mark of the check at the cursor;
/// a click moves the cursor to the check.
fn row_ui(
    ui: &mut Ui,
    rect: Rect,
    (k, check): (usize, &CheckVerdict),
    here: bool,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    // The part of the row in view takes the click (a row is wider than a narrow panel).
    let hit = rect.intersect(ui.clip_rect());
    let hit = if hit.is_positive() { hit } else { rect };
    let response = ui.interact(hit, ui.scope_id().with(("policy-check", k)), Sense::click());
    let reason = reason_text(check);
    response.widget_info(|| {
        let mut info = WidgetInfo::selected(
            Role::Button,
            true,
            here,
            format!("check seq {}", check.step_start_seq),
        );
        info.current_text_value = reason.clone();
        info
    });
    if ui.is_rect_visible(rect) {
        paint_row(
            ui,
            rect,
            check,
            reason.as_deref(),
            (here, response.hovered()),
            pal,
        );
    }
    if response.clicked() {
        commands.push(NavCommand::Seek(check.cursor).into());
    }
    let hover = match &reason {
        Some(reason) => format!("{reason}\nClick: move the cursor to this check"),
        None => "Click: move the cursor to this check".to_string(),
    };
    response.on_hover_text_at_pointer(hover);
}

fn paint_row(
    ui: &Ui,
    rect: Rect,
    check: &CheckVerdict,
    reason: Option<&str>,
    (here, hovered): (bool, bool),
    pal: &Palette,
) {
    let painter = ui.painter_at(rect);
    if here {
        painter.rect_filled(rect, 0.0, pal.selection_bg);
    }
    if hovered {
        painter.rect_stroke(rect, 0.0, pal.hover_stroke(), egui::StrokeKind::Inside);
    }
    let font = FontId::monospace(theme::COMPACTION_FONT_SIZE);
    let agreement = Agreement::of(check);
    let line = theme::POLICY_ROW_HEIGHT;
    let y = rect.top() + line / 2.0;
    let mut x = rect.left() + theme::SPACE_SMALL;
    for (column, w) in VerdictColumn::ALL.into_iter().zip(theme::POLICY_COLUMNS) {
        let color = match column {
            VerdictColumn::Agrees => match agreement {
                Agreement::No => pal.error,
                Agreement::Yes => pal.on_surface,
                Agreement::CantJudge | Agreement::NotCompared => pal.weak_text,
            },
            VerdictColumn::Exact if !check.exact => pal.warning,
            VerdictColumn::After if !check.exact => pal.weak_text,
            _ => pal.text,
        };
        let cell = Rect::from_x_y_ranges(
            x..=(x + w - theme::SPACE_SMALL),
            rect.top()..=rect.top() + line,
        );
        painter.with_clip_rect(cell.intersect(rect)).text(
            Pos2::new(x, y),
            Align2::LEFT_CENTER,
            verdict_cell(check, column),
            font.clone(),
            color,
        );
        x += w;
    }
    if let Some(reason) = reason {
        let color = if agreement == Agreement::No {
            pal.error
        } else {
            pal.weak_text
        };
        painter.text(
            Pos2::new(rect.left() + theme::SPACE_SMALL + theme::SPACE, y + line),
            Align2::LEFT_CENTER,
            format!("↳ {reason}"),
            FontId::proportional(theme::COMPACTION_FONT_SIZE),
            color,
        );
    }
}
