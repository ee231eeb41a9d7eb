//! The Compare tab: A and B named, the first divergence with both events' one-line summaries
//! (a click moves the cursor to it), the line saying which run was cheaper, and the per-turn
//! table — A, B and B − A per turn, then the totals with B / A — whose rows move the cursor to
//! the turn's start in A (B's position follows, shown above the table).

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};

use surface_analysis::compare::{Difference, FIGURE_COLUMNS, MISSING, Ratio, Row, cheaper_verdict};

use crate::command::UiCommand;
use crate::compare::command::CompareCommand;
use crate::compare::job::Compared;
use crate::compare::state::CompareRuns;
use crate::theme;

/// Shows the Compare tab.
pub fn compare_ui(
    ui: &mut Ui,
    state: &mut CompareRuns,
    recent: &[std::path::PathBuf],
    shown: Option<&std::path::Path>,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.horizontal(|ui| {
        if ui
            .button("Compare with…")
            .on_hover_text("Pick a second log (B) to hold against this one (A)")
            .clicked()
        {
            commands.push(CompareCommand::OpenDialog.into());
        }
        if state.result().is_some() && ui.button("Close B").clicked() {
            commands.push(CompareCommand::Close.into());
        }
    });
    if let Some(error) = &state.error {
        ui.label(RichText::new(error).color(pal.error));
    }
    let Some(run) = state.result().cloned() else {
        match state.wanted_label() {
            Some(name) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Reading and comparing {name}…"));
                });
            }
            None => {
                ui.label("No second run: pick one here or under File ▸ Compare with, or in the sessions browser a row's menu ▸ Compare with the selected session (a fork: Compare with parent).");
                ui.add_space(theme::SPACE);
                crate::compare::pick::pick_b_ui(ui, recent, shown, false, commands);
            }
        }
        return;
    };
    ui.label(format!(
        "A: {} — {} events, {} turns   B: {} — {} events, {} turns",
        run.a_label,
        run.a.events,
        run.a.positions.turns(),
        run.b_label,
        run.b.events,
        run.b.positions.turns()
    ));
    divergence_ui(ui, &run, commands);
    // In money when both runs were priced: the CLI's line, its head shown and the rest (how
    // the difference splits, what each run did) on hover, so that the table stays in view.
    let currency = run
        .a
        .currency
        .as_deref()
        .filter(|_| run.b.currency.is_some());
    let verdict = cheaper_verdict(&run.comparison, currency);
    let hover = match &verdict.detail {
        Some(detail) => format!("{}: {detail}", verdict.head),
        None => verdict.head.clone(),
    };
    ui.label(RichText::new(&verdict.short).strong())
        .on_hover_text(hover);
    ui.label(b_position_text(&run, state.b_cursor))
        .on_hover_text("B's position: moved with A's cursor by the rows and the first divergence");
    ui.separator();
    egui::ScrollArea::horizontal().show(ui, |ui| {
        table_ui(ui, &run, state.selected_turn, commands);
    });
    // Taken only while the timeline is open: a move made while it is folded shows on opening.
    egui::CollapsingHeader::new("B's timeline")
        .id_salt("compare-b-timeline-header")
        .show(ui, |ui| {
            let scroll = std::mem::take(&mut state.scroll_b);
            crate::compare::b_timeline::b_timeline_ui(ui, &run, state.b_cursor, scroll)
        });
}

/// The first divergence: both events, each a link to it.
fn divergence_ui(ui: &mut Ui, run: &Compared, commands: &mut Vec<UiCommand>) {
    let Some(d) = &run.comparison.first_divergence else {
        ui.label("No divergence: every event of A says what B's says (seq, time and ids aside).");
        return;
    };
    ui.label(format!(
        "First divergence after {} equal events ({}):",
        d.index,
        d.kind.as_str()
    ));
    let side =
        |name: &str, seq: Option<u64>, kind: &Option<String>, summary: &Option<String>| match seq {
            Some(seq) => format!(
                "{name}  seq {seq}  {}  {}",
                kind.as_deref().unwrap_or(""),
                summary.as_deref().unwrap_or("")
            ),
            None => format!("{name}  (ended)"),
        };
    for text in [
        side("A", d.a_seq, &d.a_type, &d.a_summary),
        side("B", d.b_seq, &d.b_type, &d.b_summary),
    ] {
        let link = ui
            .link(RichText::new(text).monospace())
            .on_hover_text("Move the cursor to the first divergence (B's position follows)");
        if link.clicked() {
            commands.push(CompareCommand::JumpToDivergence.into());
        }
    }
}

