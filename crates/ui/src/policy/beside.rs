//! The Policy tab's what-if held against a real run (issue #37): "Compare with a run…" (the
//! comparison's own dialog and reading; B lands beside the prediction, both curves on the
//! strip), which run is beside it, and the table "Prediction against the run" — the what-if's
//! figures (its report, its ledger and count ranges) beside B's real ones (the comparison's
//! analysis of B, B's compactions at the policy's check points). No figure is made here: each
//! cell is one the engine computed, its source named on hover.

use egui::{RichText, Ui};

use surface_analysis::policy::{CountRange, PolicyReport};

use crate::command::{CompareCommand, UiCommand};
use crate::compare::job::Compared;
use crate::compare::state::CompareRuns;
use crate::policy::ledgers::WhatIfLedgers;
use crate::theme;

/// One line of the table: its name, the predicted and the real figure, their difference, and
/// where each figure comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct BesideRow {
    /// What is counted.
    pub name: &'static str,
    /// The what-if's figure.
    pub predicted: String,
    /// B's figure.
    pub real: String,
    /// Predicted − real (`–` where the two cannot be subtracted).
    pub off_by: String,
    /// Where the predicted figure comes from.
    pub predicted_from: &'static str,
    /// Where the real figure comes from.
    pub real_from: &'static str,
}

/// A count the what-if gives as a range: `likely (min–max)` once the ranges are computed, the
/// replay's own count before.
fn range_text(likely: usize, range: Option<CountRange>) -> String {
    match range {
        Some(r) => format!("{} ({}–{})", r.likely, r.min, r.max),
        None => likely.to_string(),
    }
}

/// `predicted − real`, signed; with the share of `real` when `percent`.
fn off_by(predicted: Option<f64>, real: Option<f64>, percent: bool, digits: usize) -> String {
    let (Some(p), Some(r)) = (predicted, real) else {
        return "–".into();
    };
    let d = p - r;
    let sign = if d > 0.0 { "+" } else { "" };
    let mut text = format!("{sign}{d:.digits$}");
    if percent && r != 0.0 {
        text.push_str(&format!(" ({sign}{:.1} %)", d / r * 100.0));
    }
    text
}

/// `turn.step · seq N`, or `none`.
fn place_text(turn: Option<u64>, step: Option<u64>, seq: u64) -> String {
    let part = |x: Option<u64>| x.map_or("–".to_string(), |x| x.to_string());
    format!("{}.{} · seq {seq}", part(turn), part(step))
}

/// The table's lines: the what-if `report` (with its `ledgers` once computed) against the real
/// run of `run` (B).
pub fn beside_rows(
    report: &PolicyReport,
    ledgers: Option<&WhatIfLedgers>,
    run: &Compared,
) -> Vec<BesideRow> {
    let ranges = ledgers.and_then(|l| l.ranges);
    let real = &run.b.total;
    let count =
        |name, likely: usize, range: Option<CountRange>, b: u64, from, real_from| BesideRow {
            name,
            predicted: range_text(likely, range),
            real: b.to_string(),
            off_by: off_by(Some(likely as f64), Some(b as f64), false, 0),
            predicted_from: from,
            real_from,
        };
    let mut rows = vec![
        count(
            "checks fired",
            report.totals.fired,
            ranges.map(|r| r.fired),
            run.b_checks.fired as u64,
            "The what-if's checks that compact (or try to): likely (min–max), the replay's own count and the counts with every later threshold moved by the observed spread (policy --what-if: fired)",
            "B's checks at which its log compacted (or tried to), at the policy's check points (policy B: the log's fired)",
        ),
        count(
            "summaries",
            report.totals.summaries,
            ranges.map(|r| r.summaries),
            real.summaries,
            "Summaries the what-if makes: likely (min–max) (policy --what-if: summaries)",
            "B's replace ops after a compaction/summary (compare: summ)",
        ),
        count(
            "prunes",
            report.totals.prunes,
            ranges.map(|r| r.prunes),
            real.prunes,
            "Tool results the what-if prunes: likely (min–max) (policy --what-if: prunes)",
            "B's replace ops after a compaction/prune (compare: prune)",
        ),
    ];
    let what_if = ledgers.map(|l| &l.what_if);
    let prompt = what_if.map(|w| w.agent_prompt);
    rows.push(BesideRow {
        name: "agent prompt",
        predicted: prompt.map_or("–".into(), |p| format!("~{p}")),
        real: real.prompt.to_string(),
        off_by: off_by(
            prompt.map(|p| p as f64),
            Some(real.prompt as f64),
            true,
            0,
        ),
        predicted_from: "Σ prompt of the agent calls in the what-if's ledger, an estimate (the ledger above)",
        real_from: "Σ prompt (uncached + cache read + cache write) of B's agent calls (compare: prompt)",
    });
    let cost = what_if.and_then(|w| w.totals.all.cost);
    if cost.is_some() || real.cost.is_some() {
        rows.push(BesideRow {
            name: "cost",
            predicted: cost.map_or("–".into(), |c| format!("~{c:.4}")),
            real: real.cost.map_or("–".into(), |c| format!("{c:.4}")),
            off_by: off_by(cost, real.cost, true, 4),
            predicted_from: "Σ cost of every call in the what-if's ledger, priced with the price file (the ledger above)",
            real_from: "Σ cost of every call of B, agent and summarizer, priced with the price file (compare: cost)",
        });
    }
    let predicted = report.first_fired();
    let b_first = run.b_checks.first;
    let same = match (predicted, b_first) {
        (Some(p), Some((turn, step, _))) if p.turn == turn && p.step == step => "same step",
        _ => "–",
    };
    rows.push(BesideRow {
        name: "first compaction",
        predicted: predicted.map_or("none".into(), |c| {
            place_text(c.turn, c.step, c.step_start_seq)
        }),
        real: b_first.map_or("none".into(), |(turn, step, seq)| {
            place_text(turn, step, seq)
        }),
        off_by: same.into(),
        predicted_from: "The what-if's first check that compacts: the turn.step it comes before, and that step's step/start seq in this log",
        real_from: "B's first check that compacted: the turn.step it comes before, and the seq of B's first compaction event",
    });
    rows
}

