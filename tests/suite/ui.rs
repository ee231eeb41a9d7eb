//! Scenario tests of the desktop viewer through the real app type, with egui_kittest: open a
//! log, step with the keyboard, pick a replace range, jump to a finding, search.

use crate::ui_snapshot::{snapshot, with_pixels};

use std::path::PathBuf;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{SideTab, ViewerApp};

/// A small surface-mode log: 1, 2, 4, 5 are appended, 6 replaces 1..4, 7 is an invalid replace.
const LOG: &str = r#"{"type":"session","version":0,"id":"ui-test","createdAt":1}
{"type":"turn/start","seq":0,"time":1000,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1001,"data":{"content":[{"type":"text","text":"hello alpha"}]},"surfaceOp":"append"}
{"type":"assistant/message","seq":2,"time":1002,"data":{"content":[{"type":"text","text":"calling a tool"}]},"sourceEventSeqs":[1],"surfaceOp":"append"}
{"type":"tool/call","seq":3,"time":1003,"data":{"callId":"c1","name":"bash","arguments":"{}"}}
{"type":"tool/result","seq":4,"time":1004,"data":{"callId":"c1","content":[{"type":"text","text":"result beta"}]},"sourceEventSeqs":[3],"surfaceOp":"append"}
{"type":"assistant/message","seq":5,"time":1005,"data":{"content":[{"type":"text","text":"done"}]},"surfaceOp":"append"}
{"type":"user/message","seq":6,"time":1006,"data":{"content":[{"type":"text","text":"summary gamma"}]},"sourceEventSeqs":[1,2,4],"surfaceOp":{"op":"replace","start":1,"end":4}}
{"type":"user/message","seq":7,"time":1007,"data":{"content":[{"type":"text","text":"bad replace"}]},"sourceEventSeqs":[5],"surfaceOp":{"op":"replace","start":9,"end":9}}
{"type":"turn/end","seq":8,"time":1008,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;

fn write_log(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("ui-test.session.jsonl");
    std::fs::write(&path, LOG).unwrap();
    path
}

fn harness_for(path: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        // Revealing a row scrolls with egui's short animation, which takes about ten frames.
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

fn press(harness: &mut Harness<'_, ViewerApp>, key: Key, times: usize) {
    for _ in 0..times {
        harness.key_press(key);
        harness.run();
    }
}

#[test]
fn opens_at_the_end_and_steps_with_the_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    assert_eq!(harness.state().cursor(), Some(9));
    assert_eq!(harness.state().surface_seqs(), vec![6, 5]);

    press(&mut harness, Key::ArrowLeft, 3);
    assert_eq!(harness.state().cursor(), Some(6));
    assert_eq!(harness.state().surface_seqs(), vec![1, 2, 4, 5]);
    harness.get_by_label("node seq 4");

    press(&mut harness, Key::ArrowRight, 1);
    assert_eq!(harness.state().surface_seqs(), vec![6, 5]);

    press(&mut harness, Key::Home, 1);
    assert_eq!(harness.state().cursor(), Some(0));
    assert!(harness.state().surface_seqs().is_empty());

    // Shift+→ jumps to just after the next replace op (seq 6).
    harness.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight);
    harness.run();
    assert_eq!(harness.state().cursor(), Some(7));
    assert_eq!(harness.state().selected_seq(), Some(6));

    press(&mut harness, Key::End, 1);
    assert_eq!(harness.state().cursor(), Some(9));
}

#[test]
fn selecting_a_surface_range_previews_the_replace() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    press(&mut harness, Key::ArrowLeft, 3);
    harness.get_by_label("node seq 2").click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(2));
    harness
        .get_by_label("node seq 5")
        .click_modifiers(Modifiers::SHIFT);
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Preview);
    let preview = harness.state().preview().cloned().expect("a preview");
    assert!(preview.valid, "{:?}", preview.errors);
    assert_eq!(preview.shadowed, vec![2, 4, 5]);
    assert_eq!((preview.before.nodes, preview.after.nodes), (4, 2));
    assert_eq!(preview.after_nodes, vec![1, 9]);
    assert!(
        preview.event_line().contains(
            r#""sourceEventSeqs":[2,4,5],"surfaceOp":{"op":"replace","start":2,"end":5}"#
        ),
        "{}",
        preview.event_line()
    );

    // Save as a new log through the path box; the open log stays untouched.
    // Saving appends the op at the end of the log, where seq 6 already replaced 1..4: the
    // range 2..5 no longer holds there, so the save is refused instead of writing a log
    // that `check` rejects.
    let target = dir.path().join("new.session.jsonl");
    harness
        .state_mut()
        .push_command(surface_ui::PreviewCommand::SaveAs(target.clone()));
    harness.run();
    assert!(!target.exists());
    assert!(
        harness
            .state()
            .banner_text()
            .unwrap_or_default()
            .contains("end of the log")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ui-test.session.jsonl")).unwrap(),
        LOG
    );
}

