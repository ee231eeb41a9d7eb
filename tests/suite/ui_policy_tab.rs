//! The Policy tab on a laptop screen (issue #34, item 1): the verdict table always in view under
//! a pane that scrolls, each row with the reason it disagrees, the first divergence a link to its
//! check, "can't judge: no window" as a neutral verdict (tab, Compactions table), and the
//! what-if curve over the context strip in its own legend entry, kept while other tabs are open
//! and hidden by its toggle.

use crate::ui_support::{command, laptop, what_if_at};

use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::{SideTab, ViewerApp, WindowCommand};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// The top of the replay bar under the panels: a row above it is on screen.
fn panels_bottom(harness: &Harness<'_, ViewerApp>) -> f32 {
    harness.get_by_label("⇤ Start").rect().top()
}

#[test]
fn at_1280_by_720_the_verdict_table_is_in_view_with_each_rows_reason() {
    // p02 ran at T 0.7: at the default 0.8 fifteen of its forty checks disagree.
    let mut harness = laptop(fixture("policy/p02.jsonl"));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    let report = harness.state().policy_report().expect("a verify report");
    let first = report
        .checks
        .iter()
        .find(|c| c.agrees == Some(false))
        .expect("a disagreement");
    // Rows are virtualised: only rows on screen exist. The first disagreeing check is one,
    // inside the window, above the replay bar.
    // A check is named by the step it comes before, and the column says so.
    harness.get_by_label("before step");
    let label = format!("check seq {}", first.step_start_seq);
    let row = harness.get_by_label(&label);
    let rect = row.rect();
    assert!(
        rect.bottom() <= panels_bottom(&harness),
        "{label} at {rect:?}: below the panels"
    );
    // The reason is in the row, not only in its hover.
    let reason = row.value().unwrap_or_default();
    assert!(
        reason.contains("the log compacted below the threshold"),
        "{reason}"
    );
}

#[test]
fn the_first_divergence_is_a_link_to_its_check() {
    let mut harness = laptop(fixture("policy/p02.jsonl"));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    let report = harness.state().policy_report().expect("a verify report");
    let d = report.first_divergence.clone().expect("a divergence");
    let check = report
        .checks
        .iter()
        .find(|c| c.step_start_seq == d.step_start_seq && c.agrees == Some(false))
        .expect("its check");
    assert_ne!(harness.state().cursor(), Some(check.cursor));
    // The reason follows the link as one sentence: "… seq 76: why", no gap before the colon.
    let link = harness
        .get_by_label(&format!("First divergence at seq {}", d.step_start_seq))
        .rect();
    let reason = harness.get_by_label(&format!(": {}", d.why)).rect();
    // On one line the colon touches the link; a reason too long for the panel wraps, and then
    // its text starts on the link's line (its rectangle spans from the row's left edge).
    let one_line = reason.height() <= link.height() + 0.5;
    if one_line {
        assert!(
            (reason.left() - link.right()).abs() < 0.5,
            "a gap of {} px between the link and its colon",
            reason.left() - link.right()
        );
    } else {
        assert!(
            (reason.top() - link.top()).abs() < 0.5,
            "{reason:?} {link:?}"
        );
    }
    harness
        .get_by_label(&format!("First divergence at seq {}", d.step_start_seq))
        .click();
    harness.run();
    assert_eq!(harness.state().cursor(), Some(check.cursor));
}

#[test]
fn a_log_without_a_window_reads_cant_judge_not_differs() {
    // It compacts once with no context window in force.
    let mut harness = laptop(fixture("meter/compaction-recovery.meter.jsonl"));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    let report = harness.state().policy_report().expect("a verify report");
    assert_eq!(report.disagreements(), 0, "{:?}", report.first_divergence);
    let unjudged = report
        .checks
        .iter()
        .find(|c| c.cant_judge())
        .expect("the compaction's check");
    harness.get_by_label("No divergence: 2 checks, 0 disagree");
    let label = format!("check seq {}", unjudged.step_start_seq);
    let reason = harness.get_by_label(&label).value().unwrap_or_default();
    assert!(reason.starts_with("can't judge: no window"), "{reason}");
    assert!(
        harness
            .query_by_label_contains("the policy no-window")
            .is_none()
    );
    // The Compactions table says the same of the compaction, in its neutral colour.
    command(&mut harness, WindowCommand::ShowTab(SideTab::Compactions));
    let audit = harness
        .state()
        .compaction_audit()
        .expect("the audit")
        .clone();
    let compactions = audit
        .replaces
        .iter()
        .filter(|r| r.kind != surface_analysis::audit::ReplaceKind::Other);
    for r in compactions {
        let cell = harness
            .get_by_label(&format!("compaction seq {}", r.seq))
            .value()
            .unwrap_or_default();
        assert_eq!(cell, "can't judge: no window", "seq {}", r.seq);
    }
}

#[test]
fn the_what_if_curve_stays_over_the_strip_with_its_legend_until_hidden() {
    let mut harness = laptop(fixture("policy/p01.jsonl"));
    command(&mut harness, WindowCommand::ShowTab(SideTab::Policy));
    assert_eq!(harness.state().strip_what_if(), None, "verify draws none");
    what_if_at(&mut harness, 0.7);
    harness.run();
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    harness.get_by_label_contains("what-if total (T 0.7)");
    // Another tab: the curve stays.
    command(&mut harness, WindowCommand::ShowTab(SideTab::Inspector));
    harness.run();
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
    harness.get_by_label_contains("what-if threshold");
    // Its toggle hides it, and its legend entry.
    harness.get_by_label("what-if curve").click();
    harness.run();
    assert_eq!(harness.state().strip_what_if(), None);
    assert!(harness.query_by_label_contains("what-if total").is_none());
    harness.get_by_label("what-if curve").click();
    harness.run();
    assert_eq!(harness.state().strip_what_if(), Some(0.7));
}
