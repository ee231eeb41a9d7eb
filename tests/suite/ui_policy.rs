//! The policy lab in the viewer beyond its own tab (issue #24): each compaction's verdict in
//! the Compactions tab, "Use inferred settings" moving the audit's threshold too, and a
//! followed session whose Policy tab grows as checks arrive.

use std::path::PathBuf;

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_analysis::audit::Trigger;
use surface_ui::{SideTab, ViewerApp};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/policy/{name}"))
}

fn harness_of(app: impl FnOnce() -> ViewerApp + 'static) -> Harness<'static, ViewerApp> {
    let mut app = Some(app);
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        // The fixtures hold an emoji and a CJK character the bundled fonts lack (boxes).
        .allow_missing_glyphs()
        .build_eframe(move |_cc| app.take().expect("built once")())
}

fn open_tab(harness: &mut Harness<'_, ViewerApp>, tab: &str) {
    harness.get_by_label(tab).click();
    harness.run();
}

/// Types `text` into the Policy tab's threshold field in place of what it holds.
fn set_threshold(harness: &mut Harness<'_, ViewerApp>, text: &str) {
    harness
        .get_by_role_and_label(Role::TextInput, "threshold ratio T")
        .focus();
    harness.run();
    harness.key_press(Key::End);
    for _ in 0..12 {
        harness.key_press(Key::Backspace);
    }
    harness
        .get_by_role_and_label(Role::TextInput, "threshold ratio T")
        .type_text(text);
    harness.run();
}

/// The policy cell of every row of the Compactions table, by the replace's seq.
fn verdict_cells(harness: &Harness<'_, ViewerApp>) -> Vec<(u64, String)> {
    let audit = harness
        .state()
        .compaction_audit()
        .expect("the audit")
        .clone();
    audit
        .replaces
        .iter()
        .map(|r| {
            let label = format!("compaction seq {}", r.seq);
            let value = harness.get_by_label(&label).value().unwrap_or_default();
            (r.seq, value)
        })
        .collect()
}

#[test]
fn each_compaction_row_shows_the_policy_verdict() {
    let path = fixture("p01.jsonl");
    let mut harness = harness_of(move || ViewerApp::new_for_test(&path));
    harness.run();
    open_tab(&mut harness, "Compactions");
    let cells = verdict_cells(&harness);
    assert!(
        cells.len() >= 16,
        "p01 prunes 8 times and summarises 8 times"
    );
    for (seq, cell) in &cells {
        assert_eq!(
            cell, "as the policy decided",
            "seq {seq} at the true settings"
        );
    }

    // At T 0.95 the policy no longer fires at check 396 (14603 < 15200) and only prunes at
    // check 260, where the log also summarised.
    open_tab(&mut harness, "Policy");
    set_threshold(&mut harness, "0.95");
    assert_eq!(harness.state().policy_settings().threshold_ratio, 0.95);
    open_tab(&mut harness, "Compactions");
    assert_eq!(harness.state().side_tab(), SideTab::Compactions);
    let cells = verdict_cells(&harness);
    let with = |needle: &str| cells.iter().filter(|(_, c)| c.contains(needle)).count();
    assert!(
        with("the policy would not have fired here (14603 < threshold 15200)") >= 1,
        "{cells:#?}"
    );
    assert!(
        with("a summary the policy would not make (it only prunes here)") >= 1,
        "{cells:#?}"
    );
    assert!(
        with("the policy's prune; the check differs: the log made 1 summary attempt, the policy 0")
            >= 1,
        "{cells:#?}"
    );
    assert!(
        with("as the policy decided") >= 1,
        "checks that still agree"
    );
    // A row's verdict is its check's: as many rows differ as the disagreeing checks hold.
    let report = harness.state().policy_report().expect("a verify report");
    assert_eq!(report.settings.threshold_ratio, 0.95);
    assert!(report.disagreements() > 0);
    assert_eq!(
        cells.len() - with("as the policy decided"),
        disagreeing_compactions(&fixture("p01.jsonl"), 0.95)
    );
}

/// The log's compactions (applied replace ops) at checks that disagree with the policy at
/// threshold ratio `t`, counted through the engine.
fn disagreeing_compactions(path: &std::path::Path, t: f64) -> usize {
    use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};
    let log = surface_store::open(path, &surface_store::Options::default())
        .unwrap()
        .log;
    let surface = surface_engine::Surface::at_end(&log);
    let meter = surface_engine::Meter::build(&log, &surface);
    let input = PolicyInput::build(&log, &surface, &meter);
    let settings = PolicySettings {
        threshold_ratio: t,
        ..PolicySettings::default()
    }
    .validate(meter.window_at(log.len()))
    .unwrap();
    let report = replay(&log, &meter, &input, &settings, ReplayMode::Verify);
    input
        .checks()
        .iter()
        .zip(&report.checks)
        .filter(|(_, c)| c.agrees == Some(false))
        .map(|(p, _)| {
            p.log
                .prunes
                .iter()
                .filter(|x| x.replace_event.is_some())
                .count()
                + p.log
                    .summaries
                    .iter()
                    .filter(|x| x.replace_event.is_some())
                    .count()
        })
        .sum()
}

