//! String lengths as JavaScript counts them: UTF-16 code units (a character outside the Basic
//! Multilingual Plane counts 2).

/// `⌈n / 4⌉`, the meter's characters-to-tokens step.
pub fn ceil4(n: usize) -> u64 {
    (n as u64).div_ceil(4)
}

/// The UTF-16 length of `s` (JavaScript's `s.length`).
pub fn utf16_len(s: &str) -> usize {
    utf16_len_of_utf8(s.as_bytes())
}

/// The UTF-16 length of valid UTF-8 bytes: one unit per character, two for a 4-byte
/// sequence. Counts lead bytes only, which the compiler vectorizes.
pub fn utf16_len_of_utf8(bytes: &[u8]) -> usize {
    // Byte-wide counters over blocks short enough not to overflow them vectorize well.
    bytes
        .chunks(255)
        .map(|block| {
            let lead: u8 = block.iter().map(|&b| u8::from((b as i8) >= -64)).sum();
            let four: u8 = block.iter().map(|&b| u8::from(b >= 0xF0)).sum();
            usize::from(lead) + usize::from(four)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_counts_two() {
        assert_eq!(utf16_len("a😀"), 3);
        let long = "é😀x".repeat(300);
        assert_eq!(utf16_len(&long), long.encode_utf16().count());
        assert_eq!(utf16_len("é—中"), 3);
        assert_eq!(utf16_len(""), 0);
    }

    #[test]
    fn ceil4_rounds_up() {
        assert_eq!((ceil4(0), ceil4(1), ceil4(4), ceil4(5)), (0, 1, 1, 2));
    }
}
