//! Lowest and highest value over any range of a long series in O(log n): a pyramid of
//! per-block minima and maxima, built once per series (O(n)), so that a strip zoomed to any
//! range costs O(pixels · log n) per recomputation instead of O(events).

/// Values per block of the pyramid's first level (the rest of a range is read directly): a
/// column reads at most `2 · (BLOCK - 1)` values plus two per level. At 8 the pyramid takes
/// 2 bytes per value (16 per block, twice); at 64, partial blocks were most of the cost of a
/// zooming frame (`benches/frame.rs`).
const BLOCK: usize = 8;

/// The pyramid over `len` values read through a function.
#[derive(Debug, Default)]
pub struct MinMax {
    len: usize,
    /// `levels[0][j]` covers values `j·BLOCK .. (j+1)·BLOCK`; `levels[i + 1][j]` covers
    /// `levels[i][2j]` and `levels[i][2j + 1]`.
    levels: Vec<Vec<(u32, u32)>>,
}

fn join(a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
    (a.0.min(b.0), a.1.max(b.1))
}

const EMPTY: (u32, u32) = (u32::MAX, 0);

impl MinMax {
    /// Builds the pyramid over `value(0..len)`.
    pub fn build(len: usize, value: impl Fn(usize) -> u32) -> MinMax {
        let mut level: Vec<(u32, u32)> = (0..len.div_ceil(BLOCK))
            .map(|b| {
                (b * BLOCK..((b + 1) * BLOCK).min(len))
                    .map(&value)
                    .fold(EMPTY, |acc, v| join(acc, (v, v)))
            })
            .collect();
        let mut levels = Vec::new();
        while level.len() > 1 {
            let next = level
                .chunks(2)
                .map(|pair| pair.iter().copied().fold(EMPTY, join))
                .collect();
            levels.push(std::mem::replace(&mut level, next));
        }
        levels.push(level);
        MinMax { len, levels }
    }

    /// Number of values covered.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `(lowest, highest)` of `value(from..to)` (`(u32::MAX, 0)` for an empty range);
    /// `value` must be the function the pyramid was built from.
    pub fn range(&self, from: usize, to: usize, value: impl Fn(usize) -> u32) -> (u32, u32) {
        let to = to.min(self.len);
        if from >= to {
            return EMPTY;
        }
        let first_block = from.div_ceil(BLOCK);
        let last_block = to / BLOCK;
        if first_block >= last_block {
            return (from..to).map(&value).fold(EMPTY, |a, v| join(a, (v, v)));
        }
        let mut acc = (from..first_block * BLOCK)
            .chain(last_block * BLOCK..to)
            .map(&value)
            .fold(EMPTY, |a, v| join(a, (v, v)));
        let (mut l, mut r) = (first_block, last_block);
        for level in &self.levels {
            if l >= r {
                break;
            }
            if l % 2 == 1 {
                acc = join(acc, level[l]);
                l += 1;
            }
            if r % 2 == 1 {
                r -= 1;
                acc = join(acc, level[r]);
            }
            l /= 2;
            r /= 2;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(v: &[u32], from: usize, to: usize) -> (u32, u32) {
        v[from..to.min(v.len())]
            .iter()
            .fold(EMPTY, |a, &x| join(a, (x, x)))
    }

    #[test]
    fn every_range_matches_a_scan() {
        for len in [0, 1, 63, 64, 65, 200, 1000] {
            let v: Vec<u32> = (0..len)
                .map(|i| ((i * 7919) % 1013) as u32 + (i as u32 % 5) * 3)
                .collect();
            let p = MinMax::build(len, |i| v[i]);
            let step = (len / 37).max(1);
            for from in (0..len).step_by(step) {
                for to in (from..=len + 3).step_by(step) {
                    assert_eq!(
                        p.range(from, to, |i| v[i]),
                        brute(&v, from, to),
                        "len {len} {from}..{to}"
                    );
                }
            }
        }
    }
}
