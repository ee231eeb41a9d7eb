//! Layout, keys and signals of the viewer (issue #34, items 2 and 3): the log opens on the
//! cursor whether or not the findings banner arrives later, a list's keyboard selection is
//! scrolled into view, a fast scrubber drag ends where the button is released, a double-click
//! on the strip shows the whole log without moving the cursor, notices clear themselves, a
//! followed file that was truncated keeps the cursor, a replace's range is told by position,
//! and the sessions browser shows each file's path and a packed log's format.

use crate::ui_support::command;

use std::path::PathBuf;

use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{NavCommand, SideTab, StripCommand, ViewerApp, WindowCommand};

fn asset(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
}

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn harness_of(
    size: egui::Vec2,
    app: impl FnOnce() -> ViewerApp + 'static,
) -> Harness<'static, ViewerApp> {
    let mut app = Some(app);
    Harness::builder()
        .with_size(size)
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_eframe(move |_cc| app.take().expect("built once")())
}

fn laptop(path: PathBuf) -> Harness<'static, ViewerApp> {
    harness_of(egui::vec2(1280.0, 720.0), move || {
        ViewerApp::new_for_test(&path)
    })
}

/// The top of the replay bar under the panels: a row above it is on screen.
fn panels_bottom(harness: &Harness<'_, ViewerApp>) -> f32 {
    harness.get_by_label("⇤ Start").rect().top()
}

/// Asserts that the cursor's timeline row is drawn whole above the replay bar.
fn cursor_row_in_view(harness: &Harness<'_, ViewerApp>, when: &str) {
    let len = harness.state().event_count();
    let cursor = harness.state().cursor().expect("a log");
    let seq = harness.state().seq_of_event(cursor - 1).expect("a seq");
    let row = harness
        .query_by_label(&format!("event seq {seq}"))
        .unwrap_or_else(|| panic!("{when}: the cursor's row (seq {seq} of {len}) is not drawn"))
        .rect();
    let bottom = panels_bottom(harness);
    assert!(
        row.bottom() <= bottom + 0.5,
        "{when}: the cursor's row {row:?} is below the panels ({bottom})"
    );
}

fn press_at(harness: &Harness<'_, ViewerApp>, pos: Pos2, pressed: bool) {
    harness.event(Event::PointerMoved(pos));
    harness.event(Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    });
}

#[test]
fn the_log_opens_on_the_cursor_when_the_findings_banner_arrives_later() {
    // A log with findings: their count comes with the analysis, after the first frames (its
    // unread line is said at once).
    let path = asset("problems.session.jsonl");
    let mut harness = harness_of(egui::vec2(1280.0, 720.0), move || {
        ViewerApp::new_for_test_pending(&path)
    });
    harness.run();
    let counted = |b: &str| b.contains("check found");
    assert!(!harness.state().banner_text().is_some_and(counted));
    cursor_row_in_view(&harness, "before the analysis");
    assert!(harness.state_mut().release_analysis());
    harness.run();
    harness.run();
    assert!(
        harness
            .state()
            .banner_text()
            .is_some_and(|b| counted(b) && b.contains("error")),
        "{:?}",
        harness.state().banner_text()
    );
    cursor_row_in_view(&harness, "with the banner");
}

#[test]
fn the_compactions_tables_keyboard_selection_is_scrolled_into_view() {
    let mut harness = laptop(fixture("policy/p01.jsonl"));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Compactions));
    let rows = harness.state().compaction_rows();
    assert!(rows.len() >= 16, "{} rows", rows.len());
    // The row is wider than the panel (the table scrolls sideways): click its seq cell.
    let first = harness
        .get_by_label(&format!("compaction seq {}", rows[0]))
        .rect();
    let seq_cell = Pos2::new(first.left() + 20.0, first.center().y);
    press_at(&harness, seq_cell, true);
    press_at(&harness, seq_cell, false);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(rows[0]));
    // Down, row by row, to the last: each selected row is drawn in the table.
    for &seq in &rows[1..] {
        harness.key_press(Key::ArrowDown);
        harness.run();
        assert_eq!(harness.state().selected_seq(), Some(seq));
        let label = format!("compaction seq {seq}");
        let row = harness
            .query_by_label(&label)
            .unwrap_or_else(|| panic!("the selected row {seq} is not drawn"))
            .rect();
        assert!(row.bottom() <= panels_bottom(&harness));
    }
}

