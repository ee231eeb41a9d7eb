//! The SSE2 classification of a 64-byte block, four 16-byte registers at a time. Compiled
//! only for x86_64 targets with SSE2 enabled (all of them: it is part of the baseline), so the
//! safe wrappers at the bottom may call the `#[target_feature(enable = "sse2")]` helpers.

use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8,
};

use super::{StringMasks, UnitMasks};

/// One bit per byte of `block` where `test` (on 16 bytes at a time) sets the byte's top bit.
///
/// # Safety
/// The CPU must support SSE2.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn mask_by(block: &[u8; 64], test: impl Fn(__m128i) -> __m128i) -> u64 {
    let mut mask = 0u64;
    for k in 0..4 {
        // SAFETY: the load reads `block[16 * k..16 * k + 16]`, inside the array (`loadu`
        // takes any alignment); SSE2 is enabled in this function.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>()) };
        let bits = _mm_movemask_epi8(test(v)) as u16;
        mask |= u64::from(bits) << (16 * k);
    }
    mask
}

/// Bytes equal to `b`.
#[inline]
#[target_feature(enable = "sse2")]
fn eq(v: __m128i, b: u8) -> __m128i {
    _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))
}

#[inline]
#[target_feature(enable = "sse2")]
fn or(a: __m128i, b: __m128i) -> __m128i {
    _mm_or_si128(a, b)
}

/// Bytes `>= b` (unsigned): `max(v, b) == v`.
#[inline]
#[target_feature(enable = "sse2")]
fn at_least(v: __m128i, b: u8) -> __m128i {
    _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(b as i8)), v)
}

/// Bytes `<= b` (unsigned): `max(v, b) == b`.
#[inline]
#[target_feature(enable = "sse2")]
fn at_most(v: __m128i, b: u8) -> __m128i {
    let limit = _mm_set1_epi8(b as i8);
    _mm_cmpeq_epi8(_mm_max_epu8(v, limit), limit)
}

/// # Safety
/// The CPU must support SSE2.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn string_sse2(block: &[u8; 64]) -> StringMasks {
    // SAFETY: SSE2 is enabled in this function (the caller's promise).
    unsafe {
        StringMasks {
            special: mask_by(block, |v| or(eq(v, b'"'), eq(v, b'\\'))),
            // The sign bits are the high bytes: no compare needed.
            high: mask_by(block, |v| v),
        }
    }
}

/// # Safety
/// The CPU must support SSE2.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn structural_sse2(block: &[u8; 64]) -> u64 {
    // `[` (0x5B) and `]` (0x5D) are `{` (0x7B) and `}` (0x7D) without bit 5 (0x20): setting
    // it folds each pair into one compare (no other byte folds onto them).
    // SAFETY: SSE2 is enabled in this function (the caller's promise).
    unsafe {
        mask_by(block, |v| {
            let folded = or(v, _mm_set1_epi8(0x20));
            or(eq(v, b'"'), or(eq(folded, b'{'), eq(folded, b'}')))
        })
    }
}

/// # Safety
/// The CPU must support SSE2.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn units_sse2(block: &[u8; 64]) -> UnitMasks {
    // SAFETY: SSE2 is enabled in this function (the caller's promise).
    unsafe {
        UnitMasks {
            // A continuation byte (0x80..=0xBF) is, as a signed byte, less than -64.
            continuation: mask_by(block, |v| _mm_cmplt_epi8(v, _mm_set1_epi8(-64))),
            four: mask_by(block, |v| at_least(v, 0xF0)),
        }
    }
}

/// # Safety
/// The CPU must support SSE2.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn string_end_sse2(block: &[u8; 64]) -> u64 {
    // SAFETY: SSE2 is enabled in this function (the caller's promise).
    unsafe {
        mask_by(block, |v| {
            or(or(eq(v, b'"'), eq(v, b'\\')), at_most(v, 0x1f))
        })
    }
}

// The safe entry points. This module is compiled only under `cfg(target_feature = "sse2")`,
// so every CPU the program runs on has SSE2.

#[inline(always)]
pub fn classify_string(block: &[u8; 64]) -> StringMasks {
    // SAFETY: SSE2 is enabled at compile time (this module's `cfg`).
    unsafe { string_sse2(block) }
}

#[inline(always)]
pub fn classify_structural(block: &[u8; 64]) -> u64 {
    // SAFETY: SSE2 is enabled at compile time (this module's `cfg`).
    unsafe { structural_sse2(block) }
}

#[inline(always)]
pub fn classify_units(block: &[u8; 64]) -> UnitMasks {
    // SAFETY: SSE2 is enabled at compile time (this module's `cfg`).
    unsafe { units_sse2(block) }
}

#[inline(always)]
pub fn classify_string_end(block: &[u8; 64]) -> u64 {
    // SAFETY: SSE2 is enabled at compile time (this module's `cfg`).
    unsafe { string_end_sse2(block) }
}
