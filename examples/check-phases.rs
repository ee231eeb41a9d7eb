//! Times the phases of `surface-viewer check` on one JSONL log, each on its own and on one
//! thread unless said: read, line split, envelope (the validating scanner with its serde_json
//! fallback, as the reader runs it; serde_json alone for comparison), records, surface, meter
//! (its load-time findings pass and the full meter the viewer builds), findings.
//! `cargo run --release --example check-phases -- FILE [ROUNDS]`; figures in
//! `docs/performance.md`.

// A measuring tool: an unwrap that fails stops the run with its message.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::de::IgnoredAny;
use surface_engine::{EventLog, Meter};
use surface_engine::{
    Surface, check_report, check_report_joined, detect_era, meter::meter_findings,
};
use surface_store::{Envelope, parse_body, read_jsonl, scan_envelope};

/// The best of `rounds` runs of `f`.
fn best<T>(rounds: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut min = Duration::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        let v = f();
        min = min.min(t.elapsed());
        out = Some(v);
    }
    (min, out.expect("at least one round"))
}

/// The non-empty lines of `bytes`, split with memchr as the reader does.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let line = &bytes[at..end];
            at = end + 1;
            if !line.is_empty() {
                return Some(line);
            }
        }
        None
    })
}

/// Byte ranges of at most ~2 MB ending at line ends (parse_body stays on one thread).
fn chunks(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    while at < bytes.len() {
        let want = (at + (2 << 20)).min(bytes.len());
        let end = memchr::memchr(b'\n', &bytes[want..]).map_or(bytes.len(), |i| want + i + 1);
        out.push((at, end));
        at = end;
    }
    out
}

/// The reading phases, each timed on its own.
struct ReadPhases {
    read: Duration,
    split: Duration,
    /// Lines in the file.
    n: usize,
    validate: Duration,
    serde_envelope: Duration,
    scan: Duration,
    scanned: usize,
    fell_back: usize,
    serial_parse: Duration,
    reader: Duration,
}

/// Times reading `path`: the file, its lines, the envelopes three ways, the records on one
/// thread, and the reader as shipped, whose log it gives back with the bytes.
fn read_phases(path: &str, rounds: usize) -> (ReadPhases, Vec<u8>, EventLog) {
    let (read, bytes) = best(rounds, || std::fs::read(path).expect("readable file"));
    let (split, n) = best(rounds, || memchr::memchr_iter(b'\n', &bytes).count());
    let (validate, _) = best(rounds, || {
        lines(&bytes)
            .filter(|l| serde_json::from_slice::<IgnoredAny>(l).is_ok())
            .count()
    });
    let (serde_envelope, _) = best(rounds, || {
        lines(&bytes)
            .filter(|l| {
                std::str::from_utf8(l)
                    .ok()
                    .and_then(|t| Envelope::from_json(t).ok())
                    .is_some()
            })
            .count()
    });
    // As the reader does it: UTF-8 check, the scanner, serde_json when the scanner gives up.
    let (scan, (scanned, fell_back)) = best(rounds, || {
        let (mut scanned, mut fell_back) = (0usize, 0usize);
        for l in lines(&bytes) {
            let Ok(t) = std::str::from_utf8(l) else {
                continue;
            };
            if black_box(scan_envelope(t)).is_some() {
                scanned += 1;
            } else {
                fell_back += 1;
                black_box(Envelope::from_json(t).ok());
            }
        }
        (scanned, fell_back)
    });
    let ranges = chunks(&bytes);
    let (serial_parse, _) = best(rounds, || {
        ranges
            .iter()
            .map(|&(a, b)| {
                parse_body(&bytes[..b], a, 1, None).map_or(0, |batch| batch.events.len())
            })
            .sum::<usize>()
    });
    let (reader, log) = best(rounds, || {
        read_jsonl(bytes.clone(), None).expect("not cancelled")
    });
    let phases = ReadPhases {
        read,
        split,
        n,
        validate,
        serde_envelope,
        scan,
        scanned,
        fell_back,
        serial_parse,
        reader,
    };
    (phases, bytes, log)
}

