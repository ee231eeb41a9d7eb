//! The sessions browser's fleet columns, its "Export this folder…" command and the Policy tab's two
//! ledgers (docs/export.md, docs/cost.md#a-folder-cost-dir): values checked against the engine,
//! never hard-coded.

use crate::ui_support::{command, what_if_at};

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};
use surface_engine::Surface;
use surface_ui::ViewerApp;

fn policy_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/policy")
}

fn browser_harness(root: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 800.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_browser_for_test(&root))
}

/// What `policy FILE` (verify, default settings) says of a file: disagreements, the log's
/// peak total and the window at its end — through the engine and passes, as `policy DIR` does.
fn expected(file: &Path) -> (usize, u64, Option<u64>) {
    let opened = surface_store::open(file, &surface_store::Options::default()).unwrap();
    let log = &opened.log;
    let surface = Surface::at_end(log);
    let meter = surface_passes::meter_of(log, &surface);
    let window = meter.window_at(log.len());
    let settings = PolicySettings::default().validate(window).unwrap();
    let input = PolicyInput::build(log, &surface, &meter);
    let report = replay(log, &meter, &input, &settings, ReplayMode::Verify);
    (
        report.disagreements(),
        report.actual_totals.peak_total,
        window,
    )
}

#[test]
fn the_browser_shows_the_fleet_columns_as_policy_dir_and_sorts_by_them() {
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    let rows = harness.state_mut().browser_fleet();
    assert!(rows.len() >= 5, "{rows:?}");
    let mut shown_verdicts = Vec::new();
    for (file, fleet) in &rows {
        let fleet = fleet.as_ref().expect("every fixture is read");
        let (disagreements, peak, window) = expected(file);
        assert_eq!(fleet.disagreements, disagreements, "{}", file.display());
        assert_eq!(fleet.peak_total, peak, "{}", file.display());
        assert_eq!(fleet.window, window, "{}", file.display());
        shown_verdicts.push(fleet.verdict().label());
    }
    // The verdicts are on screen.
    for v in &shown_verdicts {
        assert!(
            harness.query_all_by_label(v).next().is_some(),
            "no cell {v:?}"
        );
    }
    // Sort by peak fill: biggest first, then the other way round.
    let fills = |h: &mut Harness<'static, ViewerApp>| -> Vec<f64> {
        h.state_mut()
            .browser_fleet()
            .iter()
            .map(|(_, f)| f.as_ref().and_then(|f| f.peak_fill()).unwrap_or(-1.0))
            .collect()
    };
    harness.get_by_label_contains("Peak fill").click();
    harness.run();
    let desc = fills(&mut harness);
    assert!(desc.windows(2).all(|w| w[0] >= w[1]), "{desc:?}");
    harness.get_by_label_contains("Peak fill").click();
    harness.run();
    let asc = fills(&mut harness);
    assert!(asc.windows(2).all(|w| w[0] <= w[1]), "{asc:?}");
    assert_ne!(desc, asc);

    // Sort by disagreements, biggest first.
    harness.get_by_label_contains("Disagreements").click();
    harness.run();
    let d: Vec<usize> = harness
        .state_mut()
        .browser_fleet()
        .iter()
        .map(|(_, f)| f.as_ref().map_or(0, |f| f.disagreements))
        .collect();
    assert!(d.windows(2).all(|w| w[0] >= w[1]), "{d:?}");
}

