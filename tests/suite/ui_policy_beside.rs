//! The Policy tab's what-if held against a real run (issue #37, item 3): p01 opened, the
//! what-if at T 0.7, p02 — the same script really run at T 0.7 — loaded beside it. The table
//! "Prediction against a real run" shows B's figures as `compare::analyse` gives them for p02
//! and the predicted ones as the what-if's report and ledger give them; "Compare with a run…"
//! asks for the comparison's dialog; the strip draws the log's, the predicted and B's curves
//! at once, each named in the legend, each toggle on its own; a price file prices both sides.

use crate::ui_support::{command, what_if_at};

use std::path::PathBuf;

use egui::Rect;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_analysis::compare::{Analysed, analyse};
use surface_analysis::cost::{Ledger, PriceTable, parts_of};
use surface_analysis::policy::{
    PolicyInput, PolicyReport, PolicySettings, Ranges, ReplayMode, count_ranges, replay,
    what_if_ledger,
};
use surface_engine::{EventLog, Meter, Surface};
use surface_ui::{CompareCommand, PriceCommand, SideTab, ViewerApp, WindowCommand};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/policy")
        .join(name)
}

fn prices_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/prices.example.json")
}

/// p01 in the Policy tab, its what-if at T 0.7 replayed.
fn what_if(size: (f32, f32)) -> Harness<'static, ViewerApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_eframe(|_cc| ViewerApp::new_for_test(fixture("p01.jsonl")));
    harness.run();
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    what_if_at(&mut harness, 0.7);
    harness.run();
    harness
}

/// The what-if with p02 loaded beside it through the compare room's command.
fn beside(size: (f32, f32)) -> Harness<'static, ViewerApp> {
    let mut harness = what_if(size);
    command(&mut harness, CompareCommand::Beside(fixture("p02.jsonl")));
    harness.run();
    harness
}

/// A log read as the viewer reads it, with its surface and meter.
struct Opened {
    log: EventLog,
    surface: Surface,
    meter: Meter,
}

fn opened(name: &str) -> Opened {
    let opened = surface_store::open(&fixture(name), &surface_store::Options::default()).unwrap();
    let surface = Surface::at_end(&opened.log);
    let meter = surface_passes::meter_of(&opened.log, &surface);
    Opened {
        log: opened.log,
        surface,
        meter,
    }
}

/// The real run's figures, as the engine's comparison analyses them.
fn real(name: &str, ratio: f64, prices: Option<&PriceTable>) -> Analysed {
    let o = opened(name);
    analyse(&o.log, &o.surface, &o.meter, ratio, prices)
}

/// p01's what-if at T 0.7, its count ranges and its ledger's agent prompt and cost.
fn predicted(prices: Option<&PriceTable>) -> (PolicyReport, Ranges, u64, Option<f64>) {
    let o = opened("p01.jsonl");
    let settings = PolicySettings {
        threshold_ratio: 0.7,
        ..PolicySettings::default()
    };
    let valid = settings.validate(o.meter.window_at(o.log.len())).unwrap();
    let input = PolicyInput::build(&o.log, &o.surface, &o.meter);
    let report = replay(&o.log, &o.meter, &input, &valid, ReplayMode::WhatIf);
    let ranges = count_ranges(&o.log, &o.meter, &input, &valid, &report).unwrap();
    let parts = parts_of(&o.log, &o.surface, &o.meter);
    let ledger = what_if_ledger(&parts, &report, &o.meter).unwrap();
    let ledger = Ledger::build(&ledger.parts, prices);
    let (prompt, cost) = (ledger.totals.agent.prompt, ledger.totals.all.cost);
    (report, ranges, prompt, cost)
}

