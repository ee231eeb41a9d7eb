//! The compaction audit against `check` on the same generated log, measured in the same run
//! (target: `audit` at most twice `check`, docs/audit.md) — as the two commands run them
//! (read the JSONL, replay to the end, then check it, or price it with the meter beside the
//! compaction scan and audit it with its texts read a block ahead, on every core as the CLI
//! does), and their in-memory parts alone (`check_report` against `meter_and_scan_of` +
//! `audit_read_ahead`).
//! The ratios of the medians are printed at the end of each group.

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use surface_analysis::audit::LostTerms;
use surface_engine::{DEFAULT_THRESHOLD_RATIO, EventLog, Surface, check_report};
use surface_passes::{audit_read_ahead, meter_and_scan_of};
use surface_store::read_jsonl;

/// What `check` computes once the file is read.
fn check_part(log: &EventLog) -> usize {
    let surface = Surface::at_end(log);
    check_report(log, &surface).findings.len()
}

/// What `audit` computes once the file is read.
fn audit_part(log: &EventLog) -> usize {
    let surface = Surface::at_end(log);
    let (meter, scan) = meter_and_scan_of(log, &surface, true);
    let ratio = DEFAULT_THRESHOLD_RATIO;
    audit_read_ahead(log, &surface, &meter, ratio, &scan, LostTerms::Read)
        .replaces
        .len()
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn bench_audit(c: &mut Criterion) {
    for (label, events) in [("10k", 10_000), ("1M", 1_000_000)] {
        let bytes = common::log_bytes(events, true);
        let log = read_jsonl(bytes.clone(), None).expect("no progress, no cancel");
        let mut group = c.benchmark_group(format!("audit/{label}"));
        if events >= 1_000_000 {
            common::configure_large(&mut group, 15);
        }
        group.bench_function("baseline: check (read + replay + check_report)", |b| {
            b.iter_batched(
                || bytes.clone(),
                |owned| check_part(&read_jsonl(owned, None).expect("no cancel")),
                BatchSize::LargeInput,
            )
        });
        group.bench_function(
            "audit (read + replay + meter_and_scan_of + audit_read_ahead)",
            |b| {
                b.iter_batched(
                    || bytes.clone(),
                    |owned| audit_part(&read_jsonl(owned, None).expect("no cancel")),
                    BatchSize::LargeInput,
                )
            },
        );
        group.bench_function("baseline: check_report on a loaded log", |b| {
            b.iter(|| check_part(black_box(&log)))
        });
        group.bench_function(
            "meter_and_scan_of + audit_read_ahead on a loaded log",
            |b| b.iter(|| audit_part(black_box(&log))),
        );
        group.finish();

        // The target is a ratio: both medians again, back to back, and their quotient.
        let runs = if events >= 1_000_000 { 5 } else { 21 };
        let check = median(runs, || {
            black_box(check_part(
                &read_jsonl(bytes.clone(), None).expect("no cancel"),
            ));
        });
        let full = median(runs, || {
            black_box(audit_part(
                &read_jsonl(bytes.clone(), None).expect("no cancel"),
            ));
        });
        let check_mem = median(runs, || {
            black_box(check_part(&log));
        });
        let audit_mem = median(runs, || {
            black_box(audit_part(&log));
        });
        println!(
            "audit/{label}: {} events, {} replace ops · audit / check = {:.2} \
             ({:.1} ms / {:.1} ms; target ≤ 2) · in memory {:.2} ({:.1} ms / {:.1} ms)",
            log.len(),
            audit_part(&log),
            full.as_secs_f64() / check.as_secs_f64(),
            full.as_secs_f64() * 1e3,
            check.as_secs_f64() * 1e3,
            audit_mem.as_secs_f64() / check_mem.as_secs_f64(),
            audit_mem.as_secs_f64() * 1e3,
            check_mem.as_secs_f64() * 1e3,
        );
    }
}

criterion_group!(benches, bench_audit);
criterion_main!(benches);
