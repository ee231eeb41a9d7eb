//! Why the cache missed, in the viewer (docs/cost.md, issue #58): the Request view's change
//! against the previous request (the identical prefix folded into one line, the first change
//! named as `cost --requests` names it, a link to the compaction), the context strip's marks
//! of each cache break by cause with their legend and toggle, and the Compactions tab's
//! cache-lost figure opening the request after the compaction.

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use surface_ui::{NavCommand, SideTab, ViewerApp, WindowCommand};

use crate::ui_support::command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn harness_on(path: PathBuf) -> Harness<'static, ViewerApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        .allow_missing_glyphs()
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    harness.run();
    harness
}

/// The Request view at the agent call of seq `seq`.
fn request_at(harness: &mut Harness<'_, ViewerApp>, seq: u64) {
    command(harness, WindowCommand::ShowTab(SideTab::Request));
    command(harness, NavCommand::GoToSeq(seq));
}

/// p02's prune at seq 212 shadows messages from the 11th on: the agent call at seq 252 sends
/// the first ten as the call before it did, then the prune's replacement.
#[test]
fn the_request_view_folds_the_identical_prefix_and_names_the_replace_it_follows() {
    let mut harness = harness_on(fixture("policy/p02.jsonl"));
    request_at(&mut harness, 252);
    let request = harness.state().shown_request().expect("a request").clone();
    assert_eq!(request.message_seq, Some(252));
    harness.get_by_label_contains("Against the previous request (agent call seq");
    let fold = harness.get_by_label_contains("10 messages identical to the previous request · ");
    assert!(fold.rect().top() < 1000.0, "the fold is in view");
    harness.get_by_label("first change: replaced by prune seq 212 at message 10");
    harness.get_by_label("3483 tokens");
    harness.get_by_label("3222 tokens");
    // The fold opens to the ten messages; the link goes to the prune.
    let first = format!("{:>6}", request.messages[0].seq);
    assert!(harness.query_by_label(&first).is_none(), "folded");
    harness
        .get_by_label_contains("10 messages identical to the previous request")
        .click();
    harness.run();
    harness.get_by_label(&first);
    harness.get_by_label("go to the prune (seq 212)").click();
    harness.run();
    assert_eq!(harness.state().selected_seq(), Some(212));
    // The session's first request has nothing to compare with.
    command(&mut harness, NavCommand::Home);
    command(&mut harness, NavCommand::NextModelCall);
    harness.get_by_label("The session's first request: there is nothing to compare it with.");
}

/// A log without cache figures: the cache read and the provider miss are not reported, not 0.
#[test]
fn without_cache_figures_the_request_view_says_not_reported() {
    let path = fixture("upstream/v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let mut harness = harness_on(path);
    request_at(&mut harness, 28);
    harness.get_by_label("first change: replaced by summary seq 21 at message 0");
    harness.get_by_label("the first change is here: replaced by summary seq 21 at message 0");
    assert_eq!(harness.query_all_by_label("not reported").count(), 2);
    harness.get_by_label("266 tokens");
}

/// p01 breaks the cache at eight summaries' and one tools change's requests (and at its
/// summarizers after a prune): every break marked, the legend naming both causes.
#[test]
fn the_strip_marks_each_cache_break_by_cause_and_its_toggle_hides_them() {
    let mut harness = harness_on(fixture("policy/p01.jsonl"));
    let marks = harness.state().strip_break_marks();
    assert!(marks.len() >= 10, "{marks:?}");
    assert_eq!(harness.state().strip_cache_breaks(), Some(marks.len()));
    let legend = "cache breaks (first change) by cause:";
    let node = harness.get_by_label_contains(legend);
    let text = {
        let n = node.accesskit_node();
        n.value().or_else(|| n.label()).unwrap_or_default()
    };
    assert!(
        text.contains("◆replace") && text.contains("■tools"),
        "{text}"
    );
    assert!(!text.contains("edit") && !text.contains("insert"), "{text}");
    // A click on the mark of the call at seq 994 (the tools changed) opens its request.
    let (at, _) = *marks
        .iter()
        .find(|m| m.1 == 994)
        .expect("a mark at seq 994");
    let strip = harness.get_by_label("Context strip").rect();
    harness.drag_at(strip.left_top() + at);
    harness.run();
    harness.drop_at(strip.left_top() + at);
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Request);
    let request = harness.state().shown_request().expect("a request");
    assert_eq!(request.message_seq, Some(994));
    harness.get_by_label("first change: the tools changed at tool 0");
    // The toggle hides the marks and their legend, and is remembered.
    harness
        .get_by_role_and_label(Role::CheckBox, "cache breaks")
        .click();
    harness.run();
    assert!(!harness.state().cache_breaks_shown());
    assert_eq!(harness.state().strip_cache_breaks(), None);
    assert!(harness.query_by_label_contains(legend).is_none());
    harness
        .get_by_role_and_label(Role::CheckBox, "cache breaks")
        .click();
    harness.run();
    assert_eq!(harness.state().strip_cache_breaks(), Some(marks.len()));
}

/// The cache lost of p02's prune at seq 212 came from the agent call at seq 252.
#[test]
fn the_compactions_cache_lost_figure_opens_the_request_after_the_compaction() {
    let mut harness = harness_on(fixture("policy/p02.jsonl"));
    harness.get_by_label("Compactions").click();
    harness.run();
    // The column lies past the panel's default width: the table scrolls sideways to it.
    harness.get_by_label("compaction seq 212").hover();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(-2000.0, 0.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run();
    let lost = harness.get_by_label("cache lost seq 212").rect();
    assert!(lost.right() <= 1600.0, "scrolled into view: {lost:?}");
    harness.get_by_label("cache lost seq 212").click();
    harness.run();
    assert_eq!(harness.state().side_tab(), SideTab::Request);
    let request = harness.state().shown_request().expect("a request");
    assert_eq!(request.message_seq, Some(252));
    harness.get_by_label("first change: replaced by prune seq 212 at message 10");
}
