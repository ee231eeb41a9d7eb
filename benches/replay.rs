//! Replay: one `step_forward`, one `step_back`, and a `seek` across the whole log on a
//! surface whose events were all processed once (re-apply and undo are O(1) splices, so the
//! step cost must not grow with the log). Baseline: rebuilding the surface from zero, which is
//! what every step would cost without undo.
//!
//! Jumps go through checkpoints, so the whole-log jump must cost about the same at 10k and 1M
//! events (target: 1M ≤ 1.5 × 10k, both in this run). "no checkpoints" is the same jump with
//! checkpoints turned off: the jump before them, which applies every list change in between.

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Bencher, Criterion, criterion_group, criterion_main};
use surface_engine::{EventLog, Surface};
use surface_store::read_jsonl;

fn load(events: u64) -> EventLog {
    read_jsonl(common::log_bytes(events, true), None).expect("not cancelled")
}

/// Times `iters` single steps, sweeping the whole log and rewinding (untimed) at its end.
fn steps(b: &mut Bencher<'_>, log: &EventLog, surface: &mut Surface, forward: bool) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let room = if forward {
                log.len() - surface.cursor()
            } else {
                surface.cursor()
            };
            if room == 0 {
                surface.seek(log, if forward { 0 } else { log.len() });
                continue;
            }
            let n = left.min(room as u64);
            let t = Instant::now();
            for _ in 0..n {
                if forward {
                    black_box(surface.step_forward(log));
                } else {
                    black_box(surface.step_back());
                }
            }
            total += t.elapsed();
            left -= n;
        }
        total
    });
}

/// Times `seek(0 → end)`, rewinding (untimed) before each.
fn seeks(b: &mut Bencher<'_>, log: &EventLog, surface: &mut Surface) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            surface.seek(log, 0);
            let t = Instant::now();
            surface.seek(log, log.len());
            total += t.elapsed();
        }
        total
    });
}

fn bench_replay(c: &mut Criterion) {
    for (label, events) in [("10k", 10_000), ("1M", 1_000_000)] {
        let log = load(events);
        let mut surface = Surface::at_end(&log);
        let mut group = c.benchmark_group(format!("replay/{label}"));
        if events >= 1_000_000 {
            common::configure_large(&mut group, 8);
        }
        group.bench_function("step_forward", |b| steps(b, &log, &mut surface, true));
        group.bench_function("step_back", |b| steps(b, &log, &mut surface, false));
        group.bench_function("seek 0 -> end (whole log)", |b| {
            seeks(b, &log, &mut surface)
        });
        let mut plain = Surface::with_checkpoint_every(&log, usize::MAX);
        plain.seek(&log, log.len());
        group.bench_function("seek 0 -> end, no checkpoints (before)", |b| {
            seeks(b, &log, &mut plain)
        });
        group.bench_function("baseline: rebuild (at_end)", |b| {
            b.iter(|| Surface::at_end(black_box(&log)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench_replay);
criterion_main!(benches);
