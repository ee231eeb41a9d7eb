//! Scenario tests of the viewer when another program changes the file it shows: truncated,
//! rewritten in place, appended to, cut mid-event — mapped (a large log) or copied (a small
//! one). The window watches the file on its own thread (`ui/session/file_watch.rs`) every
//! 500 ms, and reads past a truncation as zeros (`store/mapped_file.rs`).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::ViewerApp;

fn harness_for(path: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(32)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl")
}

/// A log the viewer maps, as `surface_ui::run` maps it (with the SIGBUS guard; without it the
/// viewer reads instead of mapping). `None` where the viewer never maps (not Linux).
struct Shown {
    _dir: tempfile::TempDir,
    path: PathBuf,
    harness: Harness<'static, ViewerApp>,
    events: usize,
}

fn large_log_shown() -> Option<Shown> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    assert!(surface_store::install_map_guard());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.session.jsonl");
    common::write_large_log(&path, 9 << 20);
    let harness = harness_for(path.clone());
    let events = harness.state().event_count();
    assert!(events > 10_000, "{events} events");
    Some(Shown {
        _dir: dir,
        path,
        harness,
        events,
    })
}

/// Waits for the watch's next look, draws three frames and returns the banner's text.
fn banner_after_a_look(harness: &mut Harness<'_, ViewerApp>) -> String {
    std::thread::sleep(Duration::from_millis(700));
    for _ in 0..3 {
        harness.run();
    }
    banner(harness)
}

fn banner(harness: &Harness<'_, ViewerApp>) -> String {
    harness
        .state()
        .banner_text()
        .unwrap_or_default()
        .to_string()
}

fn append(path: &Path, line: &str) {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(file, "{line}").unwrap();
}