#[test]
fn saving_over_the_open_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir);
    let mut harness = harness_for(path.clone());
    harness.get_by_label("node seq 6").click();
    harness.run();
    harness
        .get_by_label("node seq 5")
        .click_modifiers(Modifiers::SHIFT);
    harness.run();
    assert!(harness.state().preview().is_some_and(|p| p.valid));
    harness
        .state_mut()
        .push_command(surface_ui::PreviewCommand::SaveAs(path.clone()));
    harness.run();
    assert!(
        harness
            .state()
            .banner_text()
            .unwrap_or_default()
            .contains("never writes")
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), LOG);
}

#[test]
fn jumps_to_findings() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    assert!(harness.state().finding_count() >= 1);
    press(&mut harness, Key::Home, 1);
    press(&mut harness, Key::F8, 1);
    let seq = harness
        .state()
        .selected_seq()
        .expect("a finding was selected");
    assert_eq!(harness.state().cursor(), Some(seq as usize + 1));

    // The findings tab lists the invalid replace; clicking it moves cursor and selection.
    harness.get_by_label_contains("Findings (").click();
    harness.run();
    press(&mut harness, Key::Home, 1);
    harness
        .get_by_label_contains("start-not-on-surface")
        .click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(7));
    assert_eq!(harness.state().cursor(), Some(8));
}

#[test]
fn searches_payloads_including_shadowed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.run();
    harness.event(egui::Event::Text("BETA".into()));
    harness.run();
    // seq 4 is shadowed at the end; search still finds it.
    assert_eq!(harness.state().search_hits(), vec![4]);
    harness.key_press(Key::F3);
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(4));
}

#[test]
fn the_timeline_selects_and_the_inspector_follows() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    harness.get_by_label("event seq 6").click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(6));
    // The inspector shows the replace and lets us jump to a source.
    harness.get_by_label_contains("seq 4 tool/result").click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(4));
    harness.key_press(Key::F1);
    harness.run();
    harness.get_by_label("Close").click();
    harness.run();
}

#[test]
fn an_unreadable_file_shows_a_banner_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, b"").unwrap();
    let harness = harness_for(path);
    assert!(harness.state().banner_text().is_some());
    assert_eq!(harness.state().cursor(), None);
}

#[test]
fn the_bundled_sample_and_upstream_fixtures_open_and_replay() {
    let mut files =
        vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl")];
    let upstream = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upstream");
    for folder in std::fs::read_dir(&upstream).expect("the upstream fixtures") {
        let folder = folder.unwrap().path();
        if folder.is_dir() {
            let mut more: Vec<PathBuf> = std::fs::read_dir(&folder)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            more.sort();
            files.extend(more);
        }
    }
    assert_eq!(files.len(), 22, "the sample and all 21 upstream fixtures");
    for file in files {
        let path = file.clone();
        // Some fixtures hold CJK text, which the bundled fonts lack: the app draws boxes for it
        // (egui's default), while kittest would panic on the first missing glyph.
        let mut harness = Harness::builder()
            .with_size(egui::vec2(1600.0, 1000.0))
            .with_max_steps(32)
            .allow_missing_glyphs()
            .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
        let end = harness
            .state()
            .cursor()
            .unwrap_or_else(|| panic!("{} did not load", file.display()));
        // Walk through every replace op and back; the surface never empties at the end.
        press(&mut harness, Key::Home, 1);
        for _ in 0..4 {
            harness.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight);
            harness.run();
        }
        press(&mut harness, Key::ArrowLeft, 2);
        press(&mut harness, Key::F8, 1);
        press(&mut harness, Key::End, 1);
        assert_eq!(harness.state().cursor(), Some(end), "{}", file.display());
    }
}

/// Pixel snapshots of the main layout with a replace selected, dark and light. They render
/// through wgpu (lavapipe or Mesa EGL on CI; skipped with a note on a machine without either,
/// see `ui_snapshot`); update with `UPDATE_SNAPSHOTS=1 cargo test --test suite ui::`.
#[test]
fn main_layout_snapshots() {
    let mut results = egui_kittest::SnapshotResults::new();
    for (theme, name) in [
        (egui::Theme::Dark, "main_layout_dark"),
        (egui::Theme::Light, "main_layout_light"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = write_log(&dir);
        let builder = Harness::builder()
            .with_size(egui::vec2(1400.0, 700.0))
            .with_theme(theme);
        let mut harness =
            with_pixels(builder, name).build_eframe(move |_cc| ViewerApp::new_for_test(&path));
        press(&mut harness, Key::Home, 1);
        harness.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight);
        harness.run();
        harness.get_by_label("event seq 6").hover();
        harness.run();
        snapshot(&mut harness, name);
        results.extend_harness(&mut harness);
    }
}

#[test]
fn family_filters_hide_and_show_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_for(write_log(&dir));
    assert!(harness.query_by_label("event seq 3").is_some());
    harness.get_by_label("tool").click();
    harness.run();
    assert!(harness.query_by_label("event seq 3").is_none());
    assert!(harness.query_by_label("event seq 4").is_none());
    assert!(harness.query_by_label("event seq 5").is_some());
    harness.get_by_label("all").click();
    harness.run();
    assert!(harness.query_by_label("event seq 3").is_some());
}

