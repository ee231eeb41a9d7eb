//! Byte scanning shared by the store's line reader and the engine's meter: 64 bytes of JSON
//! classified at once into bit masks ([`byte_masks`]: SSE2 on x86_64, a portable fallback
//! elsewhere) and a prefetch hint ([`prefetch`]).
//!
//! One of the two crates of the workspace that may hold `unsafe` (the other is the store's OS
//! layer): the SIMD intrinsics here. Every block states why it is sound; the portable path and
//! the SIMD path are held equal by tests (ARCHITECTURE.md).

pub mod byte_masks;
pub mod prefetch;
