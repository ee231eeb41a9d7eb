//! Scenario tests of navigating the viewer: every key press counts, the layout keeps the
//! timeline's payload column with any side tab open, back/forward history, steps by turn
//! and model call, list selection with the keyboard, a save-as that cannot lie, and opening
//! scrolled to the cursor.

use crate::ui_support::command;

use std::path::PathBuf;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::theme;
use surface_ui::{NavCommand, PreviewCommand, SideTab, ViewerApp, WindowCommand};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl")
}

fn harness_at(path: PathBuf, size: egui::Vec2) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(size)
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

fn harness(path: PathBuf) -> Harness<'static, ViewerApp> {
    harness_at(path, egui::vec2(1600.0, 1000.0))
}

#[test]
fn ten_presses_in_one_frame_make_ten_steps() {
    let mut harness = harness(sample());
    harness.key_press(Key::Home);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(0));
    // Ten presses queued before one frame runs (auto-repeat while frames are slow).
    for _ in 0..10 {
        harness.key_press(Key::ArrowRight);
    }
    harness.run();
    assert_eq!(harness.state().cursor(), Some(10));
    for _ in 0..4 {
        harness.key_press(Key::ArrowLeft);
    }
    harness.run();
    assert_eq!(harness.state().cursor(), Some(6));
}

/// Width of the timeline's fixed columns (gutter, seq, time, type, state).
fn fixed_columns() -> f32 {
    theme::GUTTER_WIDTH
        + theme::SEQ_WIDTH
        + theme::TIME_WIDTH
        + theme::TYPE_WIDTH
        + theme::STATE_WIDTH
}

/// Opens every side tab in turn and checks that the timeline row of the last surface node
/// keeps a payload column at least `min_payload` wide and does not overlap the surface panel.
fn check_every_tab(size: egui::Vec2, min_payload: f32) {
    let mut harness = harness_at(sample(), size);
    let last_node = *harness.state().surface_seqs().last().expect("nodes");
    command(&mut harness, NavCommand::GoToSeq(last_node));
    for tab in [
        SideTab::Inspector,
        SideTab::Preview,
        SideTab::Compactions,
        SideTab::Findings,
        SideTab::Request,
    ] {
        command(&mut harness, WindowCommand::ShowTab(tab));
        harness.run();
        let label = format!("event seq {last_node}");
        let row = harness.get_by_label(&label).rect();
        let payload = row.width() - fixed_columns();
        assert!(
            payload >= min_payload,
            "{tab:?} at {size:?}: payload column {payload} px, expected ≥ {min_payload}"
        );
        let node = harness
            .get_by_label(&format!("node seq {last_node}"))
            .rect();
        assert!(
            row.right() <= node.left(),
            "{tab:?}: {row:?} overlaps {node:?}"
        );
        // The tab row never wraps: every tab label sits on one line.
        let inspector = harness.get_by_label("Inspector").rect();
        let more = harness.query_by_label("⋯").map(|n| n.rect());
        let last = more.unwrap_or_else(|| harness.get_by_label("Preview").rect());
        assert!(
            (inspector.center().y - last.center().y).abs() < 1.0,
            "tabs wrapped: {inspector:?} {last:?}"
        );
        assert!(last.right() <= size.x, "the tab row overflows: {last:?}");
    }
}

#[test]
fn a_laptop_screen_keeps_the_payload_column_with_every_tab() {
    check_every_tab(egui::vec2(1280.0, 720.0), theme::PAYLOAD_MIN_WIDTH);
}

#[test]
fn a_large_screen_keeps_a_wide_payload_column_with_every_tab() {
    check_every_tab(egui::vec2(1600.0, 1000.0), 280.0);
}