#[test]
fn a_fast_scrubber_drag_ends_where_the_button_is_released() {
    let mut harness = laptop(asset("sample.session.jsonl"));
    let len = harness.state().event_count();
    let track = harness.get_by_label("Replay position").rect();
    let at = |f: f32| Pos2::new(track.left() + f * track.width(), track.center().y);
    press_at(&harness, at(0.1), true);
    harness.step();
    harness.event(Event::PointerMoved(at(0.3)));
    harness.step();
    // The last move and the release arrive in one frame.
    press_at(&harness, at(0.9), false);
    harness.run();
    let cursor = harness.state().cursor().unwrap();
    let expected = (0.9 * len as f32).round() as usize;
    assert!(
        cursor.abs_diff(expected) <= 1,
        "cursor {cursor}, released at {expected} of {len}"
    );
}

#[test]
fn a_zoomed_strip_follows_the_cursor_when_it_jumps_out_of_the_range() {
    let mut harness = laptop(asset("sample.session.jsonl"));
    let len = harness.state().event_count();
    let range = surface_ui::zoom::Zoom {
        start: 10.0,
        end: (len / 2) as f64,
    };
    command(&mut harness, StripCommand::SetZoom(Some(range)));
    harness.run();
    // The cursor (at the end) is outside the range the user chose: the range stays.
    assert_eq!(harness.state().strip_zoom(), Some(range));
    harness.key_press(Key::Home);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(0));
    let home = harness.state().strip_zoom().expect("still zoomed");
    assert!(home.start <= 0.0, "{home:?} shows cursor 0");
    assert!(
        (home.span() - range.span()).abs() < 1e-9,
        "the span is kept"
    );
    harness.key_press(Key::End);
    harness.run();
    let end = harness.state().strip_zoom().expect("still zoomed");
    assert!(end.end >= len as f64, "{end:?} shows cursor {len}");
}

#[test]
fn a_double_click_on_the_strip_shows_the_whole_log_and_leaves_the_cursor() {
    let path = asset("sample.session.jsonl");
    // A step per event at 60 frames a second: the two clicks within the double-click delay.
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .with_step_dt(1.0 / 60.0)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    let len = harness.state().event_count();
    command(
        &mut harness,
        StripCommand::SetZoom(Some(surface_ui::zoom::Zoom {
            start: 10.0,
            end: (len / 2) as f64,
        })),
    );
    assert!(harness.state().strip_zoom().is_some());
    let depth = harness.state().history_depth();
    let strip = harness.get_by_label("Context strip").rect();
    let pos = Pos2::new(strip.left() + strip.width() * 0.3, strip.center().y);
    for _ in 0..2 {
        press_at(&harness, pos, true);
        harness.step();
        press_at(&harness, pos, false);
        harness.step();
    }
    harness.run();
    assert_eq!(harness.state().strip_zoom(), None, "the whole log again");
    assert_eq!(
        harness.state().cursor(),
        Some(len),
        "the cursor did not move"
    );
    assert_eq!(
        harness.state().history_depth(),
        depth,
        "no jump to go back to"
    );
    // One click, past the double-click delay, still seeks.
    harness.run_steps(40);
    press_at(&harness, pos, true);
    harness.step();
    press_at(&harness, pos, false);
    harness.run();
    assert!(harness.state().cursor().unwrap() < len);
}