/// Where B's position is.
fn b_position_text(run: &Compared, b_cursor: Option<usize>) -> String {
    match b_cursor.filter(|&i| i < run.b_log.len()) {
        Some(i) => {
            let idx = surface_engine::EventIdx(i as u32);
            let p = run.b.positions.of(idx);
            format!(
                "B's position: seq {} (in step {}.{}), {}",
                run.b_log.event(idx).seq,
                p.turn,
                p.step,
                run.b_log.type_name(idx)
            )
        }
        None => "B's position: not set (click a turn or the first divergence)".into(),
    }
}

/// The figure cells of a row.
fn row_cells(r: &Row) -> [String; 10] {
    FIGURE_COLUMNS.map(|c| (c.row)(r))
}

/// The figure cells of B − A.
fn difference_cells(d: &Difference) -> [String; 10] {
    FIGURE_COLUMNS.map(|c| (c.difference)(d))
}

/// The figure cells of B / A.
fn ratio_cells(r: &Ratio) -> [String; 10] {
    FIGURE_COLUMNS.map(|c| (c.ratio)(r))
}

/// One line of the table: what the first cell says, the run, the figures, and the turn a
/// click moves to.
struct Line {
    turn: String,
    run: &'static str,
    cells: [String; 10],
    target: Option<u64>,
}

fn lines_of(run: &Compared) -> Vec<Line> {
    let mut lines = Vec::new();
    let missing = || std::array::from_fn(|_| MISSING.to_string());
    for t in &run.comparison.turns {
        let name = format!("turn {}", t.turn);
        lines.push(Line {
            turn: name,
            run: "A",
            cells: t.a.as_ref().map_or_else(missing, row_cells),
            target: Some(t.turn),
        });
        lines.push(Line {
            turn: String::new(),
            run: "B",
            cells: t.b.as_ref().map_or_else(missing, row_cells),
            target: Some(t.turn),
        });
        lines.push(Line {
            turn: String::new(),
            run: "B−A",
            cells: t.b_minus_a.as_ref().map_or_else(missing, difference_cells),
            target: Some(t.turn),
        });
    }
    let totals = &run.comparison.totals;
    for (turn, name, cells) in [
        ("total", "A", row_cells(&totals.a)),
        ("", "B", row_cells(&totals.b)),
        ("", "B−A", difference_cells(&totals.b_minus_a)),
        ("", "B/A", ratio_cells(&totals.b_over_a)),
    ] {
        lines.push(Line {
            turn: turn.into(),
            run: name,
            cells,
            target: None,
        });
    }
    lines
}

/// The per-turn table: a click on a turn's lines moves both positions to its start.
fn table_ui(ui: &mut Ui, run: &Compared, selected: Option<u64>, commands: &mut Vec<UiCommand>) {
    let lines = lines_of(run);
    let mut table = TableBuilder::new(ui)
        .striped(true)
        .sense(egui::Sense::click())
        .column(Column::auto().at_least(theme::COMPARE_TURN_WIDTH))
        .column(Column::auto());
    for _ in FIGURE_COLUMNS {
        table = table.column(Column::auto().at_least(theme::COMPARE_FIGURE_WIDTH));
    }
    table
        .header(theme::ROW_HEIGHT, |mut header| {
            header.col(|ui| {
                ui.strong("turn");
            });
            header.col(|ui| {
                ui.strong("run");
            });
            for c in FIGURE_COLUMNS {
                header.col(|ui| {
                    ui.strong(c.label);
                });
            }
        })
        .body(|body| {
            body.rows(theme::ROW_HEIGHT, lines.len(), |mut row| {
                let line = &lines[row.index()];
                row.set_selected(line.target.is_some() && line.target == selected);
                row.col(|ui| {
                    if let Some(turn) = line.target.filter(|_| !line.turn.is_empty()) {
                        let label = ui.selectable_label(selected == Some(turn), &line.turn);
                        if label.clicked() {
                            commands.push(CompareCommand::SelectTurn(turn).into());
                        }
                    } else {
                        ui.label(&line.turn);
                    }
                });
                row.col(|ui| {
                    ui.label(line.run);
                });
                for cell in &line.cells {
                    row.col(|ui| {
                        ui.label(cell);
                    });
                }
                if let Some(turn) = line.target
                    && row.response().clicked()
                {
                    commands.push(CompareCommand::SelectTurn(turn).into());
                }
            });
        });
}
