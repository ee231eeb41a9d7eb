//! How far a what-if's estimate can be trusted, as the log itself shows it: at every agent call
//! with usage, the provider's reported prompt against the meter's estimate of the same request
//! (`ratio = prompt / estimate`). After the first divergence a what-if total stands on one such
//! ratio (docs/policy.md: each later usage is re-anchored by the actual call's ratio), but
//! the hypothetical request would have had a ratio of its own; the ratios the log shows bound
//! it. The *observed spread* is the band `[low, high]` of those ratios relative to their median
//! — the central 90 % of them (the 5th to the 95th percentile, nearest rank) once there are 20
//! calls or more, all of them below that — so one odd call of a long session does not widen it.
//!
//! A true total lies within `[t × (1 + low), t × (1 + high)]` of an estimate `t`; a check whose
//! threshold lies in that band could have gone either way: it is *near*.

use serde::Serialize;

/// Calls from which the band is the 5th–95th percentile rather than the whole range.
const PERCENTILES_FROM: usize = 20;

/// The observed spread of the provider's prompt against the meter's estimate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Agent calls with reported usage and a meter estimate it is held against.
    pub calls: usize,
    /// The median ratio of reported prompt to the meter's estimate.
    pub ratio_median: f64,
    /// The lower end of the band, relative to the median (≤ 0): `ratio / median − 1`.
    pub low: f64,
    /// The upper end (≥ 0).
    pub high: f64,
}

impl Spread {
    /// The spread of `ratios` (finite and positive ones; others are left out). `None` without
    /// any.
    pub fn of(ratios: &[f64]) -> Option<Spread> {
        let mut r: Vec<f64> = ratios
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        if r.is_empty() {
            return None;
        }
        r.sort_by(f64::total_cmp);
        let n = r.len();
        let median = if n % 2 == 1 {
            r[n / 2]
        } else {
            (r[n / 2 - 1] + r[n / 2]) / 2.0
        };
        let (lo, hi) = if n >= PERCENTILES_FROM {
            (r[rank(n, 0.05)], r[rank(n, 0.95)])
        } else {
            (r[0], r[n - 1])
        };
        Some(Spread {
            calls: n,
            ratio_median: median,
            low: (lo / median - 1.0).min(0.0),
            high: (hi / median - 1.0).max(0.0),
        })
    }

    /// The totals an estimate of `total` stands for: `[⌊t × (1 + low)⌋, ⌈t × (1 + high)⌉]`.
    pub fn band(&self, total: u64) -> (u64, u64) {
        let t = total as f64;
        (
            (t * (1.0 + self.low)).floor().max(0.0) as u64,
            (t * (1.0 + self.high)).ceil().max(0.0) as u64,
        )
    }

    /// Whether a check at the estimated `total` could have gone either way against
    /// `threshold`: the threshold lies inside the band (`lo < threshold ≤ hi`: a true total at
    /// the low end is below it, one at the high end fires).
    pub fn near(&self, total: u64, threshold: u64) -> bool {
        let (lo, hi) = self.band(total);
        lo < threshold && threshold <= hi
    }
}

/// The nearest-rank index of quantile `q` among `n` sorted values.
fn rank(n: usize, q: f64) -> usize {
    ((q * n as f64).ceil() as usize).clamp(1, n) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_calls_give_their_whole_range() {
        let s = Spread::of(&[1.0, 1.1, 0.9, f64::NAN, 0.0]).unwrap();
        assert_eq!(s.calls, 3);
        assert_eq!(s.ratio_median, 1.0);
        assert!((s.low + 0.1).abs() < 1e-12 && (s.high - 0.1).abs() < 1e-12);
        assert_eq!(s.band(1000), (900, 1100));
        assert!(s.near(1000, 1050));
        assert!(s.near(1000, 901));
        assert!(!s.near(1000, 900), "at the low end it still fires");
        assert!(!s.near(1000, 1101));
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[f64::INFINITY]), None);
    }

    #[test]
    fn many_calls_leave_the_outer_tenth_out() {
        // 100 calls: 98 between 0.95 and 1.05, one wild on each side.
        let mut r: Vec<f64> = (0..98).map(|k| 0.95 + 0.1 * f64::from(k) / 97.0).collect();
        r.push(0.2);
        r.push(5.0);
        let s = Spread::of(&r).unwrap();
        assert_eq!(s.calls, 100);
        assert!(s.low > -0.06 && s.low < 0.0, "{s:?}");
        assert!(s.high < 0.06 && s.high > 0.0, "{s:?}");
        assert_eq!(rank(100, 0.05), 4);
        assert_eq!(rank(100, 0.95), 94);
        assert_eq!(rank(1, 0.05), 0);
    }

    #[test]
    fn one_call_has_no_spread() {
        let s = Spread::of(&[1.3]).unwrap();
        assert_eq!((s.low, s.high), (0.0, 0.0));
        assert!(
            !s.near(1000, 1000),
            "a band of one point holds no threshold"
        );
    }
}