#[test]
fn follows_a_log_that_is_still_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.session.jsonl");
    let lines: Vec<&str> = LOG.lines().collect();
    std::fs::write(&path, format!("{}\n", lines[..4].join("\n"))).unwrap();
    let p = path.clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        // Revealing a row scrolls with egui's short animation, which takes about ten frames.
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_following_for_test(&p));
    harness.step();
    assert!(harness.state().is_following());
    assert_eq!(harness.state().event_count(), 3);
    assert_eq!(harness.state().surface_seqs(), vec![1, 2]);

    // The agent writes the rest, the last line in two pieces.
    let rest = format!("{}\n", lines[4..].join("\n"));
    let (a, b) = rest.split_at(rest.len() - 20);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, a.as_bytes()).unwrap();
    harness.step();
    assert_eq!(
        harness.state().event_count(),
        8,
        "the partial last line waits"
    );
    std::io::Write::write_all(&mut f, b.as_bytes()).unwrap();
    harness.step();
    harness.step();
    assert_eq!(harness.state().event_count(), 9);
    assert_eq!(
        harness.state().cursor(),
        Some(9),
        "the cursor followed the end"
    );
    assert_eq!(harness.state().surface_seqs(), vec![6, 5]);
    assert!(
        harness.state().finding_count() > 0,
        "findings were refreshed"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        LOG,
        "the file is untouched"
    );
}

/// A followed log nobody appends to: over ten seconds of simulated idle time the window asks
/// for no frame (each frame's output says when the next is wanted; a frame is run only then).
#[test]
fn an_idle_followed_log_asks_for_no_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idle.session.jsonl");
    std::fs::write(&path, LOG).unwrap();
    let p = path.clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_following_for_test(&p));
    harness.run();
    assert!(harness.state().is_following());
    let idle = std::time::Duration::from_secs(10);
    let mut elapsed = std::time::Duration::ZERO;
    let mut frames = 0;
    loop {
        let wanted_in = harness.output().viewport_output[&egui::ViewportId::ROOT].repaint_delay;
        if wanted_in >= idle - elapsed {
            break;
        }
        elapsed += wanted_in.max(std::time::Duration::from_millis(16));
        harness.step();
        frames += 1;
    }
    assert_eq!(frames, 0, "an idle followed window draws nothing");
    assert_eq!(harness.state().event_count(), 9);
}

#[test]
fn a_sqlite_file_with_several_sessions_offers_a_picker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "PRAGMA user_version=4;
         CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL,
           cwd TEXT, parent_session TEXT, seed_length INTEGER);
         CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
           time INTEGER NOT NULL, data TEXT NOT NULL, source_event_seqs TEXT, surface_op TEXT,
           PRIMARY KEY (session_id, seq));
         INSERT INTO sessions VALUES ('older', 0, 1, NULL, NULL, NULL), ('newer', 0, 2, NULL, NULL, NULL);
         INSERT INTO events VALUES ('older', 0, 'user/message', 1, '{\"content\":[]}', NULL, '\"append\"');
         INSERT INTO events VALUES ('newer', 0, 'user/message', 1, '{\"content\":[]}', NULL, '\"append\"'),
                                   ('newer', 1, 'user/message', 2, '{\"content\":[]}', NULL, '\"append\"');",
    )
    .unwrap();
    drop(db);
    let before = std::fs::read(&path).unwrap();
    let mut harness = harness_for(path.clone());
    // The most recently created session opens by default, and the banner says there are more.
    assert_eq!(harness.state().event_count(), 2);
    assert!(
        harness
            .state()
            .banner_text()
            .unwrap_or_default()
            .contains("2 sessions")
    );
    harness
        .state_mut()
        .push_command(surface_ui::SessionCommand::PickSession("older".into()));
    harness.run();
    assert_eq!(harness.state().event_count(), 1);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the database is untouched"
    );
}

// --- Laptop screens, the sessions browser, CJK text -------------------------------------

/// At 1280×720 every panel stays readable: the timeline keeps its payload column, the right
/// panel keeps one width whatever it holds, and nothing overlaps.
#[test]
fn a_laptop_screen_keeps_all_three_panels_readable() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(&dir);
    let builder = Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64);
    let mut harness = with_pixels(builder, "laptop_layout_1280x720")
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    harness.run();
    // Fixed timeline columns: gutter, seq, time, type, state (theme.rs).
    let fixed = surface_ui::theme::GUTTER_WIDTH
        + surface_ui::theme::SEQ_WIDTH
        + surface_ui::theme::TIME_WIDTH
        + surface_ui::theme::TYPE_WIDTH
        + surface_ui::theme::STATE_WIDTH;
    let check_layout = |harness: &Harness<'_, ViewerApp>, min_side: f32, max_side: f32| {
        let row = harness.get_by_label("event seq 6").rect();
        let node = harness.get_by_label("node seq 6").rect();
        let side_left = harness.get_by_label("Inspector").rect().left();
        let payload = row.width() - fixed;
        assert!(payload >= 150.0, "payload column only {payload} px wide");
        assert!(row.right() <= node.left(), "{row:?} overlaps {node:?}");
        assert!(
            node.right() <= side_left,
            "{node:?} overlaps the side panel"
        );
        assert!(
            node.width() >= 280.0,
            "surface rows only {} px",
            node.width()
        );
        let side = 1280.0 - side_left;
        assert!(
            (min_side..=max_side).contains(&side),
            "side panel {side} px, expected {min_side}..={max_side}"
        );
        assert!(row.left() >= 0.0 && side_left < 1280.0);
    };
    // Nothing selected: the inspector only holds a hint; the panel keeps its width.
    check_layout(&harness, 260.0, 460.0);
    let side_before = harness.get_by_label("Inspector").rect().left();
    harness.get_by_label("event seq 6").click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(6));
    // Something to inspect: the panel does not move, the timeline still shows payloads.
    check_layout(&harness, 260.0, 460.0);
    assert_eq!(harness.get_by_label("Inspector").rect().left(), side_before);
    snapshot(&mut harness, "laptop_layout_1280x720");
}

