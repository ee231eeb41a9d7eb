//! Surface: a full build (`Surface::at_end`) against a plain pass over the event records, and
//! delta processing of the last 1,000 events — `Surface::catch_up` alone, against the full
//! build it avoids, and the whole live-follow step (parse the new lines, `EventLog::extend`,
//! `catch_up`), against a full reload (`load` bench).

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use surface_engine::{EventLog, OpSlot, Surface};
use surface_store::{parse_body, read_jsonl};

/// New events in the delta.
const DELTA: usize = 1_000;
/// Events applied just before the delta, untimed, so that the log's and the surface's
/// vectors have grown the way they do in a long-running follow (not exact-capacity clones).
const WARM: usize = 64;

/// Byte offset and 1-based line number of the start of `line`.
fn line_start(bytes: &[u8], line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    memchr::memchr_iter(b'\n', bytes)
        .nth(line as usize - 2)
        .map_or(bytes.len(), |i| i + 1)
}

/// The baseline: one pass over the records, as cheap as any surface build could be.
fn scan(log: &EventLog) -> usize {
    log.events
        .iter()
        .filter(|e| log.types.is_eligible(e.kind) && e.op() != OpSlot::None)
        .count()
}

/// A log and its surface read up to a line start, before the last ~`DELTA` events, with
/// the positions of the warm-up delta and of the measured delta.
struct Base {
    log: EventLog,
    surface: Surface,
    warm_at: usize,
    warm_line: u32,
    from: usize,
    line: u32,
}

impl Base {
    fn new(bytes: &[u8], full: &EventLog) -> Base {
        let n = full.len();
        let line = full.events[n - DELTA].line;
        let warm_line = full.events[n - DELTA - WARM].line;
        let (warm_at, from) = (line_start(bytes, warm_line), line_start(bytes, line));
        let log = read_jsonl(bytes[..warm_at].to_vec(), None).expect("not cancelled");
        let surface = Surface::at_end(&log);
        Base {
            log,
            surface,
            warm_at,
            warm_line,
            from,
            line,
        }
    }

    /// A fresh copy, warmed by one small delta (clones have exact capacities; the warm-up
    /// grows them as a long-running follow would have), holding the whole file's text.
    fn follow(&self, bytes: &[u8]) -> Follow {
        let mut log = self.log.clone();
        let mut surface = self.surface.clone();
        log.append_text(&bytes[self.warm_at..self.from]);
        let text = log.stable_text().expect("an owned log");
        let warm = parse_body(text, self.warm_at, self.warm_line, None).expect("not cancelled");
        log.extend(warm);
        surface.catch_up(&log);
        log.append_text(&bytes[self.from..]);
        Follow {
            log,
            surface,
            from: self.from,
            line: self.line,
        }
    }
}

/// A follow state right before the measured delta.
struct Follow {
    log: EventLog,
    surface: Surface,
    from: usize,
    line: u32,
}

impl Follow {
    /// Parses the new lines and extends the log (the surface is not caught up yet).
    fn read_delta(mut self) -> Follow {
        let text = self.log.stable_text().expect("an owned log");
        let batch = parse_body(text, self.from, self.line, None).expect("not cancelled");
        self.log.extend(batch);
        self
    }

    /// Brings the surface up to date with the log.
    fn catch_up(mut self) -> Follow {
        self.surface.catch_up(&self.log);
        self
    }

    /// The whole live-follow step: parse the new lines, extend the log, catch the surface up.
    fn apply(self) -> Follow {
        self.read_delta().catch_up()
    }
}

fn bench_surface(c: &mut Criterion) {
    for (label, events) in [("10k", 10_000), ("1M", 1_000_000)] {
        let bytes = common::log_bytes(events, true);
        let full = read_jsonl(bytes.clone(), None).expect("not cancelled");
        let mut group = c.benchmark_group(format!("surface/{label}"));
        if events >= 1_000_000 {
            common::configure_large(&mut group, 8);
        }
        group.bench_function("baseline: scan records", |b| {
            b.iter(|| scan(black_box(&full)))
        });
        group.bench_function("full build (at_end)", |b| {
            b.iter(|| Surface::at_end(black_box(&full)))
        });
        let base = Base::new(&bytes, &full);
        let before = base.follow(&bytes);
        let new_events = full.len() - before.log.len();
        let done = before.apply();
        assert_eq!(done.log.len(), full.len(), "the delta reaches the end");
        assert_eq!(done.surface.len(), Surface::at_end(&full).len());
        let label = format!("delta {new_events} events: catch_up");
        group.bench_function(label, |b| {
            b.iter_batched(
                || base.follow(&bytes).read_delta(),
                Follow::catch_up,
                BatchSize::LargeInput,
            )
        });
        let label = format!("delta {new_events} events: parse + extend + catch_up");
        group.bench_function(label, |b| {
            b.iter_batched(|| base.follow(&bytes), Follow::apply, BatchSize::LargeInput)
        });
        group.finish();
    }
}

criterion_group!(benches, bench_surface);
criterion_main!(benches);