/// The two halves `check` runs side by side on two cores (the longer one bounds it), each
/// timed.
fn check_halves(log: &EventLog, surface: &Surface, rounds: usize) -> (Duration, Duration) {
    best(rounds, || {
        let mut times = (Duration::ZERO, Duration::ZERO);
        check_report_joined(log, surface, |turns, rest| {
            let t = Instant::now();
            let scan = turns();
            times.0 = t.elapsed();
            let t = Instant::now();
            let found = rest();
            times.1 = t.elapsed();
            (scan, found)
        });
        times
    })
    .1
}

/// The heap the meter and the surface hold, per event.
fn print_heaps(log: &EventLog, surface: &Surface) {
    let meter = Meter::build(log, surface);
    println!(
        "meter heap: {} bytes ({:.2} per event)",
        meter.heap_bytes(),
        meter.heap_bytes() as f64 / log.len().max(1) as f64
    );
    println!(
        "surface checkpoints: {} bytes ({:.2} per event)",
        surface.checkpoint_bytes(),
        surface.checkpoint_bytes() as f64 / log.len().max(1) as f64
    );
    println!(
        "surface heap: {} bytes ({:.2} per event; {} of {} events are nodes, {:.1} %)",
        surface.heap_bytes(),
        surface.heap_bytes() as f64 / log.len().max(1) as f64,
        surface.node_count(),
        log.len(),
        100.0 * surface.node_count() as f64 / log.len().max(1) as f64
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: check-phases FILE [ROUNDS]");
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("ROUNDS"));
    let (r, bytes, log) = read_phases(&path, rounds);
    let (surface_t, surface) = best(rounds, || Surface::at_end(&log));
    let (meter_findings_t, _) = best(rounds, || meter_findings(&log).len());
    let (findings, report) = best(rounds, || check_report(&log, &surface));
    let (meter_t, _) = best(rounds, || black_box(Meter::build(&log, &surface)).len());
    let (era_t, era) = best(rounds, || detect_era(&log));
    let (turns_pass, rest_pass) = check_halves(&log, &surface, rounds);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let records = r
        .serial_parse
        .saturating_sub(r.scan)
        .saturating_sub(r.split);
    let serial = [
        ("read (fs::read)", r.read),
        ("line split (memchr)", r.split),
        (
            "envelope scan (validating scanner + serde fallback)",
            r.scan,
        ),
        ("records (parse minus split, scan)", records),
        ("surface (Surface::at_end)", surface_t),
        ("meter findings (payload parses)", meter_findings_t),
        ("other findings", findings.saturating_sub(meter_findings_t)),
    ];
    let total: Duration = serial.iter().map(|(_, d)| *d).sum();
    println!(
        "file: {path} ({} bytes, {} lines, {} events, {} findings)",
        bytes.len(),
        r.n,
        log.len(),
        report.findings.len()
    );
    println!("| phase (one thread) | ms | share |");
    println!("|---|---:|---:|");
    for (name, d) in serial {
        println!(
            "| {name} | {:.1} | {:.0} % |",
            ms(d),
            100.0 * d.as_secs_f64() / total.as_secs_f64()
        );
    }
    println!("| **sum** | {:.1} | 100 % |", ms(total));
    println!();
    println!(
        "envelope lines: {} scanned, {} left to serde_json ({:.3} %)",
        r.scanned,
        r.fell_back,
        100.0 * r.fell_back as f64 / (r.scanned + r.fell_back).max(1) as f64
    );
    println!(
        "serde_json instead of the scanner: validation (IgnoredAny) {:.1} ms, envelope decode (Envelope::from_json) {:.1} ms; scanner {:.2}x faster than serde's envelope decode",
        ms(r.validate),
        ms(r.serde_envelope),
        r.serde_envelope.as_secs_f64() / r.scan.as_secs_f64()
    );
    println!(
        "reader as shipped (read_jsonl, two threads): {:.1} ms",
        ms(r.reader)
    );
    println!(
        "check's two halves (one thread each when run side by side): turn/message, seq and provenance passes {:.1} ms, every other pass {:.1} ms",
        ms(turns_pass),
        ms(rest_pass)
    );
    println!(
        "full meter the viewer builds (Meter::build, one thread): {:.1} ms",
        ms(meter_t)
    );
    println!(
        "era detection (detect_era): {:.3} ms; era: {} — {}",
        ms(era_t),
        era.span(),
        era.reason
    );
    print_heaps(&log, &surface);
}
