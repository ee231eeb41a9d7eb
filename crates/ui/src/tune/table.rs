//! The Tune table: the baseline, then every setting swept, one column per figure with its
//! likely value and range (`columns`), sorted by a click on a header (again: the other way
//! round); ★ marks the recommendation, ◆ the frontier. A click on a row is the view's click
//! on that setting (`click`); in a folder's view a row's menu opens a session with
//! it. Virtualised, and scrolling sideways in a narrow panel.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};

use surface_reports::tune::Sweep;

use crate::command::UiCommand;
use crate::theme;
use crate::tune::columns::{TuneColumn, TuneSort, cell_text, is_large_figure, order};
use crate::tune::command::{TuneCommand, TuneTarget};

/// What the table needs besides the sweep: its place, sort and selection.
pub struct TableContext {
    /// The view it is in.
    pub target: TuneTarget,
    /// The sort in force.
    pub sort: TuneSort,
    /// The selected row (folder view).
    pub selected: Option<usize>,
}

fn width(column: TuneColumn) -> Column {
    let (index, setting, small, large) = theme::TUNE_COLUMNS;
    match column {
        TuneColumn::Index => Column::exact(index),
        TuneColumn::Setting => Column::initial(setting).at_least(120.0).clip(true),
        TuneColumn::Figure(f) if is_large_figure(f) => {
            Column::initial(large).at_least(60.0).clip(true)
        }
        TuneColumn::Figure(_) => Column::initial(small).at_least(60.0).clip(true),
        TuneColumn::Exact => Column::initial(index + 16.0),
    }
}

/// Draws the table in the room left.
pub fn table_ui(ui: &mut Ui, s: &Sweep, context: &TableContext, commands: &mut Vec<UiCommand>) {
    let columns = TuneColumn::all(s.objective);
    let rows = order(s, context.sort);
    egui::ScrollArea::horizontal()
        .id_salt(("tune-table-sideways", context.target as u8))
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.style_mut().interaction.selectable_labels = false;
            let mut builder = TableBuilder::new(ui)
                .id_salt(("tune-table", context.target as u8))
                .striped(true)
                .resizable(true)
                .sense(egui::Sense::click())
                .max_scroll_height(f32::INFINITY)
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
            for &column in &columns {
                builder = builder.column(width(column));
            }
            builder
                .header(theme::TUNE_ROW_HEIGHT + 4.0, |mut header| {
                    for &column in &columns {
                        header.col(|ui| header_ui(ui, s, context, column, commands));
                    }
                })
                .body(|body| {
                    body.rows(theme::TUNE_ROW_HEIGHT, rows.len() + 1, |mut line| {
                        let index = line.index().checked_sub(1).map(|k| rows[k]);
                        let row = index.map_or(&s.baseline, |i| &s.rows[i]);
                        line.set_selected(index.is_some() && index == context.selected);
                        for &column in &columns {
                            line.col(|ui| cell_ui(ui, s, column, index, row));
                        }
                        let Some(i) = index else {
                            return;
                        };
                        let response = line.response();
                        if context.target == TuneTarget::Folder {
                            response.context_menu(|ui| {
                                crate::tune::open_menu::row_menu_ui(ui, s, i, commands)
                            });
                        }
                        if response.clicked() {
                            commands.push(crate::tune::click::row_command(context.target, s, i));
                        }
                    });
                });
        });
}

fn header_ui(
    ui: &mut Ui,
    s: &Sweep,
    context: &TableContext,
    column: TuneColumn,
    commands: &mut Vec<UiCommand>,
) {
    let arrow = match (
        context.sort.shown(s.objective) == column,
        context.sort.descending,
    ) {
        (true, true) => " ▼",
        (true, false) => " ▲",
        _ => "",
    };
    let label = RichText::new(format!("{}{arrow}", column.label(s))).strong();
    if ui
        .add(egui::Button::new(label).frame(false))
        .on_hover_text(format!("{}\nClick to sort", column.meaning()))
        .clicked()
    {
        commands.push(TuneCommand::Sort(context.target, column).into());
    }
}

fn cell_ui(
    ui: &mut Ui,
    s: &Sweep,
    column: TuneColumn,
    index: Option<usize>,
    row: &surface_analysis::policy::tune::TuneRow,
) {
    let pal = theme::palette(ui);
    let text = cell_text(s, column, index, row);
    match column {
        TuneColumn::Index => {
            let mark = match index {
                Some(i) if s.choice.recommended == Some(i) => Some(("★", pal.what_if)),
                Some(i) if s.choice.frontier.contains(&i) => Some(("◆", pal.strip_curve)),
                _ => None,
            };
            ui.label(RichText::new(text).color(pal.weak_text));
            if let Some((mark, colour)) = mark {
                ui.label(RichText::new(mark).color(colour).strong());
            }
        }
        _ if index.is_none() => {
            ui.label(RichText::new(text).color(pal.bar_tools));
        }
        _ => {
            ui.label(text);
        }
    }
}
