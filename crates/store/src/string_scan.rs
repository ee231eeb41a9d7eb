//! Finding where a run of plain JSON string content ends: the next `"`, `\` or control byte
//! (below 0x20). A line is classified in 64-byte blocks, one bit per byte
//! ([`surface_scan::byte_masks`]: SSE2 on x86_64, a portable loop elsewhere), and a cursor
//! keeps the current block's mask, so skipping a string costs a shift and a bit count instead
//! of a dependent vector search per string (lines are dense with short strings).

/// True for the bytes that end plain string content: `"`, `\` and the control bytes JSON
/// forbids inside strings.
#[cfg(test)]
fn is_string_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// The special bytes of the 64-byte block of `bytes` starting at `start`: bit k is set when
/// `bytes[start + k]` is `"`, `\` or below 0x20; bytes past the end count as plain.
#[inline]
pub fn special_mask(bytes: &[u8], start: usize) -> u64 {
    surface_scan::byte_masks::string_end_mask(bytes, start)
}

/// Portable: the special bytes of one 64-byte block (the tests' reference).
#[cfg(test)]
fn block_mask_portable(block: &[u8; 64]) -> u64 {
    block
        .iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | (u64::from(is_string_special(c)) << k))
}

/// A forward cursor over one line's special bytes that keeps the mask of the block it last
/// classified; every block is classified at most once while the scan moves forward.
pub struct Specials<'a> {
    bytes: &'a [u8],
    block: usize,
    mask: u64,
}

impl<'a> Specials<'a> {
    /// A cursor over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Specials {
            bytes,
            block: usize::MAX,
            mask: 0,
        }
    }

    /// The index of the first special byte at or after `from`, if any. The common case (the
    /// answer is in the block already classified) is a shift and a bit count, inlined.
    #[inline(always)]
    pub fn next_from(&mut self, from: usize) -> Option<usize> {
        if from >> 6 == self.block {
            let rest = self.mask >> (from & 63);
            if rest != 0 {
                return Some(from + rest.trailing_zeros() as usize);
            }
        }
        self.next_from_in_new_blocks(from)
    }

    /// [`Specials::next_from`] when later blocks must be classified (kept out of line so the
    /// string loop stays small).
    #[inline(never)]
    fn next_from_in_new_blocks(&mut self, mut from: usize) -> Option<usize> {
        loop {
            let block = from >> 6;
            if block != self.block {
                if from >= self.bytes.len() {
                    return None;
                }
                self.mask = special_mask(self.bytes, block << 6);
                self.block = block;
            }
            let rest = self.mask >> (from & 63);
            if rest != 0 {
                return Some(from + rest.trailing_zeros() as usize);
            }
            from = (block + 1) << 6;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn by_bytes(bytes: &[u8], from: usize) -> Option<usize> {
        (from..bytes.len()).find(|&i| is_string_special(bytes[i]))
    }

    #[test]
    fn finds_each_special_byte_at_every_position() {
        // Under Miri (some hundred times slower) the lengths around one block boundary and
        // two of the specials; every length and special otherwise.
        let (lens, specials): (&[usize], &[u8]) = if cfg!(miri) {
            (&[0, 1, 16, 17, 65], &[b'"', 0x00])
        } else {
            (
                &[0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200],
                &[b'"', b'\\', 0x00, 0x1f, b'\n'],
            )
        };
        for &len in lens {
            for at in 0..len {
                for &special in specials {
                    let mut v = vec![b'a'; len];
                    v[at] = special;
                    let mut cursor = Specials::new(&v);
                    for from in 0..=len + 1 {
                        assert_eq!(
                            cursor.next_from(from),
                            by_bytes(&v, from),
                            "{len} {at} {special} {from}"
                        );
                    }
                    // A fresh cursor may start anywhere.
                    assert_eq!(Specials::new(&v).next_from(at), Some(at));
                }
            }
        }
    }

    #[test]
    fn high_bytes_space_and_del_are_plain() {
        let v: Vec<u8> = (0x20..=0xffu8)
            .filter(|&c| c != b'"' && c != b'\\')
            .collect();
        assert_eq!(Specials::new(&v).next_from(0), None);
        assert_eq!(Specials::new(&v).next_from(v.len() + 3), None);
    }

    proptest! {
        #[test]
        fn block_masks_equal_bytewise(
            bytes in proptest::collection::vec(
                prop_oneof![6 => 0x20u8..0x7f, 1 => any::<u8>(), 1 => Just(b'"'), 1 => Just(b'\\')],
                0..300,
            ),
            steps in proptest::collection::vec(0usize..40, 1..20),
        ) {
            let mut cursor = Specials::new(&bytes);
            let mut from = 0;
            for step in steps {
                from += step;
                prop_assert_eq!(cursor.next_from(from), by_bytes(&bytes, from));
            }
            for start in (0..bytes.len()).step_by(64) {
                let mut block = [b' '; 64];
                let n = (bytes.len() - start).min(64);
                block[..n].copy_from_slice(&bytes[start..start + n]);
                prop_assert_eq!(special_mask(&bytes, start), block_mask_portable(&block));
            }
        }
    }
}