fn small_store(dir: &tempfile::TempDir) -> (PathBuf, Vec<surface_synth::StoredSession>) {
    let root = dir.path().join("store");
    let config = surface_synth::StoreConfig {
        sessions: 40,
        projects: 4,
        events: 150,
        fork_every: 5,
        zstd_every: 3,
        sqlite_sessions: 2,
        ..Default::default()
    };
    let sessions = surface_synth::write_store(&root, &config).unwrap();
    (root, sessions)
}

fn browser_harness(root: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_browser_for_test(&root))
}

#[test]
fn the_sessions_browser_sorts_filters_opens_and_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let (root, sessions) = small_store(&dir);
    let mut harness = browser_harness(root);
    harness.run();
    assert!(harness.state().is_browsing());
    let roots = sessions.iter().filter(|s| s.parent.is_none()).count();
    // Forks start collapsed under their parent.
    assert_eq!(harness.state_mut().browser_lines().len(), roots);

    // Sort by events, biggest first; then the other way round.
    harness.get_by_label_contains("Events").click();
    harness.run();
    let by_events = |desc: bool| {
        let mut roots: Vec<&surface_synth::StoredSession> =
            sessions.iter().filter(|s| s.parent.is_none()).collect();
        roots.sort_by_key(|s| (s.events, s.file.clone(), s.id.clone()));
        if desc {
            roots.sort_by(|a, b| b.events.cmp(&a.events).then(a.file.cmp(&b.file)));
        }
        roots.iter().map(|s| s.title.clone()).collect::<Vec<_>>()
    };
    assert_eq!(harness.state_mut().browser_lines(), by_events(true));
    harness.get_by_label_contains("Events").click();
    harness.run();
    assert_eq!(harness.state_mut().browser_lines(), by_events(false));

    // Expand a parent: its fork (which inherited its title) shows under it, indented.
    harness
        .query_all_by_label("▶ 1")
        .next()
        .expect("a parent with one fork")
        .click();
    harness.run();
    let lines = harness.state_mut().browser_lines();
    let indented: Vec<usize> = (1..lines.len())
        .filter(|&k| lines[k].starts_with("  "))
        .collect();
    assert_eq!(indented.len(), 1, "{lines:?}");
    assert_eq!(lines[indented[0]], format!("  {}", lines[indented[0] - 1]));

    // Filter by a CJK title and the start of the id: only that session (rendered with the
    // bundled font: kittest panics on a missing glyph).
    let cjk = sessions
        .iter()
        .find(|s| s.title == "修复解析负数金额的测试" && s.parent.is_none())
        .unwrap();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.run();
    harness.event(egui::Event::Text(format!("负数金额 {}", &cjk.id[..8])));
    harness.run();
    assert_eq!(harness.state_mut().browser_lines(), vec![cjk.title.clone()]);

    // Select it and press Enter: the viewer opens that session.
    harness.get_by_label(&cjk.title).click();
    harness.run();
    assert_eq!(harness.state().browser_selected_id(), Some(cjk.id.clone()));
    harness.key_press(Key::Enter);
    harness.run();
    assert!(!harness.state().is_browsing());
    assert_eq!(harness.state().session_id(), Some(cjk.id.clone()));
    assert_eq!(harness.state().event_count() as u64, cjk.events);

    // Back: the table with its filter and sort as they were.
    harness.get_by_label("◀ Sessions").click();
    harness.run();
    assert!(harness.state().is_browsing());
    assert_eq!(harness.state_mut().browser_lines(), vec![cjk.title.clone()]);
    assert_eq!(harness.state().browser_selected_id(), Some(cjk.id.clone()));

    // A session of the SQLite store opens by its id; Alt+← comes back to the same table.
    let db = sessions.iter().find(|s| s.format == "sqlite").unwrap();
    harness.get_by_label("×").click();
    harness.run();
    let before = harness.state_mut().browser_lines();
    assert_eq!(before.len(), roots + 1);
    harness
        .state_mut()
        .push_command(surface_ui::BrowserCommand::OpenSessionOf {
            file: db.file.clone(),
            session: Some(db.id.clone()),
        });
    harness.run();
    assert_eq!(harness.state().session_id(), Some(db.id.clone()));
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert!(harness.state().is_browsing());
    assert_eq!(harness.state_mut().browser_lines(), before);
}

