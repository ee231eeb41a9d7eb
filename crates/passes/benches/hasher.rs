//! The hasher of the engine's maps over keys from the log (`surface_engine::KeyMap`): the Fx
//! hash the audit used before (fixed, so chosen keys can collide it at will), std's
//! `RandomState` (SipHash-1-3), `ahash` and `foldhash` (both seeded per process), on the key
//! mix the audit's term index hashes — the salient terms of every surface-eligible node of a
//! generated log, looked up in order (a hit for most, an insert for new ones), and the nodes'
//! event indices inserted and removed. The figures and the choice are in `KeyMap`'s doc comment.

// A benchmark: an unwrap that fails stops the run, as it should.
// The shipped crates deny `unwrap` and `expect` (`[workspace.lints.clippy]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use surface_analysis::audit::{for_each_term, node_text};
use surface_synth::{SynthConfig, generate};

/// The Fx hash (rustc's): rotate, xor, multiply, one word at a time — the audit's hasher
/// before `KeyMap`, kept here as the figure to beat.
#[derive(Clone, Copy, Default)]
struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The keys of a generated log: every salient term of every eligible node in log order, and
/// the nodes' event indices.
fn keys() -> (Vec<String>, Vec<u32>) {
    let mut bytes = Vec::new();
    generate(&SynthConfig::with_events(20_000), &mut bytes).expect("writing to a Vec");
    let log = surface_store::read_jsonl(bytes, None).expect("no progress, no cancel");
    let mut terms = Vec::new();
    let mut nodes = Vec::new();
    for idx in log.indices().filter(|&i| log.is_eligible(i)) {
        let text = node_text(&log, idx).text;
        for_each_term(&text, |t| terms.push(t.text.to_string()));
        nodes.push(idx.0);
    }
    (terms, nodes)
}

/// The term index's work with hasher `S`: each term looked up, inserted when new (as
/// `TermIndex::id`), and every node inserted then removed (as `TermIndex::add` / `remove`).
fn index_with<S: BuildHasher + Default>(terms: &[String], nodes: &[u32]) -> usize {
    let mut ids: HashMap<Box<str>, u32, S> = HashMap::default();
    for term in terms {
        if !ids.contains_key(term.as_str()) {
            let id = ids.len() as u32;
            ids.insert(term.as_str().into(), id);
        }
    }
    let mut held: HashMap<u32, u32, S> = HashMap::default();
    for &n in nodes {
        held.insert(n, n);
    }
    for &n in nodes.iter().step_by(2) {
        held.remove(&n);
    }
    ids.len() + held.len()
}

fn bench_hashers(c: &mut Criterion) {
    let (terms, nodes) = keys();
    let mut group = c.benchmark_group("hasher/term index of a 20k-event log");
    group.throughput(Throughput::Elements((terms.len() + nodes.len()) as u64));
    let expected = index_with::<BuildHasherDefault<FxHasher>>(&terms, &nodes);
    assert_eq!(
        index_with::<foldhash::fast::RandomState>(&terms, &nodes),
        expected
    );
    group.bench_function("fx (fixed, before)", |b| {
        b.iter(|| index_with::<BuildHasherDefault<FxHasher>>(black_box(&terms), &nodes))
    });
    group.bench_function("std RandomState (SipHash-1-3)", |b| {
        b.iter(|| index_with::<std::hash::RandomState>(black_box(&terms), &nodes))
    });
    group.bench_function("ahash RandomState", |b| {
        b.iter(|| index_with::<ahash::RandomState>(black_box(&terms), &nodes))
    });
    group.bench_function("foldhash fast RandomState", |b| {
        b.iter(|| index_with::<foldhash::fast::RandomState>(black_box(&terms), &nodes))
    });
    group.bench_function("foldhash quality RandomState", |b| {
        b.iter(|| index_with::<foldhash::quality::RandomState>(black_box(&terms), &nodes))
    });
    group.bench_function("surface_engine::KeyMap", |b| {
        b.iter(|| {
            let mut ids: surface_engine::KeyMap<Box<str>, u32> = Default::default();
            for term in black_box(&terms) {
                if !ids.contains_key(term.as_str()) {
                    let id = ids.len() as u32;
                    ids.insert(term.as_str().into(), id);
                }
            }
            let mut held: surface_engine::KeyMap<u32, u32> = Default::default();
            for &n in &nodes {
                held.insert(n, n);
            }
            for &n in nodes.iter().step_by(2) {
                held.remove(&n);
            }
            ids.len() + held.len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_hashers);
criterion_main!(benches);
