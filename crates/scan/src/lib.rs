//! Byte scanning shared by the store's line reader and the engine's meter: 64 bytes of JSON
//! classified at once into bit masks ([`byte_masks`]: SSE2 on x86_64, a word-at-a-time
//! fallback elsewhere) and a prefetch hint ([`prefetch`]).
//!
//! One of the two crates of the workspace that may hold `unsafe` (the other is the store's OS
//! layer): the SIMD intrinsics here. Why it is sound:
//!
//! - Every intrinsic sits in a `#[target_feature(enable = "sse2")]` (or `"sse"`) `unsafe fn`
//!   whose one precondition is that the CPU has the feature. Those functions are compiled only
//!   under `cfg(all(target_arch = "x86_64", target_feature = "sse2"))`: the feature is enabled
//!   for the whole build (it is part of x86_64's baseline), so every CPU the program can run
//!   on has it, and the safe wrappers may call them. No run-time detection is needed, and
//!   nothing above the baseline (AVX2) is used.
//! - The only memory they touch: unaligned 16-byte loads (`_mm_loadu_si128`) at offsets 0, 16,
//!   32 and 48 of a `&[u8; 64]` — inside the array, any alignment — and a prefetch hint, which
//!   never faults and never reads into the program.
//! - The portable path (SWAR over `u64`, safe code) and the SIMD path are held equal to each
//!   other and to a byte-at-a-time reference by tests, on every byte value at every position,
//!   and on random texts at every length, start and alignment (ARCHITECTURE.md).

pub mod byte_masks;
pub mod prefetch;