#[test]
fn the_browser_keeps_its_scroll_position_across_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = small_store(&dir);
    let mut harness = browser_harness(root);
    harness.run();
    let lines = harness.state_mut().browser_lines().len();
    for _ in 0..lines {
        harness.key_press(Key::ArrowDown);
        harness.run();
    }
    let selected = harness.state().browser_selected_id().expect("a selection");
    let offset = harness.state().browser_scroll_offset();
    assert!(offset > 0.0, "the table scrolled to the selection");
    harness.key_press(Key::Enter);
    harness.run();
    assert_eq!(harness.state().session_id(), Some(selected.clone()));
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    harness.run();
    assert!(harness.state().is_browsing());
    assert!((harness.state().browser_scroll_offset() - offset).abs() < 1.0);
    assert_eq!(harness.state().browser_selected_id(), Some(selected));
}

/// Chinese, Japanese and Korean text renders with the bundled font alone: kittest panics on a
/// missing glyph, so this passing means no tofu; the snapshot shows the glyphs.
#[test]
fn cjk_text_renders_with_the_bundled_font() {
    let mut installed = false;
    let builder = Harness::builder().with_size(egui::vec2(520.0, 90.0));
    let mut harness = with_pixels(builder, "cjk_text_bundled_font").build_ui(move |ui| {
        if !installed {
            // Fonts apply from the next pass.
            surface_ui::theme::install_fonts(ui.ctx());
            installed = true;
            ui.ctx().request_repaint();
            return;
        }
        ui.label("中文：修复解析负数金额的测试。");
        ui.label("日本語：ログのパーサーを直す、カタカナ。");
        ui.label("한국어: 빌드 오류 고치기");
    });
    harness.run();
    harness.get_by_label("한국어: 빌드 오류 고치기");
    let fonts: Vec<String> = harness.ctx.fonts(|f| {
        f.discovered_fonts()
            .iter()
            .map(|d| d.name.clone())
            .collect()
    });
    assert_eq!(fonts, [surface_ui::CJK_FONT_NAME]);
    snapshot(&mut harness, "cjk_text_bundled_font");
}

/// The upstream fixture holding Chinese text draws it with the bundled font: every CJK
/// character in it is covered, and opening it installs the font. (It also holds emoji that no
/// bundled font has, so missing glyphs are allowed here; the CJK ones are not missing.)
#[test]
fn fixtures_with_cjk_text_use_the_bundled_font() {
    let upstream = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upstream");
    let is_cjk = |c: char| matches!(c as u32, 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF);
    let mut with_cjk = 0;
    for folder in std::fs::read_dir(&upstream).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(folder).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let cjk: Vec<char> = text.chars().filter(|&c| is_cjk(c)).collect();
            if cjk.is_empty() {
                continue;
            }
            with_cjk += 1;
            let uncovered: String = cjk
                .iter()
                .filter(|&&c| !surface_ui::CjkFallback::covers(c))
                .collect();
            assert!(uncovered.is_empty(), "{}: {uncovered}", path.display());
            let p = path.clone();
            let mut harness = Harness::builder()
                .with_size(egui::vec2(1600.0, 1000.0))
                .with_max_steps(32)
                .allow_missing_glyphs()
                .build_eframe(move |_cc| ViewerApp::new_for_test(&p));
            // Select an event with Chinese text so the inspector shows it too.
            harness.key_press(Key::End);
            harness.run();
            let fonts: Vec<String> = harness.ctx.fonts(|f| {
                f.discovered_fonts()
                    .iter()
                    .map(|d| d.name.clone())
                    .collect()
            });
            assert!(
                fonts.iter().any(|f| f == surface_ui::CJK_FONT_NAME),
                "{}: {fonts:?}",
                path.display()
            );
        }
    }
    assert!(with_cjk > 0, "some fixtures hold CJK text");
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl")
}

#[test]
fn context_strip_shows_the_meter_and_clicking_it_seeks() {
    let mut harness = harness_for(sample());
    let len = harness.state().event_count();
    assert_eq!(harness.state().cursor(), Some(len));
    // The surface panel header: the meter's total of the sample's 3072-token window, and the fill.
    harness.get_by_label_contains("/ 3072 tokens ·");
    harness.get_by_label("Context strip").click();
    harness.run();
    let cursor = harness.state().cursor().unwrap();
    assert!(
        cursor.abs_diff(len / 2) <= len / 50 + 1,
        "cursor {cursor} of {len}"
    );
    // Dragging to the left edge seeks to the start.
    let strip = harness.get_by_label("Context strip").rect();
    harness.drag_at(strip.left_center() + egui::vec2(1.0, 0.0));
    harness.run();
    harness.drop_at(strip.left_center() + egui::vec2(1.0, 0.0));
    harness.run();
    assert!(harness.state().cursor().unwrap() <= 1);
}

