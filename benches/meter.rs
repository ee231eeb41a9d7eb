//! The token meter: building it over a whole log (every event's figure, what the context strip
//! draws) against loading that log (`read_jsonl` + `Surface::at_end`, measured in the same
//! run: the target is a quarter of it) — on one thread (`Meter::build`) and as the viewer and
//! the CLI build it, prices read on every core (`cli::meter_of`) — and a replay step with the
//! meter's figure read at the new cursor against a bare step (target: at most twice).

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Bencher, Criterion, criterion_group, criterion_main};
use surface_engine::{EventLog, Meter, Surface};
use surface_store::read_jsonl;

/// Times `iters` single forward steps (with the meter's figure when `meter` is given),
/// rewinding (untimed) at the end of the log.
fn steps(b: &mut Bencher<'_>, log: &EventLog, surface: &mut Surface, meter: Option<&Meter>) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let room = log.len() - surface.cursor();
            if room == 0 {
                surface.seek(log, 0);
                continue;
            }
            let n = left.min(room as u64);
            let t = Instant::now();
            for _ in 0..n {
                black_box(surface.step_forward(log));
                if let Some(m) = meter {
                    black_box(m.at(surface.cursor()));
                }
            }
            total += t.elapsed();
            left -= n;
        }
        total
    });
}

fn bench_meter(c: &mut Criterion) {
    for (label, events, pack) in [
        ("10k", 10_000, true),
        ("1M", 1_000_000, true),
        ("1M-unpacked", 1_000_000, false),
    ] {
        let bytes = common::log_bytes(events, pack);
        let mut group = c.benchmark_group(format!("meter/{label}"));
        if events >= 1_000_000 {
            common::configure_large(&mut group, 10);
        }
        group.bench_function("baseline: load (read_jsonl + Surface::at_end)", |b| {
            b.iter_batched(
                || bytes.clone(),
                |owned| {
                    let log = read_jsonl(owned, None).expect("no progress, no cancel");
                    let surface = Surface::at_end(&log);
                    (log, surface)
                },
                BatchSize::LargeInput,
            )
        });
        let log = read_jsonl(bytes, None).expect("no progress, no cancel");
        let mut surface = Surface::at_end(&log);
        group.bench_function("Meter::build (every event's figure)", |b| {
            b.iter(|| Meter::build(black_box(&log), &surface))
        });
        group.bench_function("cli::meter_of (prices read on every core)", |b| {
            b.iter(|| surface_cli::meter_of(black_box(&log), &surface))
        });
        let meter = Meter::build(&log, &surface);
        group.bench_function("baseline: step_forward", |b| {
            steps(b, &log, &mut surface, None)
        });
        group.bench_function("step_forward + the meter's figure", |b| {
            steps(b, &log, &mut surface, Some(&meter))
        });
        group.finish();
    }
}

criterion_group!(benches, bench_meter);
criterion_main!(benches);
