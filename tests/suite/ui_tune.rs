//! The Tune view (issue #57, item 4): the Tune tab sweeps the open log over the default grid and
//! shows `tune --json`'s rows (held against surface-reports' sweep computed here and the
//! command line's document, never hard-coded numbers) with its recommendation in the command
//! line's words; the table sorts by a column; Cancel stops a sweep with no result; a click on a
//! setting opens the Policy tab's what-if with it (from the side tab or wide); the browser's "Tune this folder…" sweeps a
//! folder past its unreadable file, names it, and opens a session with a selected setting; a
//! bad grid value says the parser's line and does not run.

use crate::binary::run_texts;

use std::path::{Path, PathBuf};

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use serde_json::Value;
use surface_analysis::policy::ReplayMode;
use surface_analysis::policy::tune::{Constraints, Grid, Objective};
use surface_reports::tune::text::{objective_text, recommendation, setting_text};
use surface_reports::tune::{Plan, SessionLine, Sweep, Weighed, document, sum};
use surface_ui::{SideTab, TuneTarget, ViewerApp, WindowCommand};

use crate::ui_support::{command, laptop};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/policy")
        .join(name)
}

fn tune_tab(path: PathBuf) -> Harness<'static, ViewerApp> {
    let mut harness = laptop(path);
    command(&mut harness, WindowCommand::ShowTab(SideTab::Tune));
    harness
}

/// Types `text` into the form's field `label` in place of what it holds.
fn set_field(harness: &mut Harness<'_, ViewerApp>, label: &str, text: &str) {
    harness
        .get_by_role_and_label(Role::TextInput, label)
        .focus();
    harness.run();
    harness.key_press(Key::End);
    for _ in 0..24 {
        harness.key_press(Key::Backspace);
    }
    harness
        .get_by_role_and_label(Role::TextInput, label)
        .type_text(text);
    harness.run();
}

/// A grid of eight settings (fast), typed into the form.
const SMALL: [(&str, &str); 4] = [
    ("threshold_ratio", "0.6:0.9:0.1"),
    ("retain_ratio", "0.16"),
    ("compaction_retries", "1"),
    ("pruner", "on,off"),
];

fn small_grid(harness: &mut Harness<'_, ViewerApp>) {
    for (label, text) in SMALL {
        set_field(harness, label, text);
    }
}

fn small_grid_args() -> Vec<String> {
    SMALL.iter().map(|(n, v)| format!("{n}={v}")).collect()
}

fn run(harness: &mut Harness<'_, ViewerApp>) {
    harness.get_by_label("▶ Run").click();
    harness.run();
}

/// `tune`'s sweep of `file` under `grid` (no prices, the default constraints), through the
/// passes and surface-reports as the command line makes it.
fn expected(file: &Path, grid: &Grid) -> Sweep {
    let opened = surface_store::open(file, &surface_store::Options::default()).unwrap();
    let settings = grid.expand().settings;
    let weighed = vec![Weighed {
        line: SessionLine {
            file: file.to_path_buf(),
            session: None,
            error: None,
            skipped: Vec::new(),
        },
        tuned: Some(surface_passes::tune_session(&opened.log, &settings, None)),
        skipped: false,
    }];
    let constraints = Constraints {
        max_over_window: 0.0,
        max_over_threshold: None,
    };
    let plan = Plan {
        grid,
        objective: Objective::Prompt,
        constraints: &constraints,
        currency: None,
    };
    sum(&plan, &weighed)
}

