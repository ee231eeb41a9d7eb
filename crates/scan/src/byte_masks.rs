//! Classifying 64 bytes of JSON text at once into bit masks (bit k for byte k): the string
//! specials (`"`, `\`), the structural bytes a skip needs (`"`, `{`, `}`, `[`, `]`), control
//! bytes, and the bytes that count in a UTF-16 length. SSE2 on x86_64 (part of its baseline,
//! chosen by `cfg(target_feature = "sse2")`), eight bytes to a `u64` word elsewhere (SWAR);
//! the tests hold the two equal to each other and to a byte-at-a-time reference, on every
//! byte value, length and alignment. The store's line scanner and the meter's byte scanner
//! both classify through here.

/// A 64-byte block's masks for walking a string: where it may end and where its bytes are
/// not ASCII.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StringMasks {
    /// `"` or `\`.
    pub special: u64,
    /// Bytes above 0x7F (parts of multi-byte characters): where UTF-16 units and bytes differ.
    pub high: u64,
}

/// A 64-byte block's masks for measuring text that is not all ASCII in UTF-16 units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitMasks {
    /// Continuation bytes (0x80..=0xBF): no UTF-16 unit of their own.
    pub continuation: u64,
    /// First bytes of 4-byte sequences: one more UTF-16 unit each (a surrogate pair).
    pub four: u64,
}

impl UnitMasks {
    /// The UTF-16 units of the `span` bytes selected by `range` (a mask of positions): one per
    /// byte, less the continuation bytes, plus one per 4-byte sequence. (Only for blocks with
    /// high bytes: x86_64's baseline has no population count instruction, so ASCII runs are
    /// measured by their length alone.)
    #[inline(always)]
    pub fn units(&self, range: u64, span: usize) -> usize {
        span - (self.continuation & range).count_ones() as usize
            + (self.four & range).count_ones() as usize
    }
}

/// The string masks of the 64 bytes of `bytes` from `start`; bytes past the end count as
/// spaces.
#[inline]
pub fn string_masks(bytes: &[u8], start: usize) -> StringMasks {
    with_block(bytes, start, classify_string)
}

/// The mask of `"`, `{`, `}`, `[` and `]` (where a container skip must look) of the 64 bytes
/// of `bytes` from `start`; bytes past the end count as spaces.
#[inline]
pub fn structural_mask(bytes: &[u8], start: usize) -> u64 {
    with_block(bytes, start, classify_structural)
}

/// The measuring masks of the 64 bytes of `bytes` from `start`; bytes past the end count as
/// spaces.
#[inline]
pub fn unit_masks(bytes: &[u8], start: usize) -> UnitMasks {
    with_block(bytes, start, classify_units)
}

/// The mask of `"`, `\` and control bytes (below 0x20) of the 64 bytes of `bytes` from
/// `start` (what ends plain string content); bytes past the end count as spaces.
#[inline]
pub fn string_end_mask(bytes: &[u8], start: usize) -> u64 {
    with_block(bytes, start, classify_string_end)
}

/// Masks of a block moved down by `n` positions (`0 < n < 64`): bit k then describes the
/// byte k + n of the block, and the top `n` bits, past its end, are clear.
trait Shifted: Copy {
    fn shifted(self, n: u32) -> Self;
}

impl Shifted for u64 {
    #[inline(always)]
    fn shifted(self, n: u32) -> Self {
        self >> n
    }
}

impl Shifted for StringMasks {
    #[inline(always)]
    fn shifted(self, n: u32) -> Self {
        StringMasks {
            special: self.special >> n,
            high: self.high >> n,
        }
    }
}

impl Shifted for UnitMasks {
    #[inline(always)]
    fn shifted(self, n: u32) -> Self {
        UnitMasks {
            continuation: self.continuation >> n,
            four: self.four >> n,
        }
    }
}

/// Calls `f` on the 64-byte block at `start`, as if `bytes` went on with spaces (a space sets
/// no bit of any mask). A block that runs past the end of a text of 64 bytes or more is read
/// as the text's last 64 bytes, its masks moved down to `start` — no copy: the last block of
/// every line is classified in place. Only shorter texts are copied into a padded block.
#[inline(always)]
fn with_block<T: Shifted>(bytes: &[u8], start: usize, f: impl Fn(&[u8; 64]) -> T) -> T {
    if let Some(block) = bytes.get(start..start.saturating_add(64)) {
        return f(block.try_into().unwrap_or(&[b' '; 64]));
    }
    if start < bytes.len()
        && let Some(base) = bytes.len().checked_sub(64)
        && let Ok(last) = <&[u8; 64]>::try_from(&bytes[base..])
    {
        // `base < start < base + 64`: a shift of 1 to 63.
        return f(last).shifted((start - base) as u32);
    }
    let mut padded = [b' '; 64];
    let rest = bytes.get(start..).unwrap_or(&[]);
    padded[..rest.len()].copy_from_slice(rest);
    f(&padded)
}