/// The section at the foot of a what-if: the button, the run beside the prediction, the table.
pub fn beside_ui(
    ui: &mut Ui,
    report: &PolicyReport,
    ledgers: Option<&WhatIfLedgers>,
    compare: &CompareRuns,
    commands: &mut Vec<UiCommand>,
) {
    let palette = theme::palette(ui);
    ui.label(RichText::new("Prediction against a real run").strong());
    let Some(run) = compare.result() else {
        ui.horizontal_wrapped(|ui| {
            pick_button(ui, "Compare with a run…", commands);
            if compare.running()
                && let Some(name) = compare.wanted_label()
            {
                ui.spinner();
                ui.label(format!("Reading and comparing {name}…"));
            }
        });
        if let Some(error) = &compare.error {
            ui.label(RichText::new(error).color(palette.error));
        }
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Beside: {}", run.b_label)).on_hover_text(
            "The real run (B) whose context curve is drawn on the strip beside the predicted one",
        );
        let mut shown = !compare.hide_curve;
        if ui
            .checkbox(&mut shown, "show B's curve")
            .on_hover_text("Draw B's real context curve on the strip (the what-if curve has its own toggle under the strip)")
            .changed()
        {
            commands.push(CompareCommand::ShowCurve(shown).into());
        }
        pick_button(ui, "Pick another run…", commands);
        if ui
            .button("Close B")
            .on_hover_text("Forget B: its curve and figures go")
            .clicked()
        {
            commands.push(CompareCommand::Close.into());
        }
        if compare.running() {
            ui.spinner();
        }
    });
    beside_table_ui(ui, &beside_rows(report, ledgers, run), &palette);
}

/// The button that picks B with the comparison's dialog.
fn pick_button(ui: &mut Ui, label: &str, commands: &mut Vec<UiCommand>) {
    if ui
        .button(label)
        .on_hover_text("Pick a real run of the same task (B), say one run at these settings: its context curve is drawn on the strip beside the predicted one, and its figures are held against the prediction here (as File ▸ Compare with…)")
        .clicked()
    {
        commands.push(CompareCommand::OpenDialogBeside.into());
    }
}

/// The table; it scrolls sideways in a narrow side panel.
fn beside_table_ui(ui: &mut Ui, rows: &[BesideRow], palette: &theme::Palette) {
    egui::ScrollArea::horizontal()
        .id_salt("policy-beside-wide")
        .show(ui, |ui| beside_grid_ui(ui, rows, palette));
}

fn beside_grid_ui(ui: &mut Ui, rows: &[BesideRow], palette: &theme::Palette) {
    egui::Grid::new("policy-beside")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            ui.label("");
            ui.label(RichText::new("predicted ~").strong())
                .on_hover_text("The what-if on this log: after its first divergence, an estimate");
            ui.label(RichText::new("B (real)").strong())
                .on_hover_text("What the real run B did");
            ui.label(RichText::new("predicted − B").strong())
                .on_hover_text("How far the prediction is from the real run");
            ui.end_row();
            for row in rows {
                ui.label(row.name);
                ui.label(&row.predicted).on_hover_text(row.predicted_from);
                ui.label(&row.real).on_hover_text(row.real_from);
                ui.label(RichText::new(&row.off_by).color(palette.weak_text));
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_signed_with_their_share() {
        assert_eq!(
            off_by(Some(342_427.0), Some(351_957.0), true, 0),
            "-9530 (-2.7 %)"
        );
        assert_eq!(off_by(Some(13.0), Some(11.0), false, 0), "+2");
        assert_eq!(off_by(Some(0.5), Some(0.5), true, 4), "0.0000 (0.0 %)");
        assert_eq!(off_by(None, Some(1.0), true, 0), "–");
    }

    #[test]
    fn counts_read_as_ranges_once_known() {
        let r = CountRange {
            likely: 13,
            min: 11,
            max: 15,
        };
        assert_eq!(range_text(13, Some(r)), "13 (11–15)");
        assert_eq!(range_text(13, None), "13");
        assert_eq!(place_text(Some(1), Some(8), 211), "1.8 · seq 211");
        assert_eq!(place_text(None, None, 3), "–.– · seq 3");
    }
}