/// `tune ARGS --json` as the command line prints it.
fn cli_json(args: &[String], code: i32) -> Value {
    let mut all = vec!["tune".to_string()];
    all.extend(args.iter().cloned());
    all.push("--json".to_string());
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let (got, out, err) = run_texts(&refs);
    assert_eq!(got, Some(code), "{refs:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The document's parts every shell must agree on.
fn agreed(doc: &Value) -> Value {
    serde_json::json!({
        "baseline": doc["baseline"],
        "settings": doc["settings"],
        "frontier": doc["frontier"],
        "recommended": doc["recommended"],
        "why": doc["why"],
        "saving": doc["saving"],
        "left_out": doc["left_out"],
        "objective": doc["objective"],
    })
}

#[test]
fn the_tab_sweeps_the_default_grid_as_tune_json_and_says_the_recommendation() {
    let file = fixture("p01.jsonl");
    let mut harness = tune_tab(file.clone());
    assert!(harness.state().tune_sweep(TuneTarget::Log).is_none());
    run(&mut harness);
    let shown = harness
        .state()
        .tune_sweep(TuneTarget::Log)
        .expect("a sweep");
    let want = expected(&file, &Grid::default_grid());
    assert_eq!(shown.rows.len(), 240);
    assert_eq!(shown.rows, want.rows);
    assert_eq!(shown.baseline, want.baseline);
    assert_eq!(shown.choice, want.choice);
    assert_eq!(shown.settings, want.settings);
    // The command line's own document, row for row.
    let cli = cli_json(&[file.display().to_string()], 0);
    assert_eq!(agreed(&document(&shown)), agreed(&cli));
    // The recommendation in the command line's words.
    harness.get_by_label(recommendation(&want).trim_end());
    // The table: the baseline, then the best row by objective with its range.
    let order = harness.state().tune_order(TuneTarget::Log);
    let best = &want.rows[order[0]];
    harness.get_by_label(&setting_text(best.settings.as_ref()));
    assert!(
        harness
            .query_all_by_label(&objective_text(&want, best))
            .next()
            .is_some()
    );
    harness.get_by_label("as they ran");
}

#[test]
fn a_click_on_a_header_sorts_the_rows_by_it_and_again_the_other_way() {
    let mut harness = tune_tab(fixture("p02.jsonl"));
    small_grid(&mut harness);
    run(&mut harness);
    let s = harness
        .state()
        .tune_sweep(TuneTarget::Log)
        .expect("a sweep");
    assert_eq!(s.rows.len(), 8);
    let key = |i: usize| s.rows[i].totals.summaries.likely;
    let up: Vec<f64> = click_header(&mut harness, "summaries")
        .into_iter()
        .map(key)
        .collect();
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    assert!(
        up.first() < up.last(),
        "the grid's summaries differ: {up:?}"
    );
    let down: Vec<f64> = click_header(&mut harness, "summaries ▲")
        .into_iter()
        .map(key)
        .collect();
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    harness.get_by_label("summaries ▼");
}

/// Clicks the table's header `label` (brought into view first: the table scrolls sideways in
/// the side panel); the rows' order after it.
fn click_header(harness: &mut Harness<'static, ViewerApp>, label: &str) -> Vec<usize> {
    harness.get_by_label(label).scroll_to_me();
    harness.run();
    harness.get_by_label(label).click();
    harness.run();
    harness.state().tune_order(TuneTarget::Log)
}

#[test]
fn cancel_stops_a_sweep_and_shows_no_result() {
    let mut harness = tune_tab(fixture("p01.jsonl"));
    harness.state_mut().hold_tune(TuneTarget::Log, true);
    run(&mut harness);
    assert!(harness.state().tune_running(TuneTarget::Log));
    harness.get_by_label("Cancel").click();
    harness.run();
    let app = harness.state();
    assert!(!app.tune_running(TuneTarget::Log));
    assert!(app.tune_cancelled(TuneTarget::Log));
    assert!(app.tune_sweep(TuneTarget::Log).is_none());
    harness.get_by_label("Cancelled: no result.");
    assert!(harness.query_by_label("as they ran").is_none(), "no table");
    // A run after it is not held (the test's gate is lifted) and lands.
    harness.state_mut().hold_tune(TuneTarget::Log, false);
    small_grid(&mut harness);
    run(&mut harness);
    assert!(harness.state().tune_sweep(TuneTarget::Log).is_some());
    assert!(!harness.state().tune_cancelled(TuneTarget::Log));
}

#[test]
fn a_click_on_a_setting_opens_the_policy_tabs_what_if_with_it() {
    let mut harness = tune_tab(fixture("p02.jsonl"));
    small_grid(&mut harness);
    run(&mut harness);
    let s = harness
        .state()
        .tune_sweep(TuneTarget::Log)
        .expect("a sweep");
    // A row in view whose setting is not the Policy tab's already.
    let before = harness.state().policy_settings();
    let i = harness
        .state()
        .tune_order(TuneTarget::Log)
        .into_iter()
        .find(|&i| s.settings[i] != before)
        .unwrap();
    let want = s.settings[i];
    harness
        .get_by_label(&setting_text(s.rows[i].settings.as_ref()))
        .click();
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Policy);
    assert_eq!(harness.state().policy_settings(), want);
    let report = harness.state().policy_report().expect("the what-if");
    assert_eq!(report.mode, ReplayMode::WhatIf);
    assert_eq!(report.settings.threshold_ratio, want.threshold_ratio);
    assert_eq!(harness.state().threshold_ratio(), want.threshold_ratio);
}

#[test]
fn wide_shows_the_view_across_the_window_and_a_click_leaves_it_for_the_policy_tab() {
    let mut harness = tune_tab(fixture("p02.jsonl"));
    small_grid(&mut harness);
    run(&mut harness);
    let timeline_row = harness.get_by_label("⇤ Start").rect();
    harness.get_by_label("⤢ Wide").click();
    harness.run();
    assert!(harness.state().tune_wide());
    // The table spans the window: its over-window header is left of the old side panel.
    let header = harness.get_by_label("over window").rect();
    assert!(header.right() < 900.0, "{header:?}");
    // The replay bar stays.
    assert_eq!(harness.get_by_label("⇤ Start").rect(), timeline_row);
    harness.get_by_label("✕ Back to the log").click();
    harness.run();
    assert!(!harness.state().tune_wide());
    assert_eq!(harness.state().side_tab(), SideTab::Tune);
    // Wide again, a click on a setting opens the Policy tab (the side panel comes back).
    harness.get_by_label("⤢ Wide").click();
    harness.run();
    let s = harness.state().tune_sweep(TuneTarget::Log).unwrap();
    let i = harness.state().tune_order(TuneTarget::Log)[0];
    harness
        .get_by_label(&setting_text(s.rows[i].settings.as_ref()))
        .click();
    harness.run();
    assert!(!harness.state().tune_wide());
    assert_eq!(harness.state().side_tab(), SideTab::Policy);
    assert_eq!(harness.state().policy_settings(), s.settings[i]);
}

#[test]
fn a_bad_grid_value_says_the_parsers_line_and_does_not_run() {
    let mut harness = tune_tab(fixture("p01.jsonl"));
    set_field(&mut harness, "threshold_ratio", "0.5:1.5:0.5");
    let line = Grid::parse(&["threshold_ratio=0.5:1.5:0.5".to_string()])
        .unwrap_err()
        .to_string();
    harness.get_by_label(&line);
    harness.get_by_label("▶ Run").click();
    harness.run();
    assert!(!harness.state().tune_running(TuneTarget::Log));
    assert!(harness.state().tune_sweep(TuneTarget::Log).is_none());
    // Fixed, it runs.
    set_field(&mut harness, "threshold_ratio", "0.7,0.8");
    assert!(harness.query_by_label(&line).is_none());
    run(&mut harness);
    let s = harness
        .state()
        .tune_sweep(TuneTarget::Log)
        .expect("a sweep");
    assert!(s.rows.iter().all(|r| {
        let t = r.settings.as_ref().unwrap().threshold_ratio;
        t == 0.7 || t == 0.8
    }));
}

fn folder_with_a_broken_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["p01.jsonl", "p12.jsonl"] {
        std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
    }
    // Zstandard's magic number, then nothing it can decode.
    std::fs::write(
        dir.path().join("broken.jsonl.zstd"),
        b"\x28\xb5\x2f\xfd\x00\x00garbage",
    )
    .unwrap();
    dir
}