fn row(table: &[(&'static str, String, String)], name: &str) -> (String, String) {
    let (_, p, r) = table
        .iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no row {name}: {table:?}"));
    (p.clone(), r.clone())
}

fn the_table_holds_the_prediction_against_p02(size: (f32, f32)) {
    let mut harness = beside(size);
    assert_eq!(harness.state().compare_error(), None);
    assert_eq!(harness.state().side_tab(), SideTab::Policy, "the tab stays");
    let table = harness
        .state_mut()
        .policy_beside_table()
        .expect("the prediction against p02");

    // B's real figures: p02 as `compare::analyse` gives them.
    let b = real("p02.jsonl", harness.state().threshold_ratio(), None);
    assert_eq!(row(&table, "summaries").1, b.total.summaries.to_string());
    assert_eq!(row(&table, "prunes").1, b.total.prunes.to_string());
    assert_eq!(row(&table, "agent prompt").1, b.total.prompt.to_string());
    assert_eq!((b.total.summaries, b.total.prunes), (11, 9));
    // Its checks that compacted: what a replay of p02 counts as the log's own `fired`.
    let o = opened("p02.jsonl");
    let input = PolicyInput::build(&o.log, &o.surface, &o.meter);
    let valid = PolicySettings::default()
        .validate(o.meter.window_at(o.log.len()))
        .unwrap();
    let verify = replay(&o.log, &o.meter, &input, &valid, ReplayMode::Verify);
    assert_eq!(
        row(&table, "checks fired").1,
        verify.actual_totals.fired.to_string()
    );
    // p02 first pruned at seq 211 (the comparison's first divergence), before step 1.8.
    let first = verify
        .checks
        .iter()
        .find(|c| {
            c.actual
                .as_ref()
                .is_some_and(|a| !a.pruned.is_empty() || !a.summaries.is_empty() || a.failed > 0)
        })
        .unwrap();
    assert_eq!((first.turn, first.step), (Some(1), Some(8)));
    assert_eq!(row(&table, "first compaction").1, "1.8 · seq 211");

    // The predicted figures: the what-if's report, its ranges and its ledger.
    let (report, ranges, prompt, _) = predicted(None);
    let range =
        |r: surface_analysis::policy::CountRange| format!("{} ({}–{})", r.likely, r.min, r.max);
    assert_eq!(ranges.fired.likely, report.totals.fired);
    assert_eq!(row(&table, "checks fired").0, range(ranges.fired));
    assert_eq!(row(&table, "summaries").0, range(ranges.summaries));
    assert_eq!(row(&table, "prunes").0, range(ranges.prunes));
    assert_eq!(row(&table, "agent prompt").0, format!("~{prompt}"));
    let f = report.first_fired().unwrap();
    assert_eq!(
        row(&table, "first compaction").0,
        format!(
            "{}.{} · seq {}",
            f.turn.unwrap(),
            f.step.unwrap(),
            f.step_start_seq
        )
    );
    assert!(
        table.iter().all(|(n, _, _)| *n != "cost"),
        "unpriced: no money"
    );

    table_is_on_screen(&mut harness, &table, size);
}

/// On screen: the section is reached by scrolling the upper pane (and the table sideways
/// in a narrow side panel); no two of its cells overlap.
fn table_is_on_screen(
    harness: &mut Harness<'static, ViewerApp>,
    table: &[(&'static str, String, String)],
    size: (f32, f32),
) {
    harness
        .get_by_label("Prediction against a real run")
        .scroll_to_me();
    harness.run();
    let headers = ["predicted ~", "B (real)", "predicted − B"];
    let top = harness.get_by_label("predicted ~").rect().top();
    let mut cells: Vec<(String, Rect)> = Vec::new();
    for label in headers {
        cells.push((label.into(), harness.get_by_label(label).rect()));
    }
    for (name, p, r) in table {
        for text in [name.to_string(), p.clone(), r.clone()] {
            // The ledger above shows some of the same figures: only the table's count here.
            for node in harness.query_all_by_label(&text) {
                if node.rect().top() >= top && !cells.iter().any(|(_, c)| *c == node.rect()) {
                    cells.push((text.clone(), node.rect()));
                }
            }
        }
    }
    assert!(cells.len() >= headers.len() + 3 * table.len(), "{cells:?}");
    for (i, (a, ra)) in cells.iter().enumerate() {
        for (b, rb) in &cells[i + 1..] {
            assert!(
                !ra.intersect(*rb).is_positive(),
                "{a} {ra:?} overlaps {b} {rb:?}"
            );
        }
    }
    let bar = harness.get_by_label("⇤ Start").rect().top();
    for label in ["Beside: p02.jsonl", "first compaction", "1.8 · seq 211"]
        .into_iter()
        .chain(headers)
    {
        harness
            .query_all_by_label(label)
            .last()
            .unwrap()
            .scroll_to_me();
        harness.run();
        let rect = harness.query_all_by_label(label).last().unwrap().rect();
        assert!(
            rect.left() >= 0.0
                && rect.right() <= size.0
                && rect.top() >= 0.0
                && rect.bottom() <= bar,
            "{label} at {rect:?}: not reachable in the {size:?} window"
        );
    }
}

#[test]
fn the_prediction_against_p02_at_1280_by_720() {
    the_table_holds_the_prediction_against_p02((1280.0, 720.0));
}

#[test]
fn the_prediction_against_p02_at_1600_by_1000() {
    the_table_holds_the_prediction_against_p02((1600.0, 1000.0));
}

#[test]
fn compare_with_a_run_asks_for_the_comparisons_dialog() {
    let mut harness = what_if((1280.0, 720.0));
    assert!(harness.state_mut().policy_beside_table().is_none());
    let button = harness.get_by_label("Compare with a run…");
    button.scroll_to_me();
    harness.run();
    assert_eq!(harness.state().dialog_asked(), None);
    harness.get_by_label("Compare with a run…").click();
    harness.run();
    // The compare room's dialog, for B beside the prediction (no dialog opens in tests).
    assert_eq!(
        harness.state().dialog_asked().as_deref(),
        Some("CompareBeside")
    );
    assert_eq!(harness.state().side_tab(), SideTab::Policy);
    // Once B is there the button reads "Pick another run…", which asks for the same.
    command(&mut harness, CompareCommand::Beside(fixture("p02.jsonl")));
    harness.get_by_label("Beside: p02.jsonl");
    assert!(harness.query_by_label("Compare with a run…").is_none());
    harness.get_by_label("Pick another run…");
    // Close B: the button is back, the table gone.
    harness.get_by_label("Close B").scroll_to_me();
    harness.run();
    harness.get_by_label("Close B").click();
    harness.run();
    assert!(harness.state_mut().policy_beside_table().is_none());
    harness.get_by_label("Compare with a run…");
}

#[test]
fn the_log_the_prediction_and_b_are_drawn_together_each_with_its_own_toggle() {
    let mut harness = beside((1600.0, 1000.0));
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    assert!(harness.state().strip_compare_drawn());
    // The legend names all three curves.
    harness.get_by_label_contains("context tokens (the harness's meter)");
    harness.get_by_label_contains("what-if total (T 0.7)");
    harness.get_by_label_contains("B context tokens (p02.jsonl");
    // The what-if's toggle hides the prediction only.
    harness.get_by_label("what-if curve").click();
    harness.run();
    assert_eq!(harness.state().strip_what_if(), None);
    assert!(harness.state().strip_compare_drawn());
    harness.get_by_label_contains("B context tokens (p02.jsonl");
    // The Policy tab's "show B's curve" hides B only, as does the strip's own toggle.
    harness.get_by_label("what-if curve").click();
    harness.run();
    harness.get_by_label("show B's curve").scroll_to_me();
    harness.run();
    harness.get_by_label("show B's curve").click();
    harness.run();
    assert!(!harness.state().strip_compare_drawn());
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    harness.get_by_label("run B's curve").click();
    harness.run();
    assert!(harness.state().strip_compare_drawn());
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    // Picking B beside the prediction draws both, whatever was hidden before.
    harness.get_by_label("what-if curve").click();
    harness.run();
    command(&mut harness, CompareCommand::ShowCurve(false));
    command(&mut harness, CompareCommand::Beside(fixture("p02.jsonl")));
    harness.run();
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    assert!(harness.state().strip_compare_drawn());
}

#[test]
fn a_price_file_prices_both_sides() {
    let mut harness = beside((1600.0, 1000.0));
    let unpriced = harness.state_mut().policy_beside_table().unwrap();
    assert!(unpriced.iter().all(|(n, _, _)| *n != "cost"));
    // A price file chosen with B already there: B is compared again, priced.
    command(&mut harness, PriceCommand::Use(prices_path()));
    harness.run();
    let table = harness.state_mut().policy_beside_table().unwrap();
    let prices = PriceTable::parse(&std::fs::read_to_string(prices_path()).unwrap()).unwrap();
    let b = real(
        "p02.jsonl",
        harness.state().threshold_ratio(),
        Some(&prices),
    );
    let (_, _, _, cost) = predicted(Some(&prices));
    let (p, r) = row(&table, "cost");
    assert_eq!(r, format!("{:.4}", b.total.cost.unwrap()));
    assert_eq!(p, format!("~{:.4}", cost.unwrap()));
}