#[test]
fn request_tab_shows_the_model_call_at_the_cursor() {
    use surface_engine::{Meter, Surface, request_at};
    let mut harness = harness_for(sample());
    harness
        .state_mut()
        .push_command(surface_ui::WindowCommand::ShowTab(SideTab::Request));
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Request);
    harness.get_by_label("Model request");
    harness.get_by_label_contains("System prompt ·");
    harness.get_by_label_contains("Tools (");
    harness.get_by_label_contains("Messages (");
    harness.get_by_label_contains("reported − estimated");

    // The view shows what the engine reconstructs for that cursor.
    let log = surface_store::open(&sample(), &surface_store::Options::default())
        .unwrap()
        .log;
    let meter = Meter::build(&log, &Surface::at_end(&log));
    let cursor = harness.state().cursor().unwrap();
    let expected = request_at(&log, &meter, cursor, &mut Surface::new(&log)).unwrap();
    let shown = harness.state().shown_request().unwrap();
    assert_eq!(shown, &expected);
    assert!(shown.estimate.tools > 0 && shown.reported.is_some());

    // Before the first step there is no request.
    press(&mut harness, Key::Home, 1);
    harness.get_by_label_contains("No model request yet");
}

/// The sample's audit computed by the engine, independently of the viewer.
fn sample_audit() -> (surface_engine::EventLog, surface_analysis::audit::Audit) {
    use surface_analysis::audit::audit;
    use surface_engine::{DEFAULT_THRESHOLD_RATIO, Meter, Surface};
    let log = surface_store::open(&sample(), &surface_store::Options::default())
        .unwrap()
        .log;
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let audit = audit(&log, &surface, &meter, DEFAULT_THRESHOLD_RATIO);
    (log, audit)
}

#[test]
fn compactions_tab_lists_every_replace_and_a_click_jumps_there() {
    use surface_analysis::audit::{ReplaceKind, Trigger};
    let (log, expected) = sample_audit();
    let mut harness = harness_for(sample());
    // The context strip colours its marks from the audit: it is there before the tab opens.
    assert_eq!(harness.state().compaction_audit(), Some(&expected));
    harness.get_by_label("Compactions").click();
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Compactions);
    // One row per replace op, in log order, and the viewer's audit is the engine's.
    let seqs: Vec<u64> = expected.replaces.iter().map(|r| r.seq).collect();
    assert_eq!(harness.state().compaction_rows(), seqs);
    assert_eq!(harness.state().compaction_audit(), Some(&expected));
    let kinds: Vec<_> = expected.replaces.iter().map(|r| r.kind).collect();
    assert!(kinds.contains(&ReplaceKind::Summary) && kinds.contains(&ReplaceKind::Prune));
    let overflow = expected
        .replaces
        .iter()
        .find(|r| r.trigger == Some(Trigger::Overflow))
        .expect("the sample has an overflow-triggered compaction");
    for r in &expected.replaces {
        harness.get_by_label(&format!("compaction seq {}", r.seq));
    }
    harness.get_by_label("1 request over the threshold");

    // Clicking a row moves the cursor to just after that replace and shows it before | after.
    press(&mut harness, Key::Home, 1);
    assert_eq!(harness.state().cursor(), Some(0));
    harness
        .get_by_label(&format!("compaction seq {}", overflow.seq))
        .click();
    harness.run();
    let idx = log.find_seq(overflow.seq).unwrap();
    assert_eq!(harness.state().cursor(), Some(idx.get() + 1));
    assert_eq!(harness.state().selected_seq(), Some(overflow.seq));
    assert_eq!(harness.state().compared().map(|c| c.0), Some(overflow.seq));

    // Sorting by tokens saved puts the largest saving first; again flips it (the column lies
    // past the balance: the table scrolls sideways to it).
    harness.get_by_label("sort by saved").scroll_to_me();
    harness.run();
    harness.get_by_label("sort by saved").click();
    harness.run();
    let mut by_saved = expected.replaces.clone();
    by_saved.sort_by_key(|r| std::cmp::Reverse(r.tokens_saved()));
    let rows = harness.state().compaction_rows();
    assert_eq!(
        rows,
        by_saved.iter().map(|r| r.seq).collect::<Vec<_>>(),
        "descending by saved"
    );
    harness.get_by_label("sort by saved").click();
    harness.run();
    let flipped: Vec<u64> = rows.iter().rev().copied().collect();
    assert_eq!(harness.state().compaction_rows(), flipped);
}

/// The whole text of a label (a laid-out label carries it as its value).
fn shown_text(node: egui_kittest::Node<'_>) -> String {
    use egui_kittest::kittest::NodeT as _;
    let n = node.accesskit_node();
    n.value().or_else(|| n.label()).unwrap_or_default()
}

