//! Deterministic synthetic session logs in the HEAD-era JSONL shape: a configurable generator
//! for tests and benchmarks, the scripted sessions behind the bundled `assets/` samples, and
//! whole store roots of many sessions (`store.rs`).
//!
//! Everything is written incrementally to a [`std::io::Write`], so a log of a million events
//! never has to be held in memory. The only source of variation is [`SplitMix64`], seeded
//! from [`SynthConfig::seed`]: the same configuration always produces the same bytes.
//!
//! Every generated log is valid: provenance is complete on every replace, turns and steps
//! nest, each `tool/call` precedes its `tool/result` in the same step, each
//! `assistant/message` cites its step's chunk seqs, and every summarizing replace is
//! bracketed by `compaction/start`, `compaction/summary` and `compaction/end` (a failed
//! compaction is a start and an end carrying an `error`, with no replace). Token figures the
//! log records (usage, `shadowedTokenCount`) are the harness meter's prices.

#![forbid(unsafe_code)]

mod generate;
mod generate_policy;
mod json;
mod policy_run;
mod price;
mod sample;
mod sample_fixtures;
mod store;
mod text;
mod writer;

pub use generate::{SynthConfig, generate};
pub use generate_policy::{PolicySynthConfig, generate_with_policy};
pub use policy_run::{CheckRun, MemoryWriter, PolicyRun, SummaryText};
pub use sample::{write_problems_sample, write_sample};
pub use store::{StoreConfig, StoredSession, project_key, write_store};
pub use writer::{
    CONTEXT_WINDOW_EXCEEDED, DEFAULT_CONTEXT_WINDOW, LogWriter, NodeKind, Reply, Streaming,
    SurfaceNode, SynthStats, ToolCall,
};

/// A small, fast, seedable pseudo-random generator (SplitMix64). Not cryptographic.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A value in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent / 100`.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A uniformly chosen element. Panics when `items` is empty (callers pass constant tables).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The SplitMix64 finalizer: a stateless 64-bit hash, used to derive stable ids from seqs.
pub fn mix(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