#[test]
fn panels_collapse_and_give_the_timeline_their_room() {
    let mut harness = harness_at(sample(), egui::vec2(1280.0, 720.0));
    let last_node = *harness.state().surface_seqs().last().expect("nodes");
    command(&mut harness, NavCommand::GoToSeq(last_node));
    let label = format!("event seq {last_node}");
    let before = harness.get_by_label(&label).rect().width();
    harness.key_press(Key::F7);
    harness.run();
    harness.key_press(Key::F6);
    harness.run();
    harness.run();
    let after = harness.get_by_label(&label).rect().width();
    assert!(after > before + 400.0, "{before} → {after}");
    assert!(
        harness
            .query_by_label(&format!("node seq {last_node}"))
            .is_none()
    );
    // The collapsed panels' buttons open them again.
    harness.key_press(Key::F6);
    harness.run();
    harness.run();
    harness.get_by_label(&format!("node seq {last_node}"));
}

#[test]
fn opens_scrolled_to_the_cursor() {
    let harness = harness(sample());
    let len = harness.state().event_count();
    assert_eq!(harness.state().cursor(), Some(len));
    // The last event's row is on screen (rows are virtualised: only visible rows exist).
    let last = harness.state().seq_of_event(len - 1).expect("a seq");
    harness.get_by_label(&format!("event seq {last}"));
}

#[test]
fn steps_by_turn_and_model_call() {
    let mut harness = harness(sample());
    harness.key_press(Key::Home);
    harness.run();
    // Ctrl+→: just past the first turn/start (seq 0), then `.`: past the first step/start.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::ArrowRight);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(0));
    assert_eq!(harness.state().cursor(), Some(1));
    harness.key_press(Key::Period);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(1));
    harness.key_press(Key::Period);
    harness.run();
    let second_call = harness.state().selected_seq().unwrap();
    assert!(second_call > 1);
    harness.key_press(Key::Comma);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(1));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::ArrowRight);
    harness.run();
    let second_turn = harness.state().selected_seq().unwrap();
    assert!(second_turn > 1, "{second_turn}");
}

#[test]
fn back_and_forward_walk_every_jump() {
    let mut harness = harness(sample());
    let len = harness.state().event_count();
    harness.key_press(Key::Home); // jump 1: end → start
    harness.run();
    harness.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight); // jump 2: first compaction
    harness.run();
    let compaction = harness.state().cursor().unwrap();
    assert!(compaction > 1);
    command(&mut harness, NavCommand::GoToSeq(5)); // jump 3
    let at_five = harness.state().cursor().unwrap();
    // A link followed from a chip: the selection moves, the cursor stays.
    command(
        &mut harness,
        NavCommand::FollowLink(surface_engine::EventIdx(2)),
    );
    assert_eq!(harness.state().selected_seq(), Some(2));
    // Stepping is not a jump.
    harness.key_press(Key::ArrowRight);
    harness.run();

    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(5));
    assert_eq!(harness.state().cursor(), Some(at_five));
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(compaction));
    // The mouse's back button.
    let pos = harness.get_by_label("Context strip").rect().center();
    harness.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Extra1,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    harness.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Extra1,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    harness.run();
    assert_eq!(harness.state().cursor(), Some(0));
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(len));
    // Forward again, twice.
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowRight);
    harness.run();
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowRight);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(compaction));
}

#[test]
fn a_scrubber_drag_is_one_history_entry() {
    let mut harness = harness(sample());
    for n in [10, 20, 30, 40] {
        command(&mut harness, NavCommand::Seek(n));
    }
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert_eq!(
        harness.state().cursor(),
        Some(harness.state().event_count())
    );
}

#[test]
fn arrows_move_the_selection_of_the_list_clicked_last() {
    let mut harness = harness(sample());
    // The surface panel at the end: ↓ walks its nodes.
    let nodes = harness.state().surface_seqs();
    harness
        .get_by_label(&format!("node seq {}", nodes[0]))
        .click();
    harness.run();
    harness.key_press(Key::ArrowDown);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(nodes[1]));
    // The timeline.
    command(&mut harness, NavCommand::GoToSeq(5));
    harness.get_by_label("event seq 5").click();
    harness.run();
    harness.key_press(Key::ArrowDown);
    harness.key_press(Key::ArrowDown);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(7));
    harness.key_press(Key::ArrowUp);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(6));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Home);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(0));
    harness.key_press(Key::PageDown);
    harness.run();
    assert!(harness.state().selected_seq().unwrap() > 10);
}