/// Skips ASCII digits from `i`, 8 at a time while whole words remain: the position of the
/// first byte that is not one.
#[inline]
pub fn skip_digits(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::MAX / 255;
    while let Some(word) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // A byte is flagged when above '9' (adding 0x46 sets its top bit), below '0'
        // (subtracting 0x30 borrows) or non-ASCII; carries and borrows only reach bytes above
        // a flagged one, so the lowest flagged byte is the first non-digit.
        let non_digit =
            (w.wrapping_add(ONES * 0x46) | w.wrapping_sub(ONES * 0x30) | w) & (ONES << 7);
        if non_digit != 0 {
            return i + (non_digit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// The SIMD path: SSE2 helpers (`#[target_feature(enable = "sse2")]`), compiled where the
/// target enables SSE2 — every x86_64 target, as part of its baseline.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;

/// The portable path: a word at a time. The classification on every other target, and on
/// x86_64 the tests' second implementation.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
mod swar;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use sse2::{classify_string, classify_string_end, classify_structural, classify_units};

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use swar::{classify_string, classify_string_end, classify_structural, classify_units};

/// Which classification this build uses: `"sse2"` or `"swar"` (for tests and figures).
pub const PATH: &str = if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
    "sse2"
} else {
    "swar"
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-at-a-time classification: the plain statement of each mask, the oracle both
    /// fast paths are held to.
    mod reference {
        fn mask_by(block: &[u8; 64], test: impl Fn(u8) -> bool) -> u64 {
            block
                .iter()
                .enumerate()
                .fold(0, |m, (k, &c)| m | (u64::from(test(c)) << k))
        }

        pub fn classify_string(block: &[u8; 64]) -> super::StringMasks {
            super::StringMasks {
                special: mask_by(block, |c| c == b'"' || c == b'\\'),
                high: mask_by(block, |c| c >= 0x80),
            }
        }

        pub fn classify_structural(block: &[u8; 64]) -> u64 {
            mask_by(block, |c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
        }

        pub fn classify_units(block: &[u8; 64]) -> super::UnitMasks {
            super::UnitMasks {
                continuation: mask_by(block, |c| (0x80..=0xBF).contains(&c)),
                four: mask_by(block, |c| c >= 0xF0),
            }
        }

        pub fn classify_string_end(block: &[u8; 64]) -> u64 {
            mask_by(block, |c| c == b'"' || c == b'\\' || c < 0x20)
        }
    }

    #[test]
    fn this_machine_takes_the_simd_path() {
        assert_eq!(PATH == "sse2", cfg!(target_arch = "x86_64"));
    }

    #[test]
    fn digit_runs_end_at_the_first_non_digit() {
        for len in 0..20 {
            for end in [
                b'0' - 1,
                b'9' + 1,
                b' ',
                b'e',
                b'.',
                0x80,
                0xff,
                0x00,
                b'/',
                b':',
            ] {
                let mut v = vec![b'7'; len];
                v.push(end);
                v.extend_from_slice(b"12345678");
                assert_eq!(skip_digits(&v, 0), len, "{len} {end}");
                assert_eq!(skip_digits(&v[..len], 0), len);
            }
        }
        assert_eq!(skip_digits(b"0123456789", 0), 10);
    }

    /// Every mask of `block` as this build classifies it (SSE2 on x86_64), as the word-at-a-
    /// time path classifies it, and as the byte-at-a-time reference states it: all equal.
    fn assert_paths_agree(block: &[u8; 64]) {
        let string = reference::classify_string(block);
        assert_eq!(classify_string(block), string, "{block:?}");
        assert_eq!(swar::classify_string(block), string, "{block:?}");
        let structural = reference::classify_structural(block);
        assert_eq!(classify_structural(block), structural, "{block:?}");
        assert_eq!(swar::classify_structural(block), structural, "{block:?}");
        let units = reference::classify_units(block);
        assert_eq!(classify_units(block), units, "{block:?}");
        assert_eq!(swar::classify_units(block), units, "{block:?}");
        let end = reference::classify_string_end(block);
        assert_eq!(classify_string_end(block), end, "{block:?}");
        assert_eq!(swar::classify_string_end(block), end, "{block:?}");
    }

    #[test]
    fn every_byte_value_at_every_position_is_classified_as_the_reference_does() {
        for base in (0..256).step_by(64) {
            assert_paths_agree(&std::array::from_fn(|k| (base + k) as u8));
        }
        // Each value alone in a block of another, at every position: a carry or borrow between
        // the bytes of a word would show here.
        // Under Miri (some hundred times slower) the positions at the ends of the first word and
        // of the block, in spaces; every position and fill otherwise.
        let fills: &[u8] = if cfg!(miri) {
            b" "
        } else {
            &[
                b' ', 0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xEF, 0xF0, 0xFF, b'"', b'Z',
            ]
        };
        let positions: Vec<usize> = if cfg!(miri) {
            vec![0, 7, 8, 63]
        } else {
            (0..64).collect()
        };
        for value in 0..=255u8 {
            for &fill in fills {
                for &at in &positions {
                    let mut block = [fill; 64];
                    block[at] = value;
                    assert_paths_agree(&block);
                }
            }
        }
    }

    #[test]
    fn padding_past_the_end_is_plain_ascii() {
        assert_eq!(string_masks(b"\"[", 0).special, 1);
        assert_eq!(structural_mask(b"\"[", 0), 3);
        assert_eq!(string_masks(b"\x80", 0).high, 1);
        assert_eq!(unit_masks(b"\x80", 0).continuation, 1);
        assert_eq!(string_end_mask(b"ab\n", 1), 2);
        assert_eq!(string_end_mask(b"ab", 10), 0);
    }

    #[test]
    fn units_count_utf16() {
        let text = "aé😀中".as_bytes();
        let m = unit_masks(text, 0);
        let span = text.len();
        assert_eq!(
            m.units((1 << span) - 1, span),
            "aé😀中".encode_utf16().count()
        );
    }

    /// The masks at `start` as a padded copy gives them to `f`.
    fn padded<T>(bytes: &[u8], start: usize, f: impl Fn(&[u8; 64]) -> T) -> T {
        let mut block = [b' '; 64];
        let rest = bytes.get(start..).unwrap_or(&[]);
        let n = rest.len().min(64);
        block[..n].copy_from_slice(&rest[..n]);
        f(&block)
    }

    /// `bytes` placed at each of `alignments` (modulo 64), classified from every start (and
    /// past the end) through the public functions: each equals the word-at-a-time path's and
    /// the reference's masks of a padded copy.
    fn assert_alignments_and_starts(bytes: &[u8], alignments: std::ops::Range<usize>) {
        let mut backing = vec![0u8; bytes.len() + 128];
        let misalign = backing.as_ptr() as usize % 64;
        for alignment in alignments {
            let at = (64 - misalign + alignment) % 64;
            backing[at..at + bytes.len()].copy_from_slice(bytes);
            let text = &backing[at..at + bytes.len()];
            assert_eq!(text.as_ptr() as usize % 64, alignment);
            for start in 0..=bytes.len() + 1 {
                let string = string_masks(text, start);
                assert_eq!(string, padded(text, start, swar::classify_string));
                assert_eq!(string, padded(text, start, reference::classify_string));
                let structural = structural_mask(text, start);
                assert_eq!(structural, padded(text, start, swar::classify_structural));
                assert_eq!(
                    structural,
                    padded(text, start, reference::classify_structural)
                );
                let units = unit_masks(text, start);
                assert_eq!(units, padded(text, start, swar::classify_units));
                assert_eq!(units, padded(text, start, reference::classify_units));
                let end = string_end_mask(text, start);
                assert_eq!(end, padded(text, start, swar::classify_string_end));
                assert_eq!(end, padded(text, start, reference::classify_string_end));
            }
        }
    }

    #[test]
    fn lengths_around_the_block_at_every_alignment() {
        // Under Miri a length on each side of the word and block boundaries at four alignments;
        // every listed length at every alignment otherwise.
        let (lens, alignments): (&[usize], Vec<usize>) = if cfg!(miri) {
            (&[0, 1, 9, 65, 129], vec![0, 1, 8, 63])
        } else {
            (
                &[0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200],
                (0..64).collect(),
            )
        };
        for &len in lens {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            for &alignment in &alignments {
                assert_alignments_and_starts(&bytes, alignment..alignment + 1);
            }
        }
    }

    /// Bytes of JSON text more often than uniform bytes would give them.
    fn json_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            any::<u8>(),
            prop::sample::select(&b"\"\\{}[]:, \n\tab09\x1f\x7f\x80\xbf\xc0\xef\xf0\xff"[..]),
        ]
    }

    proptest! {
        /// Any text, any start (past the end too): the masks equal those of a padded copy.
        #[test]
        fn blocks_past_the_end_read_as_spaces(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            start in 0usize..220,
        ) {
            prop_assert_eq!(string_masks(&bytes, start), padded(&bytes, start, classify_string));
            prop_assert_eq!(structural_mask(&bytes, start), padded(&bytes, start, classify_structural));
            prop_assert_eq!(unit_masks(&bytes, start), padded(&bytes, start, classify_units));
            prop_assert_eq!(string_end_mask(&bytes, start), padded(&bytes, start, classify_string_end));
        }

        #[test]
        fn simd_swar_and_reference_agree_on_any_block(bytes in proptest::collection::vec(json_byte(), 64)) {
            assert_paths_agree(&bytes.try_into().unwrap());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 32 }))]

        /// Random lengths (not multiples of the block), any alignment, every start (the unit
        /// test above takes every alignment of fixed lengths).
        #[test]
        fn simd_equals_swar_at_any_length_alignment_and_start(
            bytes in proptest::collection::vec(json_byte(), 0..300),
            alignment in 0usize..64,
        ) {
            assert_alignments_and_starts(&bytes, alignment..alignment + 1);
        }
    }
}
