//! Scenario tests of the context strip's time axis: T and the View menu switch the x axis
//! between event index and wall-clock time, the cursor stays on its event and a zoom keeps
//! its events, a long idle period shows as empty columns on the time axis only, and the
//! legend under the strip names the axis.

use std::path::{Path, PathBuf};

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use surface_ui::zoom::Zoom;
use surface_ui::{NavCommand, StripCommand, ViewerApp};

/// Idle time inserted in the middle of the sample: half an hour.
const IDLE_MS: i64 = 30 * 60 * 1_000;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.session.jsonl")
}

/// Adds `by` to every `"time":` and `"time0":` number of `line`.
fn shift_times(line: &str, by: i64) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut rest = line;
    while let Some(at) = ["\"time\":", "\"time0\":"]
        .iter()
        .filter_map(|key| rest.find(key).map(|i| i + key.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<i64>() {
            Ok(t) => out.push_str(&(t + by).to_string()),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// The sample with half an hour of idle time before its second half; returns the path.
fn idle_log(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(sample()).expect("sample");
    let lines: Vec<&str> = text.lines().collect();
    let half = lines.len() / 2;
    let shifted: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i >= half {
                shift_times(l, IDLE_MS)
            } else {
                l.to_string()
            }
        })
        .collect();
    let path = dir.join("idle.session.jsonl");
    std::fs::write(&path, shifted.join("\n") + "\n").expect("write log");
    path
}

fn harness(path: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

fn press(harness: &mut Harness<'_, ViewerApp>, key: Key) {
    harness.key_press(key);
    harness.run();
}

#[test]
fn t_switches_the_axis_and_the_cursor_stays_on_its_event() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut h = harness(idle_log(dir.path()));
    h.state_mut().push_command(NavCommand::Seek(100));
    h.run();
    assert!(!h.state().time_axis());
    assert!(!h.state().strip_drawn_on_time());
    h.get_by_label_contains("x: event index");
    press(&mut h, Key::T);
    assert!(h.state().time_axis());
    assert!(h.state().strip_drawn_on_time());
    assert_eq!(h.state().cursor(), Some(100));
    h.get_by_label_contains("x: wall-clock time");
    press(&mut h, Key::T);
    assert!(!h.state().time_axis());
    assert!(!h.state().strip_drawn_on_time());
    assert_eq!(h.state().cursor(), Some(100));
}

#[test]
fn a_long_idle_period_is_a_gap_on_the_time_axis_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut h = harness(idle_log(dir.path()));
    h.run();
    assert_eq!(h.state().strip_idle_columns(), Some(0));
    press(&mut h, Key::T);
    let idle = h.state().strip_idle_columns().expect("strip drawn");
    assert!(idle > 0, "{idle} idle columns");
    // The half hour is one empty stretch (a column's worth of time may go to the events on
    // either side of it).
    let longest = h.state().strip_longest_idle_ms().expect("time axis");
    assert!(
        longest > IDLE_MS as u64 * 9 / 10,
        "longest idle {longest} ms"
    );
    // The same log without the idle half hour has no such gap.
    let mut plain = harness(sample());
    press(&mut plain, Key::T);
    let plain_longest = plain.state().strip_longest_idle_ms().expect("time axis");
    assert!(plain_longest < IDLE_MS as u64 / 2, "{plain_longest} ms");
}

#[test]
fn a_zoom_keeps_its_events_across_the_switch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut h = harness(idle_log(dir.path()));
    let range = Zoom {
        start: 40.0,
        end: 120.0,
    };
    h.state_mut()
        .push_command(StripCommand::SetZoom(Some(range)));
    h.run();
    assert_eq!(h.state().strip_zoom(), Some(range));
    press(&mut h, Key::T);
    let in_time = h.state().strip_zoom().expect("still zoomed");
    assert!(in_time.end > in_time.start);
    press(&mut h, Key::T);
    assert_eq!(h.state().strip_zoom(), Some(range));
}

#[test]
fn the_view_menu_switches_the_axis() {
    let mut h = harness(sample());
    h.run();
    h.get_by_label("View").click();
    h.run();
    h.get_by_label_contains("Time axis on the context strip")
        .click();
    h.run();
    assert!(h.state().time_axis());
}
