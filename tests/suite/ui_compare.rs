//! Two runs side by side in the viewer (issue #37, item 3): p01 compared with p02 (the same task
//! at threshold 0.8 and 0.7) — the Compare tab shows the first divergence at seq 211 and the
//! per-turn rows at 1280×720 and 1600×1000, a turn row moves A's cursor to the turn's start and
//! B's position to B's, the divergence is one click away, and B's curve on the strip has a
//! toggle; B's read-only timeline follows B's position.

use crate::ui_support::command;

use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{CompareCommand, ViewerApp};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/policy")
        .join(name)
}

/// p01 open (A), no B yet.
fn p01_open(size: (f32, f32)) -> Harness<'static, ViewerApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_eframe(|_cc| ViewerApp::new_for_test(fixture("p01.jsonl")));
    harness.run();
    harness
}

fn compared(size: (f32, f32)) -> Harness<'static, ViewerApp> {
    let mut harness = p01_open(size);
    command(&mut harness, CompareCommand::With(fixture("p02.jsonl")));
    harness.run();
    harness
}

/// The event indices of the `turn/start` events of a fixture, read line by line (the first
/// line is the session header).
fn turn_starts(name: &str) -> Vec<usize> {
    std::fs::read_to_string(fixture(name))
        .unwrap()
        .lines()
        .skip(1)
        .enumerate()
        .filter(|(_, l)| l.starts_with(r#"{"type":"turn/start""#))
        .map(|(i, _)| i)
        .collect()
}

fn the_tab_shows_the_divergence_and_the_rows(size: (f32, f32)) {
    let harness = compared(size);
    assert_eq!(harness.state().compare_error(), None);
    assert_eq!(
        harness.state().compare_divergence(),
        Some(Some((Some(211), Some(211))))
    );
    // Both sides of the first divergence, with their one-line summaries.
    let a = harness.get_by_label_contains("A  seq 211  step/start");
    let b = harness.get_by_label_contains("B  seq 211  compaction/prune");
    for node in [&a, &b] {
        assert!(node.rect().right() <= size.0 && node.rect().bottom() <= size.1);
    }
    harness.get_by_label_contains("B was cheaper than A");
    // A row per turn (1 to 3: turn 0 made no call) and the totals.
    assert_eq!(harness.state().compare_turns(), 3);
    for turn in ["turn 1", "turn 2", "turn 3", "total"] {
        let node = harness.get_by_label(turn);
        assert!(
            node.rect().bottom() <= size.1,
            "{turn} at {:?}: off screen",
            node.rect()
        );
    }
    // The table scrolls inside the tab: on a laptop screen its last line (B / A) is below.
    if size.1 >= 1000.0 {
        harness.get_by_label("B/A");
    }
}

#[test]
fn the_compare_tab_at_1280_by_720() {
    the_tab_shows_the_divergence_and_the_rows((1280.0, 720.0));
}

#[test]
fn the_compare_tab_at_1600_by_1000() {
    the_tab_shows_the_divergence_and_the_rows((1600.0, 1000.0));
}

#[test]
fn a_turn_row_moves_a_to_its_start_and_b_to_its_own() {
    let mut harness = compared((1280.0, 720.0));
    let (a, b) = (turn_starts("p01.jsonl"), turn_starts("p02.jsonl"));
    assert_eq!((a.len(), b.len()), (3, 3));
    harness.get_by_label("turn 2").click();
    harness.run();
    assert_eq!(harness.state().cursor(), Some(a[1] + 1));
    assert_eq!(harness.state().compare_b_cursor(), Some(b[1]));
    assert_ne!(a[1], b[1], "p02 started turn 2 later: the positions differ");
    // An event is placed inside a step, and said so (the Policy tab names checks "before").
    harness.get_by_label_contains("B's position: seq");
    harness.get_by_label_contains("(in step 2.");
    // The first divergence, one click away: both at seq 211.
    harness.get_by_label_contains("A  seq 211").click();
    harness.run();
    assert_eq!(harness.state().cursor(), Some(212));
    assert_eq!(harness.state().selected_seq(), Some(211));
    assert_eq!(harness.state().compare_b_cursor(), Some(211));
}

#[test]
fn b_timeline_opens_beside_a_and_follows_b_position() {
    let mut harness = compared((1600.0, 1000.0));
    harness.get_by_label("B's timeline").click();
    harness.run();
    let b = turn_starts("p02.jsonl");
    harness.get_by_label("turn 3").click();
    harness.run();
    harness.run();
    assert_eq!(harness.state().compare_b_cursor(), Some(b[2]));
    // B's turn 3 starts at its own seq (971 in p02; 967 in p01), scrolled into view.
    let label = format!("{}  3.0", b[2]);
    let row = harness.get_by_label_contains(&label);
    assert!(row.rect().bottom() <= 1000.0, "{:?}", row.rect());
}

#[test]
fn b_curve_is_drawn_on_the_strip_until_its_toggle_hides_it() {
    let mut harness = compared((1280.0, 720.0));
    assert!(harness.state().strip_compare_drawn());
    harness.get_by_label_contains("B context tokens (p02.jsonl");
    harness.get_by_label("run B's curve").click();
    harness.run();
    assert!(!harness.state().strip_compare_drawn());
    assert!(
        harness
            .query_by_label_contains("B context tokens")
            .is_none()
    );
    harness.get_by_label("run B's curve").click();
    harness.run();
    assert!(harness.state().strip_compare_drawn());
    // Closing B takes its curve and legend away.
    command(&mut harness, CompareCommand::Close);
    harness.run();
    assert!(!harness.state().strip_compare_drawn());
    assert!(harness.query_by_label("run B's curve").is_none());
}

#[test]
fn a_file_that_cannot_be_read_says_so_in_the_tab() {
    let mut harness = compared((1280.0, 720.0));
    command(&mut harness, CompareCommand::With(fixture("no-such.jsonl")));
    harness.run();
    let error = harness
        .state()
        .compare_error()
        .expect("an error")
        .to_string();
    assert!(error.contains("no-such.jsonl"), "{error}");
    assert_eq!(harness.state().compare_divergence(), None);
}

/// Without a file dialog (no desktop portal: the dialog closes at once), B is chosen by typing
/// its path in the Compare tab, or from the recent files in File ▸ Compare with.
#[test]
fn b_is_chosen_by_its_path_without_a_file_dialog() {
    let mut harness = p01_open((1600.0, 1000.0));
    command(
        &mut harness,
        surface_ui::WindowCommand::ShowTab(surface_ui::SideTab::Compare),
    );
    harness.run();
    assert_eq!(harness.state().compare_divergence(), None, "no B yet");
    let p02 = fixture("p02.jsonl");
    harness.get_by_label("or its path:").click();
    harness.run();
    harness
        .get_by_label("or its path:")
        .type_text(&p02.display().to_string());
    harness.run();
    harness.get_by_label("Compare with it").click();
    harness.run();
    harness.run();
    assert_eq!(harness.state().compare_error(), None);
    assert_eq!(
        harness.state().compare_divergence(),
        Some(Some((Some(211), Some(211))))
    );
}

/// File ▸ Compare with: a click in its path field gives the field the focus and leaves the
/// menu open (a menu closes on a click inside by default, before the field could be typed in).
#[test]
fn the_menu_path_field_takes_a_click_and_typing() {
    let mut harness = p01_open((1600.0, 1000.0));
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Compare with").click();
    harness.run();
    harness.get_by_label("or its path:").click();
    harness.run();
    harness
        .get_by_label("or its path:")
        .type_text(&fixture("p02.jsonl").display().to_string());
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    harness.run();
    assert_eq!(
        harness.state().compare_divergence(),
        Some(Some((Some(211), Some(211))))
    );
}

/// The first divergence clicked while B's timeline is folded: opening it shows B's event there.
#[test]
fn b_timeline_opened_after_the_divergence_click_shows_it() {
    let mut harness = compared((1600.0, 1000.0));
    harness.get_by_label("B's timeline").click();
    harness.run();
    let b = turn_starts("p02.jsonl");
    harness.get_by_label("turn 3").click();
    harness.run();
    harness.run();
    assert!(
        harness
            .query_by_label_contains(&format!("{}  3.0", b[2]))
            .is_some()
    );
    // Folded, then the divergence (seq 211) clicked, then opened again.
    harness.get_by_label("B's timeline").click();
    harness.run();
    harness.get_by_label_contains("A  seq 211").click();
    harness.run();
    assert_eq!(harness.state().compare_b_cursor(), Some(211));
    harness.get_by_label("B's timeline").click();
    harness.run();
    harness.run();
    let row = harness.get_by_label_contains("   211  ");
    assert!(row.rect().bottom() <= 1000.0, "{:?}", row.rect());
}

/// File ▸ Open a path: a typed log's path opens it, a typed folder's opens the sessions browser
/// on it (the way to open either where no desktop file-dialog service answers).
#[test]
fn file_open_a_path_opens_a_typed_log_or_folder() {
    for (path, folder) in [(fixture("p02.jsonl"), false), (fixture(""), true)] {
        let mut harness = p01_open((1600.0, 1000.0));
        let before = harness.state().event_count();
        harness.get_by_label("File").click();
        harness.run();
        harness.get_by_label("Open a path").click();
        harness.run();
        harness.get_by_label("or its path:").click();
        harness.run();
        harness
            .get_by_label("or its path:")
            .type_text(&path.display().to_string());
        harness.run();
        harness.get_by_label("Open").click();
        harness.run();
        harness.run();
        if folder {
            assert!(harness.state().is_browsing(), "the browser is shown");
            let files = harness.state_mut().browser_fleet();
            let p01 = files.iter().any(|(f, _)| f.ends_with("p01.jsonl"));
            assert!(p01, "{files:?}");
        } else {
            assert_ne!(harness.state().event_count(), before, "p02 is open");
        }
    }
}