#[test]
fn the_policy_tabs_what_if_shows_both_ledgers_as_the_engine_estimates_them() {
    use surface_ui::{SideTab, WindowCommand};
    let path = policy_fixtures().join("p01.jsonl");
    let file = path.clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_eframe(move |_cc| ViewerApp::new_for_test(&file));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    what_if_at(&mut harness, 0.7);
    harness.run();
    let settings = harness.state().policy_settings();
    assert_eq!(settings.threshold_ratio, 0.7);
    let table = harness
        .state_mut()
        .policy_ledger_table()
        .expect("the what-if's ledgers");

    // The same figures through the engine, as `policy --what-if --threshold-ratio 0.7` makes them.
    let opened = surface_store::open(&path, &surface_store::Options::default()).unwrap();
    let log = &opened.log;
    let surface = Surface::at_end(log);
    let meter = surface_passes::meter_of(log, &surface);
    let valid = settings.validate(meter.window_at(log.len())).unwrap();
    let input = PolicyInput::build(log, &surface, &meter);
    let report = replay(log, &meter, &input, &valid, ReplayMode::WhatIf);
    let parts = surface_analysis::cost::parts_of(log, &surface, &meter);
    let what_if = surface_analysis::policy::what_if_ledger(&parts, &report, &meter).unwrap();
    let actual = surface_analysis::cost::Ledger::build(&parts, None);
    let hypothetical = surface_analysis::cost::Ledger::build(&what_if.parts, None);
    let row = |name: &str| {
        table
            .iter()
            .find(|(n, _, _)| *n == name)
            .unwrap_or_else(|| panic!("no row {name}: {table:?}"))
            .clone()
    };
    let (_, a, w) = row("agent calls");
    assert_eq!(a, actual.totals.agent.calls.to_string());
    assert_eq!(w, hypothetical.totals.agent.calls.to_string());
    let (_, a, w) = row("agent prompt");
    assert_eq!(a, actual.totals.agent.prompt.to_string());
    assert_eq!(w, hypothetical.totals.agent.prompt.to_string());
    let (_, _, w) = row("summarizer tokens");
    assert_eq!(
        w,
        hypothetical.compaction_totals.summarizer_tokens.to_string()
    );
    let (_, _, w) = row("prompt saved");
    assert_eq!(w, hypothetical.compaction_totals.prompt_saved.to_string());
    assert!(
        table.iter().all(|(n, _, _)| *n != "cost"),
        "unpriced: no money"
    );
    // On screen: the header marks the estimate, the ranges and the basis are there.
    harness.get_by_label("what-if ~");
    harness.get_by_label("agent prompt");
    harness.get_by_label(&hypothetical.totals.agent.prompt.to_string());
    harness.get_by_label("fired (what-if range)");
    harness.get_by_label_contains("Summarizer prompt =");
}

#[test]
fn export_this_folder_writes_the_tables_in_the_background_and_refuses_an_existing_out() {
    use surface_ui::{BrowserCommand, UiCommand};
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    // The button is in the browser's header.
    harness.get_by_label("Export this folder…");
    harness
        .state_mut()
        .set_export_program(PathBuf::from(env!("CARGO_BIN_EXE_surface-viewer")));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fleet-export");
    let export = |h: &mut Harness<'static, ViewerApp>, out: &Path| {
        let command: UiCommand = BrowserCommand::ExportFolderTo(out.to_path_buf()).into();
        h.state_mut().push_command(command);
        // One frame applies it (the child runs meanwhile; `wait_for_export` takes its end).
        h.step();
    };
    export(&mut harness, &out);
    let outcome = harness
        .state_mut()
        .wait_for_export()
        .expect("an export ran");
    assert!(outcome.success, "{outcome:?}");
    for table in crate::export::TABLES {
        let parts: Vec<_> = std::fs::read_dir(out.join(table))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "parquet"))
            .collect();
        assert!(!parts.is_empty(), "no part in {table}");
    }
    let notice = harness.state().banner_text().expect("a notice").to_string();
    assert!(notice.contains(&out.display().to_string()), "{notice}");
    assert!(notice.starts_with("Exported to"), "{notice}");

    // Again to the same folder: refused before anything runs, naming it.
    harness.run();
    export(&mut harness, &out);
    assert!(harness.state_mut().wait_for_export().is_none());
    let refusal = harness
        .state()
        .banner_text()
        .expect("a refusal")
        .to_string();
    assert!(refusal.contains("already exists"), "{refusal}");
    assert!(refusal.contains(&out.display().to_string()), "{refusal}");
}

#[test]
fn with_a_price_file_the_cost_column_is_each_sessions_priced_ledger() {
    let text = r#"{"currency": "USD", "per": 1000000, "models": {"*": {"uncached": 1.0, "cache_read": 0.1, "cache_write": 1.25, "output": 4.0}}}"#;
    let table = surface_analysis::cost::PriceTable::parse(text).unwrap();
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    assert!(
        harness.query_by_label("Cost").is_none(),
        "unpriced: no cost column"
    );
    harness
        .state_mut()
        .set_fleet_prices(Some(std::sync::Arc::new(table.clone())), None);
    harness.run();
    harness.get_by_label("Cost");
    let rows = harness.state_mut().browser_fleet();
    assert!(!rows.is_empty());
    for (file, fleet) in rows {
        let fleet = fleet.unwrap();
        let opened = surface_store::open(&file, &surface_store::Options::default()).unwrap();
        let log = &opened.log;
        let surface = Surface::at_end(log);
        let meter = surface_passes::meter_of(log, &surface);
        let parts = surface_analysis::cost::parts_of(log, &surface, &meter);
        let ledger = surface_analysis::cost::Ledger::build(&parts, Some(&table));
        assert_eq!(fleet.cost, ledger.totals.all.cost, "{}", file.display());
        assert_eq!(fleet.currency.as_deref(), Some("USD"));
    }
}