#[test]
fn notices_clear_themselves_and_the_findings_banner_stays() {
    let path = asset("sample.session.jsonl");
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .with_step_dt(1.0)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    harness.run();
    harness
        .state_mut()
        .push_command(NavCommand::GoToSeq(9_999_999));
    harness.step();
    assert!(
        harness
            .state()
            .banner_text()
            .is_some_and(|b| b.contains("No event has seq")),
        "{:?}",
        harness.state().banner_text()
    );
    for _ in 0..(surface_ui::theme::NOTICE_SECONDS as usize + 2) {
        harness.step();
    }
    assert_eq!(harness.state().banner_text(), None, "the notice expired");
    // The findings banner of a log with errors stays until dismissed.
    let problems = asset("problems.session.jsonl");
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .with_step_dt(1.0)
        .allow_missing_glyphs()
        .build_eframe(move |_cc| ViewerApp::new_for_test(&problems));
    harness.run();
    let banner = harness.state().banner_text().map(str::to_string);
    assert!(banner.is_some());
    for _ in 0..(surface_ui::theme::NOTICE_SECONDS as usize + 2) {
        harness.step();
    }
    assert_eq!(harness.state().banner_text().map(str::to_string), banner);
}

/// A small log: 1, 2, 4, 5 appended, 6 summarises 1..4, then 7 and 8 appended and 9 folds
/// the summary at 6 through 5 (the summary heads the surface: the range runs 6..5).
const FOLD: &str = r#"{"type":"session","version":0,"id":"fold","createdAt":1}
{"type":"turn/start","seq":0,"time":1000,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1001,"data":{"content":[{"type":"text","text":"hello"}]},"surfaceOp":"append"}
{"type":"assistant/message","seq":2,"time":1002,"data":{"content":[{"type":"text","text":"calling"}]},"surfaceOp":"append"}
{"type":"tool/call","seq":3,"time":1003,"data":{"callId":"c1","name":"bash","arguments":"{}"}}
{"type":"tool/result","seq":4,"time":1004,"data":{"callId":"c1","content":[{"type":"text","text":"result"}]},"sourceEventSeqs":[3],"surfaceOp":"append"}
{"type":"assistant/message","seq":5,"time":1005,"data":{"content":[{"type":"text","text":"done"}]},"surfaceOp":"append"}
{"type":"user/message","seq":6,"time":1006,"data":{"content":[{"type":"text","text":"summary one"}]},"sourceEventSeqs":[1,2,4],"surfaceOp":{"op":"replace","start":1,"end":4}}
{"type":"user/message","seq":7,"time":1007,"data":{"content":[{"type":"text","text":"more"}]},"surfaceOp":"append"}
{"type":"user/message","seq":8,"time":1008,"data":{"content":[{"type":"text","text":"summary two"}]},"sourceEventSeqs":[6,5],"surfaceOp":{"op":"replace","start":6,"end":5}}
{"type":"turn/end","seq":9,"time":1009,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

#[test]
fn a_folds_range_is_told_by_position_in_the_surface_panel_and_the_inspector() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fold.session.jsonl");
    std::fs::write(&path, FOLD).unwrap();
    let mut harness = laptop(path);
    assert_eq!(harness.state().surface_seqs(), vec![8, 7]);
    harness.get_by_label("node seq 8").click();
    harness.run();
    command(&mut harness, WindowCommand::ShowTab(SideTab::Inspector));
    let told = "replace 6..5: from the summary at 6 through 5 (2 nodes in surface order";
    // Once in the surface panel's header, once in the Inspector.
    assert_eq!(
        harness.query_all_by_label_contains(told).count(),
        2,
        "{told}"
    );
}