#[test]
fn before_after_shows_the_shadowed_text_its_lost_terms_and_the_summary() {
    use surface_analysis::audit::detail;
    let (log, expected) = sample_audit();
    let r = expected
        .replaces
        .iter()
        .find(|r| r.kind == surface_analysis::audit::ReplaceKind::Summary)
        .filter(|r| !r.lost_terms.is_empty() && !r.refetches.is_empty())
        .expect("a summary that lost terms and caused a refetch");
    let mut harness = harness_for(sample());
    harness.get_by_label("Compactions").click();
    harness.run();
    harness
        .get_by_label(&format!("compaction seq {}", r.seq))
        .click();
    harness.run();

    // The surface just before holds the shadowed nodes; just after, the replacement instead.
    let (seq, before, after) = harness.state().compared().unwrap();
    assert_eq!(seq, r.seq);
    assert_eq!(before.len() as u64, r.nodes_before);
    assert_eq!(after.len() as u64, r.nodes_after);
    for s in &r.shadowed {
        assert!(before.contains(s) && !after.contains(s), "shadowed seq {s}");
    }
    assert!(after.contains(&r.seq) && !before.contains(&r.seq));
    harness.get_by_label(&format!(
        "Before · {} nodes · {} tokens",
        r.nodes_before, r.tokens_before
    ));
    harness.get_by_label(&format!(
        "After · {} nodes · {} tokens",
        r.nodes_after, r.tokens_after
    ));
    // The lists scroll (only visible rows exist): check the shadowed ones among the first rows.
    let top: Vec<&u64> = before
        .iter()
        .take(4)
        .filter(|s| r.shadowed.contains(s))
        .collect();
    assert!(
        !top.is_empty(),
        "a shadowed node near the top of {before:?}"
    );
    for s in top {
        harness.get_by_label(&format!("before seq {s}"));
        assert!(harness.query_by_label(&format!("after seq {s}")).is_none());
    }

    // The replacement's text beside the shadowed text, and every lost term listed.
    let d = detail(&log, r);
    assert!(!d.replacement.is_empty());
    harness.get_by_label(&d.replacement);
    harness.get_by_label(&format!(
        "Shadowed · {} nodes · {} tokens · {} lost terms",
        r.shadowed.len(),
        r.shadowed_tokens,
        r.lost_terms.len()
    ));
    let first = &d.shadowed[0];
    let head = format!("— seq {} {}", first.seq, first.type_name);
    let text = shown_text(harness.get_by_label_contains(&head));
    for term in &r.lost_terms {
        assert!(
            text.contains(&term.term),
            "lost term {} shown in {text}",
            term.term
        );
        assert!(!d.replacement.contains(&term.term), "{} is lost", term.term);
    }
    let head = format!("Lost terms ({}): ", r.lost_terms.len());
    let listed = shown_text(harness.get_by_label_contains(&head));
    assert!(listed.contains(&r.lost_terms[0].term), "{listed}");

    // A refetch is a link that selects the new call.
    let f = &r.refetches[0];
    let link = format!("seq {} {} again", f.seq, f.tool);
    harness.get_by_label_contains(&link).scroll_to_me();
    harness.run();
    harness.get_by_label_contains(&link).click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(f.seq));
}

/// A long log is shown before its findings and token meter are computed: until the loader's
/// analysis lands, every place that shows them says "computing…", stepping works, and the
/// figures that land are the meter's at the cursor the user moved to meanwhile.
#[test]
fn figures_say_computing_until_the_analysis_lands() {
    use surface_engine::{Meter, Surface};

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl");
    let opened = surface_store::open(&path, &surface_store::Options::default()).unwrap();
    let meter = Meter::build(&opened.log, &Surface::at_end(&opened.log));
    let shown = path.clone();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_for_test_pending(&shown));
    harness.run();
    let end = harness
        .state()
        .cursor()
        .expect("the log and surface are shown");
    assert!(harness.state().analysis_pending());
    assert_eq!(harness.state().finding_count(), 0);
    harness.get_by_label("tokens computing…");
    harness.get_by_label("Findings (computing…)");
    harness.get_by_label("token meter: computing…");
    harness
        .state_mut()
        .push_command(surface_ui::WindowCommand::ShowTab(SideTab::Request));
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Request);
    harness.get_by_label("Request: computing…");
    // With Request shown, the Findings tab may sit in the tab row's "⋯" menu.
    harness
        .state_mut()
        .push_command(surface_ui::WindowCommand::ShowTab(SideTab::Findings));
    harness.run();
    harness.get_by_label("Findings: computing…");

    // Stepping and F8 work meanwhile (F8 says the findings are not there yet).
    press(&mut harness, Key::ArrowLeft, 5);
    assert_eq!(harness.state().cursor(), Some(end - 5));
    press(&mut harness, Key::F8, 1);
    assert!(
        harness
            .state()
            .banner_text()
            .is_some_and(|t| t.contains("still being computed")),
        "{:?}",
        harness.state().banner_text()
    );

    assert!(harness.state_mut().release_analysis());
    harness.run();
    assert!(!harness.state().analysis_pending());
    assert!(harness.query_by_label_contains("computing").is_none());
    let total = meter.at(end - 5).total;
    harness.get_by_label_contains(&format!("{total} / 3072 tokens"));
    harness.get_by_label_contains("Findings (0 E, 0 W)").click();
    harness.run();
    harness.get_by_label("No findings: the log passes every check.");
    assert!(!harness.state_mut().release_analysis(), "delivered once");
}

