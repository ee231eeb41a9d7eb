//! Times the phases of `surface-viewer check` on one JSONL log, each on its own and on one
//! thread unless said: read, line split, JSON validation, envelope decode, records, surface,
//! meter (its load-time findings pass and the full meter the viewer builds), findings.
//! `cargo run --release --example check-phases -- FILE [ROUNDS]`; figures in
//! `docs/performance.md`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use surface_viewer::engine::Meter;
use surface_viewer::engine::{Surface, check_report, meter::meter_findings};
use surface_viewer::store::{parse_body, read_jsonl};

/// The envelope fields the reader picks (a copy of `store::envelope::RawEnvelope`).
#[derive(Deserialize)]
#[allow(dead_code)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    type_name: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    seq: Option<&'a RawValue>,
    #[serde(borrow, default)]
    time: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(rename = "surfaceOp", borrow, default)]
    surface_op: Option<&'a RawValue>,
    #[serde(rename = "sourceEventSeqs", borrow, default)]
    sources: Option<&'a RawValue>,
    #[serde(borrow, default)]
    seq0: Option<&'a RawValue>,
    #[serde(borrow, default)]
    time0: Option<&'a RawValue>,
}

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

fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty())
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

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: check-phases FILE [ROUNDS]");
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("ROUNDS"));
    let (read, bytes) = best(rounds, || std::fs::read(&path).expect("readable file"));
    let (split, n) = best(rounds, || memchr::memchr_iter(b'\n', &bytes).count());
    let (validate, _) = best(rounds, || {
        lines(&bytes)
            .filter(|l| serde_json::from_slice::<IgnoredAny>(l).is_ok())
            .count()
    });
    let (envelope, _) = best(rounds, || {
        lines(&bytes)
            .filter(|l| {
                std::str::from_utf8(l)
                    .ok()
                    .and_then(|t| serde_json::from_str::<Envelope<'_>>(t).ok())
                    .is_some()
            })
            .count()
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
    let (surface_t, surface) = best(rounds, || Surface::at_end(&log));
    let (meter_findings_t, _) = best(rounds, || meter_findings(&log).len());
    let (findings, report) = best(rounds, || check_report(&log, &surface));
    let (meter_t, _) = best(rounds, || black_box(Meter::build(&log, &surface)).len());
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let records = serial_parse.saturating_sub(envelope).saturating_sub(split);
    let serial = [
        ("read (fs::read)", read),
        ("line split (memchr)", split),
        ("JSON validation (serde_json, IgnoredAny)", validate),
        (
            "envelope decode (on top of validation)",
            envelope.saturating_sub(validate),
        ),
        ("records (parse minus split, decode)", records),
        ("surface (Surface::at_end)", surface_t),
        ("meter findings (payload parses)", meter_findings_t),
        ("other findings", findings.saturating_sub(meter_findings_t)),
    ];
    let total: Duration = serial.iter().map(|(_, d)| *d).sum();
    println!(
        "file: {path} ({} bytes, {n} lines, {} events, {} findings)",
        bytes.len(),
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
        "reader as shipped (read_jsonl, two threads): {:.1} ms",
        ms(reader)
    );
    println!(
        "full meter the viewer builds (Meter::build, one thread): {:.1} ms",
        ms(meter_t)
    );
    println!(
        "surface checkpoints: {} bytes ({:.2} per event)",
        surface.checkpoint_bytes(),
        surface.checkpoint_bytes() as f64 / log.len().max(1) as f64
    );
}