#[test]
fn a_followed_file_that_shrank_reloads_with_a_notice_and_keeps_the_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.session.jsonl");
    std::fs::write(&path, FOLD).unwrap();
    let p = path.clone();
    let mut harness = harness_of(egui::vec2(1280.0, 720.0), move || {
        ViewerApp::new_following_for_test(&p)
    });
    harness.step();
    assert!(harness.state().is_following());
    assert_eq!(harness.state().event_count(), 10);
    command(&mut harness, NavCommand::Seek(4));
    // Another program rewrites the file shorter: the first eight events.
    let lines: Vec<&str> = FOLD.lines().collect();
    std::fs::write(&path, format!("{}\n", lines[..9].join("\n"))).unwrap();
    for _ in 0..3 {
        harness.step();
    }
    assert_eq!(harness.state().event_count(), 8);
    assert_eq!(harness.state().cursor(), Some(4), "the cursor stays");
    let notice = harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string();
    assert!(notice.contains("reloaded"), "{notice}");
    // Cut below the cursor: it stays at the new end.
    command(&mut harness, NavCommand::Seek(8));
    std::fs::write(&path, format!("{}\n", lines[..4].join("\n"))).unwrap();
    for _ in 0..3 {
        harness.step();
    }
    assert_eq!(harness.state().event_count(), 3);
    assert_eq!(harness.state().cursor(), Some(3));
}

#[test]
fn the_sessions_browser_shows_each_path_and_a_packed_logs_format() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::copy(
        fixture("policy/p01.packed.jsonl"),
        project.join("packed.session.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture("policy/p01.jsonl"),
        project.join("plain.session.jsonl"),
    )
    .unwrap();
    let root = dir.path().to_path_buf();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 900.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_browser_for_test(&root));
    for _ in 0..20 {
        harness.run();
    }
    harness.get_by_label("JSONL packed");
    harness.get_by_label("JSONL");
    let sep = std::path::MAIN_SEPARATOR;
    harness.get_by_label(&format!("project{sep}packed.session.jsonl"));
    harness.get_by_label(&format!("project{sep}plain.session.jsonl"));
    harness.get_by_label("Path");
}

/// Esc closes a timeline row's context menu (and only the menu: the row stays selected).
#[test]
fn esc_closes_a_timeline_rows_context_menu() {
    let mut harness = laptop(asset("sample.session.jsonl"));
    harness.run();
    // The log opens at its end: the last event's row is in view.
    harness.get_by_label("event seq 460").click();
    harness.run();
    let selected = harness.state().selected_seq();
    assert_eq!(selected, Some(460));
    harness.get_by_label("event seq 460").click_secondary();
    harness.run();
    // The inspector has a Copy button of its own; the menu adds one.
    let copies = |h: &Harness<'_, ViewerApp>| h.query_all_by_label("Copy event JSON").count();
    let shown = copies(&harness);
    assert!(shown >= 1, "the context menu did not open");
    harness.get_by_label("Move replay cursor here");
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(
        harness.query_by_label("Move replay cursor here").is_none(),
        "the menu is still open after Esc"
    );
    assert_eq!(copies(&harness), shown - 1);
    assert_eq!(harness.state().selected_seq(), selected);
}

/// A notice lies over the top of the panels: neither its arrival nor its expiry moves what is
/// under it (a click aimed at a control lands on it).
#[test]
fn a_notice_moves_nothing_under_it() {
    let path = asset("sample.session.jsonl");
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .with_step_dt(1.0)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    harness.run();
    let places = |h: &Harness<'_, ViewerApp>| {
        ["turn/step", "Inspector", "⇤ Start", "event seq 460"].map(|l| h.get_by_label(l).rect())
    };
    let before = places(&harness);
    harness
        .state_mut()
        .push_command(NavCommand::GoToSeq(9_999_999));
    harness.step();
    assert!(harness.state().banner_text().is_some(), "a notice is shown");
    assert_eq!(places(&harness), before, "the notice moved the panels");
    for _ in 0..(surface_ui::theme::NOTICE_SECONDS as usize + 2) {
        harness.step();
    }
    assert_eq!(harness.state().banner_text(), None);
    assert_eq!(
        places(&harness),
        before,
        "the notice's expiry moved the panels"
    );
}
