//! One frame of the full window (egui_kittest harness, no GPU) with 1k and with 1M events
//! loaded, the cursor in the middle and provenance arrows on (an event with sources is
//! selected). Baseline: the 1k-event frame, measured in the same run; the 1M frame must stay
//! within 1.5× of it, because no panel does work proportional to the log. Then the 1M log with
//! the context strip zoomed to a thousandth of it (steady), zooming in and out at a fixed point
//! on every frame (a new range each frame: the strip's columns are recomputed from the min/max
//! pyramid, O(pixels · log events)) — both must cost no more than the unzoomed 1M frame; the
//! same zooming on the 1k log, which a cost of O(pixels) makes equal — and panning on every
//! frame, where the timeline follows the range and lays out new rows.

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;
use surface_engine::EventIdx;
use surface_synth::{SynthConfig, generate};
use surface_ui::zoom::Zoom;
use surface_ui::{NavCommand, StripCommand, ViewerApp};

/// Writes a generated log of about `events` events and returns its path.
fn log_file(dir: &tempfile::TempDir, events: u64) -> PathBuf {
    let path = dir.path().join(format!("frame-{events}.jsonl"));
    let file = std::fs::File::create(&path).expect("temp file");
    generate(
        &SynthConfig::with_events(events),
        std::io::BufWriter::new(file),
    )
    .expect("write log");
    path
}

/// A harness showing `path` with the cursor in the middle and a cited event selected.
fn harness(path: PathBuf) -> Harness<'static, ViewerApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_max_steps(64)
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path));
    let len = harness.state().event_count();
    let middle = len / 2;
    let selected = harness
        .state()
        .first_event_with_sources_from(middle)
        .unwrap_or(EventIdx(middle as u32));
    harness
        .state_mut()
        .push_command(NavCommand::Seek(selected.get() + 1));
    harness.state_mut().push_command(NavCommand::Select {
        idx: selected,
        reveal: true,
    });
    harness.run();
    harness
}

fn frame(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("frame");
    group.sample_size(30);
    let big = log_file(&dir, 1_000_000);
    for (name, path) in [
        ("1k events (baseline)", log_file(&dir, 1_000)),
        ("1M events", big.clone()),
    ] {
        let mut h = harness(path);
        group.bench_function(name, |b| b.iter(|| h.step()));
    }
    let mut h = harness(big);
    let len = h.state().event_count() as f64;
    let zoomed = Zoom {
        start: len * 0.5,
        end: len * 0.501,
    };
    h.state_mut()
        .push_command(StripCommand::SetZoom(Some(zoomed)));
    h.run();
    group.bench_function("1M events, strip zoomed", |b| b.iter(|| h.step()));
    // Zooming in and out at a fixed point (Ctrl+wheel under a still pointer): a new range
    // every frame, 0.2 % and 30 % of the log around the same centre, so the strip recomputes
    // its columns each frame while the timeline, which follows the range's centre, stays put.
    // The same on the 1k log: a recomputation costs O(pixels), so the two should match.
    group.bench_function("1M events, strip zooming every frame", |b| {
        zoom_every_frame(b, &mut h)
    });
    let mut small = harness(log_file(&dir, 1_000));
    group.bench_function("1k events, strip zooming every frame", |b| {
        zoom_every_frame(b, &mut small)
    });
    // Panning (drag or A/D): a 0.2 % range moved by its own width every frame, back and forth
    // over 64 steps; the timeline follows, so each frame also lays out rows it has not shown.
    let mut k = 0u32;
    group.bench_function("1M events, strip panning every frame", |b| {
        b.iter(|| {
            k += 1;
            let step = f64::from(k % 64).min(f64::from(64 - k % 64));
            let start = len * (0.6 + 0.002 * step);
            let z = Zoom {
                start,
                end: start + len * 0.002,
            };
            h.state_mut().push_command(StripCommand::SetZoom(Some(z)));
            h.step();
        })
    });
    group.finish();
}

/// Frames that each show a new range: alternately 0.2 % and 30 % of the log around 35 %.
fn zoom_every_frame(b: &mut criterion::Bencher<'_>, h: &mut Harness<'static, ViewerApp>) {
    let len = h.state().event_count() as f64;
    let mut k = 0u32;
    b.iter(|| {
        k += 1;
        let half = if k.is_multiple_of(2) { 0.15 } else { 0.001 };
        let z = Zoom {
            start: len * (0.35 - half),
            end: len * (0.35 + half),
        };
        h.state_mut().push_command(StripCommand::SetZoom(Some(z)));
        h.step();
    })
}

criterion_group!(benches, frame);
criterion_main!(benches);
