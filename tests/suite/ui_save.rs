//! Scenario tests of "Save as new log" in the replace preview: the open log's own path is
//! refused at once, a "Replace it?" question is dropped when the range or the cursor changes,
//! the saved file gets the user's default mode, and the preview lists what `check` would say
//! about the saved file before anything is written; another session log is never replaced.

use crate::ui_support::command;

use std::path::{Path, PathBuf};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{NavCommand, ViewerApp};

/// A surface-merge-era log: 1, 2, 4, 5 appended, 6 replaces 1..4; at the end 6 and 5 are the
/// surface.
const LOG: &str = r#"{"type":"session","version":0,"id":"save-test","createdAt":1}
{"type":"turn/start","seq":0,"time":1000,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1001,"data":{"content":[{"type":"text","text":"hello alpha"}]},"surfaceOp":"append"}
{"type":"assistant/message","seq":2,"time":1002,"data":{"content":[{"type":"text","text":"calling a tool"}]},"sourceEventSeqs":[1],"surfaceOp":"append"}
{"type":"tool/call","seq":3,"time":1003,"data":{"callId":"c1","name":"bash","arguments":"{}"}}
{"type":"tool/result","seq":4,"time":1004,"data":{"callId":"c1","content":[{"type":"text","text":"result beta"}]},"sourceEventSeqs":[3],"surfaceOp":"append"}
{"type":"assistant/message","seq":5,"time":1005,"data":{"content":[{"type":"text","text":"done"}]},"surfaceOp":"append"}
{"type":"user/message","seq":6,"time":1006,"data":{"content":[{"type":"text","text":"summary gamma"}]},"sourceEventSeqs":[1,2,4],"surfaceOp":{"op":"replace","start":1,"end":4}}
{"type":"turn/end","seq":7,"time":1007,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

/// The question asked before replacing a file.
const REPLACE_IT: &str = "Replace it?";

fn write_log(dir: &Path) -> PathBuf {
    let path = dir.join("save.session.jsonl");
    std::fs::write(&path, LOG).unwrap();
    path
}

fn harness(path: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

/// Picks the surface range `first..=last` (clicks, then a shift-click).
fn pick(harness: &mut Harness<'_, ViewerApp>, first: u64, last: u64) {
    harness.get_by_label(&format!("node seq {first}")).click();
    harness.run();
    harness
        .get_by_label(&format!("node seq {last}"))
        .click_modifiers(Modifiers::SHIFT);
    harness.run();
    assert!(harness.state().preview().is_some_and(|p| p.valid));
}

/// Types `path` into the preview's path field, replacing what it holds.
fn type_path(harness: &mut Harness<'_, ViewerApp>, path: &Path) {
    harness.get_by_label("or to path:").click();
    harness.run();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run();
    harness.event(egui::Event::Text(path.display().to_string()));
    harness.run();
}

fn asks_to_replace(harness: &Harness<'_, ViewerApp>) -> bool {
    harness.query_by_label_contains(REPLACE_IT).is_some()
}

#[test]
fn typing_the_open_logs_path_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let mut harness = harness(path.clone());
    pick(&mut harness, 6, 5);
    // Another spelling of the same file.
    type_path(
        &mut harness,
        &dir.path().join(".").join("save.session.jsonl"),
    );
    harness.get_by_label_contains("that is the open log");
    harness.get_by_label("Write").click();
    harness.run();
    assert!(!asks_to_replace(&harness), "asked to replace the open log");
    let banner = harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string();
    assert!(banner.contains("never writes"), "{banner}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), LOG);
}

#[test]
fn a_replace_question_is_dropped_when_the_range_or_the_cursor_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness(write_log(dir.path()));
    let other = dir.path().join("other.session.jsonl");
    std::fs::write(&other, "keep me").unwrap();
    pick(&mut harness, 6, 5);
    type_path(&mut harness, &other);
    harness.get_by_label("Write").click();
    harness.run();
    assert!(asks_to_replace(&harness));
    // The cursor moves: the question was about another preview.
    command(&mut harness, NavCommand::StepBack);
    assert!(!asks_to_replace(&harness), "kept after the cursor moved");

    command(&mut harness, NavCommand::End);
    pick(&mut harness, 6, 5);
    harness.get_by_label("Write").click();
    harness.run();
    assert!(asks_to_replace(&harness));
    // Another range: 5 alone.
    pick(&mut harness, 5, 5);
    assert!(!asks_to_replace(&harness), "kept after the range changed");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
}

#[cfg(unix)]
#[test]
fn the_saved_log_gets_the_users_default_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let mut harness = harness(path.clone());
    pick(&mut harness, 6, 5);
    let target = dir.path().join("copy.session.jsonl");
    type_path(&mut harness, &target);
    harness.get_by_label("Write").click();
    harness.run();
    assert!(target.exists(), "{:?}", harness.state().banner_text());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // As the log itself was created (0644 under the usual umask), not 0600.
    assert_eq!(mode(&target), mode(&path));
}

#[test]
fn the_preview_lists_what_check_would_say_about_the_saved_file() {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("sample.session.jsonl");
    std::fs::copy(&sample, &copy).unwrap();
    let mut harness = harness(copy);
    assert_eq!(harness.state().finding_count(), 0, "the sample is clean");
    // At the end, replacing the last answer and question with a summary: the HEAD-era log
    // then holds a replace op no compaction event brackets.
    pick(&mut harness, 423, 428);
    harness.get_by_label_contains("check would report 1 more finding in the saved file");
    harness.get_by_label_contains("compaction.bracket");
    let target = dir.path().join("saved.session.jsonl");
    type_path(&mut harness, &target);
    harness.get_by_label("Write").click();
    harness.run();
    // The saved file says what the preview said.
    let saved = surface_store::open(&target, &surface_store::Options::default())
        .unwrap()
        .log;
    let surface = surface_engine::Surface::at_end(&saved);
    let rules: Vec<&str> = surface_engine::check(&saved, &surface)
        .iter()
        .map(|f| f.rule)
        .collect();
    assert_eq!(rules, vec!["compaction.bracket"]);
}

#[test]
fn the_preview_says_when_check_finds_nothing_new() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness(write_log(dir.path()));
    // 5 alone, replaced by a summary: no rule minds.
    pick(&mut harness, 5, 5);
    harness.get_by_label_contains("check finds nothing new in the saved file");
}

#[test]
fn another_session_log_is_never_replaced_and_a_confirmed_file_is() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness(write_log(dir.path()));
    pick(&mut harness, 6, 5);
    // Another session's log: refused with its reason, no question to answer.
    let other_log = dir.path().join("other.session.jsonl");
    let other_text = LOG.replace("save-test", "other-session");
    std::fs::write(&other_log, &other_text).unwrap();
    type_path(&mut harness, &other_log);
    harness.get_by_label("Write").click();
    harness.run();
    assert!(!asks_to_replace(&harness), "asked to replace a session log");
    let banner = harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string();
    assert!(banner.contains("is a session log; refusing"), "{banner}");
    assert_eq!(std::fs::read_to_string(&other_log).unwrap(), other_text);
    // A file of the user's: asked, then replaced once confirmed.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "keep me").unwrap();
    type_path(&mut harness, &notes);
    harness.get_by_label("Write").click();
    harness.run();
    assert!(asks_to_replace(&harness));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    harness.get_by_label("Replace").click();
    harness.run();
    assert!(std::fs::read_to_string(&notes).unwrap().starts_with(LOG));
}