#[test]
fn a_folder_tune_names_its_unreadable_file_and_opens_a_session_with_a_setting() {
    let dir = folder_with_a_broken_file();
    let root = dir.path().to_path_buf();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_eframe(move |_cc| ViewerApp::new_browser_for_test(&root));
    harness.run();
    harness.get_by_label("Tune this folder…").click();
    harness.run();
    assert!(harness.state().folder_tune_shown());
    small_grid(&mut harness);
    run(&mut harness);
    let s = harness
        .state()
        .tune_sweep(TuneTarget::Folder)
        .expect("a sweep");
    assert_eq!((s.sessions, s.unreadable), (2, 1));
    let mut args = vec![dir.path().display().to_string()];
    for g in small_grid_args() {
        args.push("--grid".to_string());
        args.push(g);
    }
    let cli = cli_json(&args, 1);
    assert_eq!(agreed(&document(&s)), agreed(&cli));
    let errors = |doc: &Value| -> Vec<Value> {
        doc["sessions_list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["error"].clone())
            .collect()
    };
    assert_eq!(errors(&document(&s)), errors(&cli));
    let broken = s
        .sessions_list
        .iter()
        .find(|l| l.error.is_some())
        .expect("the broken file's line");
    assert!(broken.file.ends_with("broken.jsonl.zstd"));
    harness.get_by_label(&format!(
        "{}: unreadable: {}",
        broken.file.display(),
        broken.error.as_deref().unwrap()
    ));
    // A click selects; the selected setting opens the first session read with its what-if.
    let i = harness.state().tune_order(TuneTarget::Folder)[1];
    harness
        .get_by_label(&setting_text(s.rows[i].settings.as_ref()))
        .click();
    harness.run();
    assert_eq!(harness.state().tune_selected(TuneTarget::Folder), Some(i));
    harness
        .get_by_label("Open p01.jsonl with this setting's what-if")
        .click();
    harness.run();
    assert!(!harness.state().is_browsing());
    assert_eq!(harness.state().side_tab(), SideTab::Policy);
    assert_eq!(harness.state().policy_settings(), s.settings[i]);
    let report = harness.state().policy_report().expect("the what-if");
    assert_eq!(report.mode, ReplayMode::WhatIf);
    // Back to the folder: its Tune view and result are kept.
    command(&mut harness, surface_ui::BrowserCommand::BackToSessions);
    assert!(harness.state().folder_tune_shown());
    assert!(harness.state().tune_sweep(TuneTarget::Folder).is_some());
}
