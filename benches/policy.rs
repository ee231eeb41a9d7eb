//! The policy lab's replay (docs/policy.md) against baselines measured in the same run: on
//! the bundled sample and on a generated 1M-event log (packed, HEAD format), the replay alone
//! — log, surface, meter and the policy's input already built, as the GUI recomputes it on a
//! settings change (targets: ≤ 5 ms on the sample, ≤ 50 ms at 1M) — beside the meter's build
//! on the same log, and the whole `policy` pipeline in memory beside `check`'s (target ≤ 1.5×).
//! The ratios of the medians are printed at the end of each group.

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};
use surface_engine::{EventLog, Meter, Surface, check_report};
use surface_store::read_jsonl;

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

/// What `check` computes once the file is read.
fn check_part(log: &EventLog) -> usize {
    let surface = Surface::at_end(log);
    check_report(log, &surface).findings.len()
}

/// What `policy` computes once the file is read: replay to the end, the meter (on every core,
/// as the CLI builds it), the policy's input and one verify replay.
fn policy_part(log: &EventLog) -> usize {
    let surface = Surface::at_end(log);
    let meter = surface_cli::meter_of(log, &surface);
    let input = PolicyInput::build(log, &surface, &meter);
    let Ok(settings) = PolicySettings::default().validate(meter.window_at(log.len())) else {
        return 0;
    };
    replay(log, &meter, &input, &settings, ReplayMode::Verify)
        .checks
        .len()
}

fn bench_policy(c: &mut Criterion) {
    let sample = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sample.session.jsonl"
    ))
    .expect("the bundled sample");
    for (label, bytes) in [
        ("sample", sample),
        ("1M", common::log_bytes(1_000_000, true)),
    ] {
        let large = label == "1M";
        let log = read_jsonl(bytes.clone(), None).expect("no progress, no cancel");
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        let window = meter.window_at(log.len());
        let defaults = PolicySettings::default()
            .validate(window)
            .expect("the defaults");
        let other = PolicySettings {
            threshold_ratio: 0.7,
            ..*defaults
        }
        .validate(window)
        .expect("T 0.7");
        let mut group = c.benchmark_group(format!("policy/{label}"));
        if large {
            common::configure_large(&mut group, 10);
        }
        group.bench_function("baseline: Meter::build (one thread)", |b| {
            b.iter(|| Meter::build(black_box(&log), &surface).len())
        });
        group.bench_function("replay: verify", |b| {
            b.iter(|| {
                replay(
                    &log,
                    &meter,
                    black_box(&input),
                    &defaults,
                    ReplayMode::Verify,
                )
            })
        });
        group.bench_function("replay: what-if at T 0.7", |b| {
            b.iter(|| replay(&log, &meter, black_box(&input), &other, ReplayMode::WhatIf))
        });
        group.bench_function("PolicyInput::build", |b| {
            b.iter(|| {
                PolicyInput::build(black_box(&log), &surface, &meter)
                    .checks()
                    .len()
            })
        });
        group.finish();

        let runs = if large { 5 } else { 51 };
        let meter_build = median(runs, || {
            black_box(Meter::build(&log, &surface).len());
        });
        let verify = median(runs, || {
            black_box(replay(&log, &meter, &input, &defaults, ReplayMode::Verify));
        });
        let what_if = median(runs, || {
            black_box(replay(&log, &meter, &input, &other, ReplayMode::WhatIf));
        });
        let build = median(runs, || {
            black_box(PolicyInput::build(&log, &surface, &meter));
        });
        let check = median(runs, || {
            black_box(check_part(
                &read_jsonl(bytes.clone(), None).expect("no cancel"),
            ));
        });
        let policy = median(runs, || {
            black_box(policy_part(
                &read_jsonl(bytes.clone(), None).expect("no cancel"),
            ));
        });
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "policy/{label}: {} events, {} checks · replay verify {:.3} ms, what-if {:.3} ms \
             (meter build {:.3} ms: {:.2}× / {:.2}×) · input build {:.1} ms · \
             policy / check in memory = {:.2} ({:.1} ms / {:.1} ms; target ≤ 1.5)",
            log.len(),
            input.checks().len(),
            ms(verify),
            ms(what_if),
            ms(meter_build),
            verify.as_secs_f64() / meter_build.as_secs_f64(),
            what_if.as_secs_f64() / meter_build.as_secs_f64(),
            ms(build),
            policy.as_secs_f64() / check.as_secs_f64(),
            ms(policy),
            ms(check),
        );
    }
}

criterion_group!(benches, bench_policy);
criterion_main!(benches);