#[test]
fn use_inferred_settings_also_moves_the_audits_threshold() {
    // p02 ran at T 0.7: at the audit's default 0.8 some of its compactions look voluntary.
    let path = fixture("p02.jsonl");
    let mut harness = harness_of(move || ViewerApp::new_for_test(&path));
    harness.run();
    open_tab(&mut harness, "Compactions");
    let audit = harness.state().compaction_audit().unwrap().clone();
    let below: Vec<u64> = audit
        .replaces
        .iter()
        .filter(|r| r.trigger == Some(Trigger::BelowThreshold))
        .map(|r| r.seq)
        .collect();
    assert!(
        !below.is_empty(),
        "at T 0.8 some compaction is not pressure"
    );
    assert_eq!(harness.state().threshold_ratio(), 0.8);

    open_tab(&mut harness, "Policy");
    harness.get_by_label("Use inferred settings").click();
    harness.run();
    let t = harness.state().policy_settings().threshold_ratio;
    assert!((0.6891..0.7076).contains(&t), "inferred T {t}");
    assert_eq!(
        harness.state().threshold_ratio(),
        t,
        "the audit's T follows"
    );

    open_tab(&mut harness, "Compactions");
    let audit = harness.state().compaction_audit().unwrap().clone();
    for seq in &below {
        let r = audit.replaces.iter().find(|r| r.seq == *seq).unwrap();
        assert_eq!(r.trigger, Some(Trigger::Pressure), "seq {seq} at T {t}");
    }
    assert!(
        audit
            .replaces
            .iter()
            .all(|r| r.trigger != Some(Trigger::BelowThreshold)),
        "every compaction of a log run at T 0.7 is pressure (or overflow, or a command)"
    );
}

#[test]
fn a_followed_session_grows_its_policy_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.session.jsonl");
    let text = std::fs::read_to_string(fixture("p01.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = lines.len() / 3;
    std::fs::write(&path, format!("{}\n", lines[..head].join("\n"))).unwrap();
    let p = path.clone();
    let mut harness = harness_of(move || ViewerApp::new_following_for_test(&p));
    harness.step();
    assert!(harness.state().is_following());
    harness.run();
    open_tab(&mut harness, "Policy");
    let first = harness
        .state()
        .policy_report()
        .expect("a report")
        .checks
        .len();
    assert!(first > 0 && first < 40, "{first} checks in the first third");

    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    let middle = 2 * lines.len() / 3;
    std::io::Write::write_all(
        &mut file,
        format!("{}\n", lines[head..middle].join("\n")).as_bytes(),
    )
    .unwrap();
    for _ in 0..3 {
        harness.step();
    }
    let second = harness.state().policy_report().unwrap().checks.len();
    assert!(
        second > first,
        "{second} > {first}: the tab updates as checks arrive"
    );
    std::io::Write::write_all(
        &mut file,
        format!("{}\n", lines[middle..].join("\n")).as_bytes(),
    )
    .unwrap();
    for _ in 0..3 {
        harness.step();
    }
    assert_eq!(harness.state().event_count(), lines.len() - 1);
    let report = harness.state().policy_report().unwrap();
    assert_eq!(
        report.checks.len(),
        40,
        "as many checks as the whole log has"
    );
    assert_eq!(report.disagreements(), 0);
    harness.get_by_label("No divergence: 40 checks, 0 disagree");
}

/// One threshold per view: after a what-if at T 0.7 the Compactions tab's header, its counts
/// and its verdicts are all judged at 0.7 × 16000 = 11200, and the header says whose T it is;
/// the strip's menu then moves all three together.
#[test]
fn the_compactions_tab_judges_by_the_one_threshold_its_header_names() {
    use surface_ui::StripCommand;
    let path = fixture("p01.jsonl");
    let mut harness = harness_of(move || ViewerApp::new_for_test(&path));
    harness.run();
    crate::ui_support::what_if_at(&mut harness, 0.7);
    open_tab(&mut harness, "Compactions");
    harness.get_by_label("window 16000, threshold 11200 (T 0.7, the Policy tab's)");
    assert!(harness.query_by_label_contains("threshold 12800").is_none());
    let audit = harness.state().compaction_audit().unwrap().clone();
    assert_eq!(audit.threshold, Some(11200));
    let report = harness.state().policy_report().expect("a verify report");
    assert_eq!(report.settings.threshold_ratio, 0.7, "the verdicts' T");

    crate::ui_support::command(&mut harness, StripCommand::SetThresholdRatio(0.95));
    harness.run();
    harness.get_by_label("window 16000, threshold 15200 (T 0.95, the strip's)");
    assert_eq!(harness.state().policy_settings().threshold_ratio, 0.95);
    let cells = verdict_cells(&harness);
    assert!(
        cells
            .iter()
            .any(|(_, c)| c.contains("14603 < threshold 15200")),
        "the verdicts follow the strip's T: {cells:#?}"
    );
}