#[test]
fn at_1280_by_720_the_priced_table_scrolls_sideways_to_its_last_column() {
    let text = r#"{"currency": "USD", "per": 1000000, "models": {"*": {"uncached": 1.0, "cache_read": 0.1, "cache_write": 1.25, "output": 4.0}}}"#;
    let table = surface_analysis::cost::PriceTable::parse(text).unwrap();
    let root = policy_fixtures();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_browser_for_test(&root));
    harness.run();
    harness
        .state_mut()
        .set_fleet_prices(Some(std::sync::Arc::new(table)), None);
    harness.run();
    // Every column laid out: the last one starts past the window's right edge.
    let before = harness.get_by_label("Format").rect();
    assert!(
        before.left() > 1280.0,
        "Format already in view at {before:?}"
    );
    harness.get_by_label("Format").scroll_to_me();
    harness.run();
    let after = harness.get_by_label("Format").rect();
    assert!(
        after.right() <= 1280.0 && after.left() >= 0.0,
        "Format not brought into view: {after:?}"
    );
    // The header moved with the rows: the first row's format cell lines up under it.
    let cell = harness
        .query_all_by_label("JSONL")
        .next()
        .expect("a format cell")
        .rect();
    assert!(
        (cell.left() - after.left()).abs() < 8.0,
        "{cell:?} vs {after:?}"
    );
}

#[test]
fn a_session_the_price_file_does_not_cover_shows_unpriced_not_zero() {
    // Prices for mock-a only: p11 (mock-o) and p12 (mock-m) are not covered.
    let text = r#"{"currency": "EUR", "models": {"mock-a": {"uncached": 0.28, "cache_read": 0.028, "cache_write": 0.28, "output": 0.42}}}"#;
    let table = surface_analysis::cost::PriceTable::parse(text).unwrap();
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    harness
        .state_mut()
        .set_fleet_prices(Some(std::sync::Arc::new(table)), None);
    harness.run();
    let rows = harness.state_mut().browser_fleet();
    let mut unpriced = 0;
    for (file, fleet) in &rows {
        let fleet = fleet.as_ref().unwrap();
        let name = file.file_name().unwrap().to_string_lossy();
        if name.starts_with("p11") || name.starts_with("p12") {
            assert_eq!(fleet.cost, None, "{name}");
            unpriced += 1;
        } else {
            assert!(fleet.cost.is_some_and(|c| c > 0.0), "{name}: {fleet:?}");
        }
    }
    assert_eq!(unpriced, 2);
    assert_eq!(
        harness.query_all_by_label("unpriced").count(),
        unpriced,
        "one unpriced cell per uncovered session"
    );
    assert!(
        harness.query_by_label("0.0000 EUR").is_none(),
        "an unpriced session shown as costing nothing"
    );
}

/// Without a desktop file-dialog service the native dialog closes at once: the export's
/// target is typed in its menu instead.
#[test]
fn export_this_folder_takes_a_typed_target_path() {
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    harness
        .state_mut()
        .set_export_program(PathBuf::from(env!("CARGO_BIN_EXE_surface-viewer")));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("typed-export");
    harness.get_by_label("Export this folder…").click();
    harness.run();
    let field = harness.get_by_label("or its path:");
    field.click();
    harness.run();
    // The field starts at the suggested folder: replace it.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run();
    harness
        .get_by_label("or its path:")
        .type_text(&out.display().to_string());
    harness.run();
    harness.get_by_label("Export").click();
    harness.step();
    let outcome = harness
        .state_mut()
        .wait_for_export()
        .expect("the typed path started an export");
    assert!(outcome.success, "{outcome:?}");
    for table in crate::export::TABLES {
        assert!(out.join(table).is_dir(), "no {table} under the typed path");
    }
}

/// Every header of the sessions browser shows its whole title (no "Disagreeme…"): a column is
/// never narrower than its header, sort arrow included.
#[test]
fn the_browsers_headers_show_their_whole_titles() {
    let mut harness = browser_harness(policy_fixtures());
    harness.run();
    for title in [
        "Disagreements",
        "Compactions",
        "Errors / warnings",
        "Peak fill",
    ] {
        let font = egui::TextStyle::Button.resolve(&harness.ctx.global_style());
        let galley = harness
            .ctx
            .fonts_mut(|f| f.layout_no_wrap(title.to_string(), font, egui::Color32::WHITE));
        let header = harness.get_by_label(title).rect();
        assert!(
            header.width() + 0.5 >= galley.size().x,
            "{title:?}: header {:.1} px for a title of {:.1} px",
            header.width(),
            galley.size().x
        );
    }
}
