//! The portable classification of a 64-byte block: eight bytes at a time in a `u64` (SWAR,
//! "SIMD within a register"). Each test leaves the top bit of every byte it selects set and
//! every other bit clear; one multiplication then gathers the eight top bits into a byte of
//! the mask. Used where no SIMD path is compiled in; on x86_64 the tests hold it equal to SSE2.

use super::{StringMasks, UnitMasks};

/// 0x01 in every byte.
const ONES: u64 = u64::MAX / 255;
/// The top bit of every byte.
const HIGH: u64 = ONES << 7;
/// The low seven bits of every byte.
const LOW: u64 = !HIGH;

/// The eight words of a block, little-endian (byte k of a word is block byte k of its eight).
#[inline(always)]
fn words(block: &[u8; 64]) -> [u64; 8] {
    core::array::from_fn(|w| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&block[8 * w..8 * w + 8]);
        u64::from_le_bytes(word)
    })
}

/// The top bits of `flags` (nothing else set), one per byte, gathered into the low eight
/// bits: moved down to bit 8i, the bit of byte i is multiplied up by 56 - 7i to 56 + i. Every
/// product term lands on a bit position of its own, so no carry disturbs the top byte.
#[inline(always)]
fn gather(flags: u64) -> u64 {
    (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// One bit per byte of `block` where `test` (on a word) sets the byte's top bit.
#[inline(always)]
fn mask_by(block: &[u8; 64], test: impl Fn(u64) -> u64) -> u64 {
    words(block).iter().enumerate().fold(0, |mask, (w, &word)| {
        mask | gather(test(word) & HIGH) << (8 * w)
    })
}

/// Bytes of `x` equal to `b`: a byte of `x ^ b` is zero exactly when adding 0x7F to its low
/// seven bits leaves the top bit clear and its own top bit is clear (no carry between bytes).
#[inline(always)]
fn eq(x: u64, b: u8) -> u64 {
    let t = x ^ (ONES * u64::from(b));
    !(((t & LOW) + LOW) | t) & HIGH
}

/// Bytes `< b` (unsigned, `b <= 0x80`): top bit clear, and the low bits plus `0x80 - b` do not
/// reach it.
#[inline(always)]
fn below(x: u64, b: u8) -> u64 {
    !(((x & LOW) + ONES * u64::from(0x80 - b)) | x) & HIGH
}

/// Bytes `>= b` (unsigned, `b >= 0x80`): top bit set, and the low bits plus `0x100 - b` reach
/// the top bit.
#[inline(always)]
fn at_least(x: u64, b: u8) -> u64 {
    ((x & LOW) + ONES * (0x100 - u64::from(b))) & x & HIGH
}

#[inline(always)]
pub fn classify_string(block: &[u8; 64]) -> StringMasks {
    StringMasks {
        special: mask_by(block, |x| eq(x, b'"') | eq(x, b'\\')),
        high: mask_by(block, |x| x),
    }
}

#[inline(always)]
pub fn classify_structural(block: &[u8; 64]) -> u64 {
    // `[` and `]` are `{` and `}` without bit 5, as in the SSE2 path.
    mask_by(block, |x| {
        let folded = x | (ONES * 0x20);
        eq(x, b'"') | eq(folded, b'{') | eq(folded, b'}')
    })
}

#[inline(always)]
pub fn classify_units(block: &[u8; 64]) -> UnitMasks {
    UnitMasks {
        // 0x80..=0xBF: top bit set, bit 6 (moved up to the top bit) clear.
        continuation: mask_by(block, |x| x & !(x << 1)),
        four: mask_by(block, |x| at_least(x, 0xF0)),
    }
}

#[inline(always)]
pub fn classify_string_end(block: &[u8; 64]) -> u64 {
    mask_by(block, |x| eq(x, b'"') | eq(x, b'\\') | below(x, 0x20))
}
