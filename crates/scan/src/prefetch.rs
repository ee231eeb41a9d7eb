//! A hint to the CPU to start loading bytes that will be read soon: passes that visit a few
//! events scattered over a large log (the meter reads only messages) otherwise wait for
//! memory at the start of every event. Only a hint: it never faults and changes no result.

/// Bytes per cache line.
const LINE: usize = 64;

/// Asks for the first `lines` cache lines of `bytes` (x86_64 with SSE; nothing elsewhere).
#[inline(always)]
pub fn prefetch(bytes: &[u8], lines: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    for k in 0..lines.min(bytes.len().div_ceil(LINE)) {
        // SAFETY: SSE is enabled at compile time (this loop's `cfg`, part of the x86_64
        // baseline); `k * LINE < bytes.len()`, so the address is inside `bytes`.
        unsafe { prefetch_line(bytes.as_ptr().add(k * LINE)) };
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = (bytes, lines);
}

/// One `prefetcht0`: only a hint, it never faults and never reads into the program, whatever
/// the address.
///
/// # Safety
/// The CPU must support SSE.
#[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
#[inline]
#[target_feature(enable = "sse")]
unsafe fn prefetch_line(at: *const u8) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // Safe to call with SSE enabled (it is, in this function): a hint that never faults.
    _mm_prefetch::<_MM_HINT_T0>(at.cast());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_length_is_fine() {
        for len in [0, 1, 63, 64, 65, 1000] {
            prefetch(&vec![7u8; len], 4);
        }
        prefetch(&[], 100);
    }
}