#[test]
fn the_policy_tab_replays_the_sample_and_follows_its_settings() {
    use egui::accesskit::Role;
    let mut harness = harness_for(sample());
    harness.run();
    harness.get_by_label("Policy").click();
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Policy);
    let report = harness.state().policy_report().expect("a verify report");
    assert!(!report.checks.is_empty(), "the sample has checks");
    let first = report.checks[0].step_start_seq;
    harness.get_by_label(&format!("check seq {first}")).click();
    harness.run();
    assert_eq!(harness.state().cursor(), Some(report.checks[0].cursor));
    let before = report.totals.clone();

    let set_threshold = |harness: &mut Harness<'_, ViewerApp>, text: &str| {
        harness
            .get_by_role_and_label(Role::TextInput, "threshold ratio T")
            .focus();
        harness.run();
        harness.key_press(Key::End);
        // Enough for any f64 the field may hold (the inferred T is an interval's midpoint).
        for _ in 0..32 {
            harness.key_press(Key::Backspace);
        }
        harness
            .get_by_role_and_label(Role::TextInput, "threshold ratio T")
            .type_text(text);
        harness.run();
    };
    set_threshold(&mut harness, "0.30");
    assert_eq!(harness.state().policy_settings().threshold_ratio, 0.3);
    // The field keeps the text as typed (it is not rewritten from the parsed settings).
    assert_eq!(
        harness
            .get_by_role_and_label(Role::TextInput, "threshold ratio T")
            .value()
            .as_deref(),
        Some("0.30")
    );
    let after = harness.state().policy_report().unwrap();
    assert_eq!(after.settings.threshold_ratio, 0.3);
    assert_ne!(after.totals, before, "a lower threshold changes the replay");

    harness.get_by_label("what-if").click();
    harness.run();
    let what_if = harness.state().policy_report().unwrap();
    assert_eq!(what_if.mode, surface_analysis::policy::ReplayMode::WhatIf);
    assert_eq!(what_if.settings.threshold_ratio, 0.3);

    harness.get_by_label("Use inferred settings").click();
    harness.run();
    let inferred = what_if.inferred.clone();
    let settings = harness.state().policy_settings();
    if let Some([lo, hi]) = inferred.threshold_ratio {
        // Inside the interval, or 1 (the nearest valid ratio) when it lies above 1.
        let t = settings.threshold_ratio;
        assert!(
            (t >= lo && t < hi) || (lo >= 1.0 && t == 1.0),
            "{t} in [{lo}, {hi})"
        );
    }
    assert_eq!(
        harness
            .state()
            .policy_report()
            .unwrap()
            .settings
            .threshold_ratio,
        settings.threshold_ratio
    );

    harness.get_by_label("verify").click();
    harness.run();
    // The sample's pressure summaries bracket the retain budget: the inferred settings keep N
    // tokens, which a threshold of 10 % of the window cannot hold.
    assert!(inferred.retain_tokens.is_some());
    set_threshold(&mut harness, "0.1");
    harness.get_by_label_contains("--retain-tokens must be below the threshold");
}

#[test]
fn a_message_citing_hundreds_of_events_shows_the_first_chips_and_counts_the_rest() {
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":0,\"id\":\"chips\",\"createdAt\":1}\n\
         {\"type\":\"step/start\",\"seq\":0,\"data\":{\"turn\":1,\"step\":1}}\n",
    );
    for seq in 1..=250 {
        text.push_str(&format!(
            "{{\"type\":\"assistant/chunk\",\"seq\":{seq},\"data\":{{\"turn\":1,\"step\":1,\"chunk\":{{\"type\":\"text-delta\",\"index\":0,\"text\":\"w{seq} \"}}}}}}\n"
        ));
    }
    // Seq 999 does not exist: named as missing, after the chips.
    let cited: Vec<String> = (1..=250).chain([999]).map(|s| s.to_string()).collect();
    text.push_str(&format!(
        "{{\"type\":\"assistant/message\",\"seq\":251,\"data\":{{\"turn\":1,\"step\":1,\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"long answer\"}}]}}}},\"sourceEventSeqs\":[{}],\"surfaceOp\":\"append\"}}\n",
        cited.join(",")
    ));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chips.session.jsonl");
    std::fs::write(&path, text).unwrap();
    let mut harness = harness_for(path);
    harness
        .state_mut()
        .push_command(surface_ui::WindowCommand::ShowTab(SideTab::Inspector));
    harness
        .state_mut()
        .push_command(surface_ui::NavCommand::Select {
            idx: surface_engine::EventIdx(251),
            reveal: true,
        });
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(251));
    harness.get_by_label("Sources (251):");
    harness.get_by_label("seq 200 assistant/chunk");
    assert!(harness.query_by_label("seq 201 assistant/chunk").is_none());
    harness.get_by_label("… and 50 more");
    harness.get_by_label("seq 999 (no such event)");
}
