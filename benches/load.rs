//! Load: JSONL bytes to an engine ready to show the surface (`read_jsonl` + `Surface::at_end`),
//! against the floor of any JSONL reader, a plain `memchr` line-split pass over the same bytes.
//! Logs come from the synthetic generator (HEAD shape, packed chunk rows; the 1M case also
//! without packing).

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use surface_engine::Surface;
use surface_store::read_jsonl;

/// The baseline: split into lines with `memchr`, touching each line's length.
fn memchr_lines(bytes: &[u8]) -> (usize, usize) {
    let (mut lines, mut longest, mut at) = (0, 0, 0);
    for end in memchr::memchr_iter(b'\n', bytes) {
        lines += 1;
        longest = longest.max(end - at);
        at = end + 1;
    }
    (lines, longest)
}

fn bench_load(c: &mut Criterion) {
    let cases = [
        ("10k", 10_000, true),
        ("1M", 1_000_000, true),
        ("1M-unpacked", 1_000_000, false),
    ];
    for (label, events, pack) in cases {
        let bytes = common::log_bytes(events, pack);
        let mut group = c.benchmark_group(format!("load/{label}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        if events >= 1_000_000 {
            common::configure_large(&mut group, 10);
        }
        group.bench_function("baseline: memchr line split", |b| {
            b.iter(|| memchr_lines(black_box(&bytes)))
        });
        group.bench_function("read_jsonl + Surface::at_end", |b| {
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
        group.finish();
    }
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