fn cut_to(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn a_log_truncated_while_shown_is_reopened_with_a_notice() {
    truncated_while_shown(Duration::ZERO);
}

/// The same, when the viewer's periodic look at the file's identity (every 500 ms) comes before
/// any read past the new end: it still says the log shrank, not that it was rewritten.
#[test]
fn a_truncation_seen_by_the_identity_check_first_is_still_a_truncation() {
    truncated_while_shown(Duration::from_millis(600));
}

/// Opens a large log, cuts its file in half, waits `wait`, jumps into the cut half, and checks
/// the viewer reopened the file and said it shrank.
fn truncated_while_shown(wait: Duration) {
    let Some(mut shown) = large_log_shown() else {
        return;
    };
    let (path, harness, before) = (&shown.path, &mut shown.harness, shown.events);
    let text = std::fs::read(path).unwrap();
    let half = text.len() / 2
        + text[text.len() / 2..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap()
        + 1;
    assert_eq!(harness.state().cursor(), Some(before));
    // Another program cuts the log in half while it is shown; jumping to an event in the
    // cut half draws rows whose text lies past the new end: reading them finds the file
    // shrank. (The viewer opens scrolled to the end, so the last rows were already drawn.)
    let far = harness.state().seq_of_event(before * 3 / 4).unwrap();
    cut_to(path, half as u64);
    std::thread::sleep(wait);
    harness
        .state_mut()
        .push_command(surface_ui::NavCommand::GoToSeq(far));
    harness.run();
    harness.run();
    let after = harness.state().event_count();
    assert!(after < before && after > 0, "{before} → {after} events");
    let notice = banner(harness);
    assert!(
        notice.contains("shrank while it was shown") && notice.contains("reopened"),
        "{notice}"
    );
    harness.get_by_label_contains("shrank while it was shown");
}

#[test]
fn a_log_rewritten_in_place_while_shown_is_reopened_with_a_notice() {
    let Some(mut shown) = large_log_shown() else {
        return;
    };
    let (path, harness, before) = (&shown.path, &mut shown.harness, shown.events);
    // Another program rewrites the log in place: the same size, other bytes (the first
    // message's text), no truncation and so no SIGBUS.
    let mut text = std::fs::read(path).unwrap();
    let at = text.windows(5).position(|w| w == b"lorem").unwrap();
    text[at..at + 5].copy_from_slice(b"LOREM");
    {
        use std::io::{Seek as _, Write as _};
        let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.seek(std::io::SeekFrom::Start(0)).unwrap();
        file.write_all(&text).unwrap();
    }
    let notice = banner_after_a_look(harness);
    assert!(
        notice.contains("was rewritten while it was shown") && notice.contains("reopened"),
        "{notice}"
    );
    assert_eq!(
        harness.state().event_count(),
        before,
        "the same events, read again"
    );
}

/// A log another program appends to while it is shown is not reopened: the mapping still
/// shows every byte read, so the window says once that the file grew and how to read the new
/// events, and keeps watching it — a truncation afterwards still reopens it.
#[test]
fn a_log_appended_to_while_shown_is_kept_and_the_growth_told_once() {
    let Some(mut shown) = large_log_shown() else {
        return;
    };
    let (path, harness, before) = (&shown.path, &mut shown.harness, shown.events);
    let last_seq = harness.state().seq_of_event(before - 1).unwrap();
    append(
        path,
        &format!(
            r#"{{"type":"user/message","seq":{},"time":1,"data":{{"content":[{{"type":"text","text":"later"}}]}},"surfaceOp":"append"}}"#,
            last_seq + 1
        ),
    );
    // Nothing is read before the watch's next look.
    let notice = banner_after_a_look(harness);
    assert!(
        notice.contains("grew while it was shown") && notice.contains("Follow"),
        "{notice}"
    );
    harness.get_by_label_contains("grew while it was shown");
    assert_eq!(harness.state().event_count(), before, "not reopened");
    // Told once: dismissed, it does not come back while the file stays as it grew.
    harness.get_by_label("×").click();
    harness.run();
    assert_eq!(harness.state().banner_text(), None, "dismissed");
    assert_eq!(banner_after_a_look(harness), "");
    // Cut below what was read: a truncation, reopened.
    cut_to(path, std::fs::metadata(path).unwrap().len() / 2);
    let notice = banner_after_a_look(harness);
    assert!(notice.contains("shrank while it was shown"), "{notice}");
    assert!(harness.state().event_count() < before);
}

/// A small log (read into a copy, not mapped) is watched too: a growth is told, and a
/// truncation reopens it — the window never shows what the file no longer holds.
#[test]
fn a_small_log_changed_while_shown_is_told_or_reopened_as_a_mapped_one_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.session.jsonl");
    std::fs::copy(sample(), &path).unwrap();
    let mut harness = harness_for(path.clone());
    let before = harness.state().event_count();
    assert!(before > 100, "{before} events");
    let text = std::fs::read_to_string(&path).unwrap();
    append(&path, text.lines().last().unwrap());
    let notice = banner_after_a_look(&mut harness);
    assert!(notice.contains("grew while it was shown"), "{notice}");
    assert_eq!(harness.state().event_count(), before, "kept as read");
    // Cut to its first half: reopened with the events that remain.
    let half: usize = text.lines().take(before / 2).map(|l| l.len() + 1).sum();
    std::fs::write(&path, &text[..half]).unwrap();
    let notice = banner_after_a_look(&mut harness);
    assert!(notice.contains("shrank while it was shown"), "{notice}");
    let after = harness.state().event_count();
    assert!(after < before && after > 0, "{before} → {after} events");
}

/// A log cut mid-event says so in words, first, beside the findings' count.
#[test]
fn a_log_cut_mid_event_says_so_in_the_banner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.session.jsonl");
    let text = std::fs::read(sample()).unwrap();
    let cut = text.len() * 2 / 3;
    assert_ne!(text[cut - 1], b'\n', "cut inside a line");
    std::fs::write(&path, &text[..cut]).unwrap();
    let lines = text[..cut].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut harness = harness_for(path);
    harness.run();
    let banner = banner(&harness);
    assert!(
        banner.starts_with(&format!(
            "The file ends mid-event at line {lines} (still being written, or cut)"
        )),
        "{banner}"
    );
    assert!(banner.contains("warning(s)"), "{banner}");
    harness.get_by_label_contains("ends mid-event");
}

/// A line in the middle that is not an event is said in the banner with its line, so the
/// timeline is never taken for the whole log.
#[test]
fn a_line_that_was_not_read_is_said_in_the_banner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad-line.session.jsonl");
    let text = String::from_utf8(std::fs::read(sample()).unwrap()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(5, "{\"type\": this is not JSON");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut harness = harness_for(path);
    harness.run();
    let banner = banner(&harness);
    assert!(
        banner.starts_with("1 record of this log was not read, the first at line 6: "),
        "{banner}"
    );
}
