//! A mapped log rewritten in place under the reader — same size, other bytes, invalid UTF-8
//! included — as `cp other.jsonl session.jsonl` does to an open file. A mapping's unwritten
//! pages show the file's current bytes, so every read may see new bytes: nothing validated
//! once may be trusted again (ARCHITECTURE.md, "The contract of mapped bytes"). The readers
//! must neither panic nor misbehave; what they report is whatever the bytes said.

use crate::binary::bin;
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use surface_engine::{EventIdx, EventText, Meter, Surface, check, derive_messages};
use surface_store::{OnTruncate, Options, Reading};

/// How the command line opens a log: mapped, a truncation ends the process.
fn mapped() -> Options<'static> {
    Options {
        reading: Reading::Map(OnTruncate::Exit),
        ..Options::default()
    }
}
use surface_synth::{SynthConfig, generate};

/// A realistic generated log of at least 9 MiB (the size the store maps).
fn big_log(dir: &Path) -> (PathBuf, Vec<u8>) {
    let mut bytes = Vec::new();
    generate(&SynthConfig::with_events(120_000), &mut bytes).unwrap();
    assert!(bytes.len() > 9 << 20, "{} bytes", bytes.len());
    let path = dir.join("rewritten.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// A small deterministic generator (xorshift64*).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Overwrites 4 KiB blocks of `path` in place with random bytes (invalid UTF-8 most of the
/// time, sometimes quotes, braces and newlines) until `stop` is set; the size never changes.
fn scribble(path: &Path, len: usize, stop: &AtomicBool) -> usize {
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let mut block = [0u8; 4096];
    let mut writes = 0;
    while !stop.load(Ordering::Relaxed) {
        for b in block.iter_mut() {
            let r = noise.next();
            *b = match r % 8 {
                0 => b"\"{}[]\\\n:,"[(r >> 8) as usize % 9],
                1 => b'a' + (r >> 8) as u8 % 26,
                _ => (r >> 16) as u8,
            };
        }
        let at = (noise.next() as usize % (len / 4096)) * 4096;
        file.seek(SeekFrom::Start(at as u64)).unwrap();
        file.write_all(&block).unwrap();
        writes += 1;
        std::thread::yield_now();
    }
    writes
}

/// Stops the scribbler when dropped, so that a failing reader (a panic unwinding out of the
/// scope) does not leave the writer running and the scope waiting for it forever.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[test]
fn the_engine_reads_a_mapped_log_rewritten_under_it_without_panicking() {
    if !cfg!(target_os = "linux") {
        return; // other platforms read files, they never map them
    }
    assert!(surface_store::install_map_guard(), "the guard maps");
    let dir = tempfile::tempdir().unwrap();
    let (path, original) = big_log(dir.path());
    let stop = AtomicBool::new(false);
    let (rounds, writes) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| scribble(&path, original.len(), &stop));
        let stopper = StopOnDrop(&stop);
        let mut rounds = 0;
        for _ in 0..2 {
            // The load, the surface, findings, the meter and every message: each reads the
            // mapped bytes again while they change.
            let opened = surface_store::open(&path, &mapped()).expect("still a log");
            assert!(
                opened.log.text_may_change(),
                "the mapping says it may change"
            );
            let log = &opened.log;
            let surface = Surface::at_end(log);
            let findings = check(log, &surface);
            let meter = Meter::build(log, &surface);
            let messages = derive_messages(log, &surface);
            // What was indexed at load stays as it was: the index is the reader's own.
            assert_eq!(meter.len(), log.len(), "one figure per event");
            assert!(messages.len() <= surface.len());
            assert!(findings.iter().all(|f| f.line.is_none_or(|l| l >= 1)));
            rounds += 1;
        }
        drop(stopper);
        (rounds, writer.join().unwrap())
    });
    assert_eq!(rounds, 2);
    assert!(
        writes > 10,
        "the file was rewritten while it was read ({writes} writes)"
    );
}

#[test]
fn the_command_line_on_a_log_rewritten_under_it_never_panics() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, original) = big_log(dir.path());
    let stop = AtomicBool::new(false);
    let codes = std::thread::scope(|scope| {
        let writer = scope.spawn(|| scribble(&path, original.len(), &stop));
        let stopper = StopOnDrop(&stop);
        let mut codes = Vec::new();
        for args in [
            &["surface", "--json"][..],
            &["check", "--json"][..],
            &["tokens", "--csv"][..],
            &["surface", "--json"][..],
        ] {
            let out = bin()
                .args(&args[..1])
                .arg(&path)
                .args(&args[1..])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            codes.push((args[0], out.status.code()));
        }
        drop(stopper);
        writer.join().unwrap();
        codes
    });
    for (command, code) in codes {
        // 0 clean, 1 findings, 2 trouble: never 101 (a panic) or a signal (`None`).
        assert!(
            matches!(code, Some(0..=2)),
            "{command} ended with {code:?} on a log rewritten under it"
        );
    }
}