/// A small log: 1, 2, 4, 5 are appended, 6 replaces 1..4.
const LOG: &str = r#"{"type":"session","version":0,"id":"nav-test","createdAt":1}
{"type":"turn/start","seq":0,"time":1000,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1001,"data":{"content":[{"type":"text","text":"hello alpha"}]},"surfaceOp":"append"}
{"type":"assistant/message","seq":2,"time":1002,"data":{"content":[{"type":"text","text":"calling a tool"}]},"sourceEventSeqs":[1],"surfaceOp":"append"}
{"type":"tool/call","seq":3,"time":1003,"data":{"callId":"c1","name":"bash","arguments":"{}"}}
{"type":"tool/result","seq":4,"time":1004,"data":{"callId":"c1","content":[{"type":"text","text":"result beta"}]},"sourceEventSeqs":[3],"surfaceOp":"append"}
{"type":"assistant/message","seq":5,"time":1005,"data":{"content":[{"type":"text","text":"done"}]},"surfaceOp":"append"}
{"type":"user/message","seq":6,"time":1006,"data":{"content":[{"type":"text","text":"summary gamma"}]},"sourceEventSeqs":[1,2,4],"surfaceOp":{"op":"replace","start":1,"end":4}}
{"type":"turn/end","seq":7,"time":1007,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

#[test]
fn save_as_refuses_an_op_that_is_invalid_at_the_end_of_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nav.session.jsonl");
    std::fs::write(&path, LOG).unwrap();
    let mut harness = harness(path);
    // Cursor before the replace (seq 6): nodes 1, 2, 4, 5 are on the surface.
    for _ in 0..2 {
        harness.key_press(Key::ArrowLeft);
    }
    harness.run();
    assert_eq!(harness.state().surface_seqs(), vec![1, 2, 4, 5]);
    harness.get_by_label("node seq 1").click();
    harness.run();
    harness
        .get_by_label("node seq 2")
        .click_modifiers(Modifiers::SHIFT);
    harness.run();
    assert!(harness.state().preview().expect("a preview").valid);
    harness.get_by_label_contains("invalid at the end of the log");
    let target = dir.path().join("copy.session.jsonl");
    command(&mut harness, PreviewCommand::SaveAs(target.clone()));
    assert!(!target.exists(), "an op invalid at the end was saved");
    let banner = harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string();
    assert!(banner.contains("invalid"), "{banner}");

    // At the end, 6 and 5 are the surface: replacing them is valid there and saves.
    harness.key_press(Key::End);
    harness.run();
    harness.get_by_label("node seq 6").click();
    harness.run();
    harness
        .get_by_label("node seq 5")
        .click_modifiers(Modifiers::SHIFT);
    harness.run();
    harness.get_by_label_contains("● valid at the end of the log");
    command(&mut harness, PreviewCommand::SaveAs(target.clone()));
    let saved = std::fs::read_to_string(&target).unwrap();
    assert_eq!(saved.lines().count(), LOG.lines().count() + 1);
    // A second save to the same path does not replace it without a confirmation.
    std::fs::write(&target, "keep me").unwrap();
    command(&mut harness, PreviewCommand::SaveAs(target.clone()));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    let banner = harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string();
    assert!(banner.contains("already exists"), "{banner}");
    command(
        &mut harness,
        PreviewCommand::SaveAsReplacing(target.clone()),
    );
    assert!(std::fs::read_to_string(&target).unwrap().starts_with(LOG));
}

#[test]
fn the_help_overlay_lists_the_navigation_shortcuts() {
    let mut harness = harness(sample());
    harness.key_press(Key::F1);
    harness.run();
    for keys in [
        "Alt+← / mouse back",
        "Ctrl+←",
        ",",
        ".",
        "↑",
        "PgDn",
        "Ctrl+Home",
        "W",
        "A",
        "F6",
        "F7",
        "Ctrl+Q",
    ] {
        harness.get_by_label(keys);
    }
}
