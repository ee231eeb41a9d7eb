//! A hint to the CPU to start loading bytes that will be read soon: passes that visit a few
//! events scattered over a large log (the meter reads only messages) otherwise wait for
//! memory at the start of every event. Only a hint: it never faults and changes no result.

/// Bytes per cache line.
const LINE: usize = 64;

/// Asks for the first `lines` cache lines of `bytes` (x86_64; nothing elsewhere).
#[inline(always)]
pub fn prefetch(bytes: &[u8], lines: usize) {
    #[cfg(target_arch = "x86_64")]
    for k in 0..lines.min(bytes.len().div_ceil(LINE)) {
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a hint: it
        // never faults and never reads into the program, whatever the address; this one is
        // inside `bytes` anyway.
        unsafe {
            use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().add(k * LINE).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, lines);
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