/// What every public accessor hands out for the events at `picks` and their packed rows:
/// views, owned or borrowed, kept as they were handed out.
struct Handed<'a> {
    bytes: Vec<std::borrow::Cow<'a, [u8]>>,
    json: Vec<std::borrow::Cow<'a, str>>,
    rows: Vec<std::borrow::Cow<'a, [u8]>>,
    heads: Vec<std::borrow::Cow<'a, [u8]>>,
    values: Vec<Option<serde_json::Value>>,
}

fn hand_out<'a>(log: &'a surface_engine::EventLog, picks: &[EventIdx]) -> Handed<'a> {
    let rows: Vec<u32> = picks
        .iter()
        .filter_map(|&i| match log.event(i).text() {
            EventText::PackedMember { row, .. } => Some(row),
            _ => None,
        })
        .collect();
    Handed {
        bytes: picks.iter().map(|&i| log.event_bytes(i)).collect(),
        json: picks.iter().map(|&i| log.event_json(i)).collect(),
        rows: rows
            .iter()
            .filter_map(|&r| log.packed_row_bytes(r))
            .collect(),
        heads: rows
            .iter()
            .filter_map(|&r| log.packed_row_head(r, 16))
            .collect(),
        values: picks.iter().map(|&i| log.event_value(i)).collect(),
    }
}

/// The check of the contract of mapped bytes through the public API: a mapped log is loaded,
/// every accessor is driven and what it hands out is kept; then the file is rewritten in place
/// — same size, every byte `0xFF`, invalid UTF-8 — and each kept view must still read what a
/// copy of the original log reads. A view over the mapping (a `&str` or `&[u8]` borrowed from
/// it) would now read `0xFF` bytes. Then the accessors are driven over the rewritten bytes:
/// every text they hand out is valid UTF-8, and the passes neither panic nor stop.
#[test]
fn no_accessor_hands_out_a_view_over_the_mapping() {
    if !cfg!(target_os = "linux") {
        return;
    }
    assert!(surface_store::install_map_guard(), "the guard maps");
    let dir = tempfile::tempdir().unwrap();
    let (path, original) = big_log(dir.path());
    let copy = surface_store::open(&path, &surface_store::Options::default())
        .unwrap()
        .log;
    let opened = surface_store::open(&path, &mapped()).unwrap();
    let log = &opened.log;
    assert!(log.text_is_shared() && log.text_may_change(), "mapped");
    assert!(log.stable_text().is_none(), "no view of the whole mapping");
    let packed = log
        .indices()
        .find(|&i| matches!(log.event(i).text(), EventText::PackedMember { .. }));
    let mut picks: Vec<EventIdx> = (0..log.len() as u32).step_by(997).map(EventIdx).collect();
    picks.extend(packed);
    picks.push(EventIdx(log.len() as u32 - 1));
    let handed = hand_out(log, &picks);
    let want = hand_out(&copy, &picks);
    assert!(!handed.rows.is_empty(), "the generated log has packed rows");

    std::fs::write(&path, vec![0xFF; original.len()]).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len() as usize,
        original.len()
    );
    assert!(
        log.event_bytes(picks[0]).iter().all(|&b| b == 0xFF),
        "the mapping shows the rewritten bytes"
    );
    assert_eq!(handed.bytes, want.bytes, "event_bytes lent the mapping");
    assert_eq!(handed.json, want.json, "event_json lent the mapping");
    assert_eq!(handed.rows, want.rows, "packed_row_bytes lent the mapping");
    assert_eq!(handed.heads, want.heads, "packed_row_head lent the mapping");
    assert_eq!(handed.values, want.values);

    // Over the rewritten bytes: text is valid (lossy) UTF-8, a line is no JSON value (a packed
    // member is rebuilt around a `data` it cannot read), nothing panics.
    let after = hand_out(log, &picks);
    for text in &after.json {
        assert!(std::str::from_utf8(text.as_bytes()).is_ok());
    }
    for (&i, value) in picks.iter().zip(&after.values) {
        if matches!(log.event(i).text(), EventText::Line { .. }) {
            assert!(value.is_none(), "0xFF bytes are no JSON");
        }
    }
    let surface = Surface::at_end(log);
    let _ = check(log, &surface);
    let _ = Meter::build(log, &surface);
    let _ = derive_messages(log, &surface);
}
