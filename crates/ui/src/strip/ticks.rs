//! Tick marks for the context strip's x axis: round event counts on the index axis, round
//! elapsed times (`+2m 10s`) on the time axis, spaced at least [`theme::STRIP_TICK_SPACING`]
//! apart whatever the zoom. O(ticks) per frame.

use crate::strip::axis::Axis;
use crate::strip::zoom::Zoom;
use crate::theme;

/// One tick: where it sits across the strip (0..=1) and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Fraction of the strip's width.
    pub at: f64,
    /// What it says.
    pub label: String,
}

const SECOND: u64 = 1_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// Round steps of the time axis, in milliseconds.
const TIME_STEPS: [u64; 28] = [
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    200,
    500,
    SECOND,
    2 * SECOND,
    5 * SECOND,
    10 * SECOND,
    15 * SECOND,
    30 * SECOND,
    MINUTE,
    2 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    7 * DAY,
];

/// The smallest 1-2-5 step of at least `raw`.
fn round_count_step(raw: f64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if (step * m) as f64 >= raw {
                return step * m;
            }
        }
        match step.checked_mul(10) {
            Some(s) => step = s,
            None => return u64::MAX,
        }
    }
}

/// The smallest round time step of at least `raw` milliseconds.
fn round_time_step(raw: f64) -> u64 {
    TIME_STEPS
        .iter()
        .copied()
        .find(|&s| s as f64 >= raw)
        .unwrap_or_else(|| round_count_step(raw / DAY as f64).saturating_mul(DAY))
}

/// A count the way the axis names it: `250k`, `1.5M`, `740`.
pub fn count_text(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(100_000) {
        format!("{}M", n as f64 / 1e6)
    } else if n >= 1_000 && n.is_multiple_of(100) {
        format!("{}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// A duration in its two largest units: `2m 10s`, `1h 5m`, `3d 4h`, `850ms`, `1.5s`.
pub fn duration_text(ms: u64) -> String {
    if ms < SECOND {
        return format!("{ms}ms");
    }
    if ms < MINUTE {
        return if ms.is_multiple_of(SECOND) {
            format!("{}s", ms / SECOND)
        } else {
            format!("{}s", (ms as f64 / 1e3 * 10.0).round() / 10.0)
        };
    }
    let units = [(DAY, "d"), (HOUR, "h"), (MINUTE, "m"), (SECOND, "s")];
    let first = units.iter().position(|&(u, _)| ms >= u).unwrap_or(3);
    let (big, big_name) = units[first];
    let mut text = format!("{}{big_name}", ms / big);
    if let Some(&(small, small_name)) = units.get(first + 1) {
        let rest = (ms % big) / small;
        if rest > 0 {
            text.push_str(&format!(" {rest}{small_name}"));
        }
    }
    text
}

/// Wall-clock time of day (UTC) of epoch milliseconds `ms`: `14:03:20`.
pub fn clock_text(ms: i64) -> String {
    let s = ms.div_euclid(1_000).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", s / 3_600, s / 60 % 60, s % 60)
}

/// A time on the axis as elapsed time and, when the log's first time is known, wall clock:
/// `+2m 10s (14:03:20 UTC)`.
pub fn elapsed_and_clock(ms: f64, origin: Option<i64>) -> String {
    let ms = ms.max(0.0) as u64;
    let elapsed = format!("+{}", duration_text(ms));
    match origin {
        Some(o) => format!(
            "{elapsed} ({} UTC)",
            clock_text(o.saturating_add(ms as i64))
        ),
        None => elapsed,
    }
}

/// The ticks of a `width`-point strip showing `zoom` on `axis`.
pub fn ticks(axis: &Axis<'_>, zoom: &Zoom, width: f32) -> Vec<Tick> {
    let most = (width / theme::STRIP_TICK_SPACING).floor().max(1.0) as f64;
    let raw = zoom.span() / most;
    let (step, label): (u64, Box<dyn Fn(u64) -> String>) = if axis.is_time() {
        (
            round_time_step(raw),
            Box::new(|ms| {
                if ms == 0 {
                    "0".to_string()
                } else {
                    format!("+{}", duration_text(ms))
                }
            }),
        )
    } else {
        (round_count_step(raw.max(1.0)), Box::new(count_text))
    };
    let step_f = step as f64;
    let mut out = Vec::new();
    let mut k = (zoom.start / step_f).ceil().max(0.0) as u64;
    while let Some(v) = k.checked_mul(step).filter(|&v| v as f64 <= zoom.end) {
        out.push(Tick {
            at: zoom.fraction(v as f64),
            label: label(v),
        });
        k += 1;
        if out.len() > most as usize + 2 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_a_clock() {
        assert_eq!(duration_text(850), "850ms");
        assert_eq!(duration_text(1_500), "1.5s");
        assert_eq!(duration_text(130_000), "2m 10s");
        assert_eq!(duration_text(2 * HOUR), "2h");
        assert_eq!(duration_text(3 * DAY + 4 * HOUR + 5), "3d 4h");
        assert_eq!(clock_text(1_786_123_401_600), "17:23:21");
    }

    #[test]
    fn counts_are_short() {
        assert_eq!(count_text(250_000), "250k");
        assert_eq!(count_text(1_500_000), "1.5M");
        assert_eq!(count_text(740), "740");
        assert_eq!(count_text(1_009_662), "1009662");
    }

    #[test]
    fn ticks_are_round_and_spaced() {
        let axis = Axis::Index { len: 1_000_000 };
        let t = ticks(&axis, &axis.whole(), 1_000.0);
        assert!(t.len() >= 5 && t.len() <= 12, "{t:?}");
        assert_eq!(t[1].label, "100k");
        // Zoomed to 40 events over the same width: one tick every 5 events at most.
        let z = Zoom {
            start: 500_000.0,
            end: 500_040.0,
        };
        let t = ticks(&axis, &z, 1_000.0);
        assert_eq!(t[0].label, "500k");
        assert_eq!(t[1].label, "500005");
        for pair in t.windows(2) {
            assert!((pair[1].at - pair[0].at) * 1_000.0 >= f64::from(theme::STRIP_TICK_SPACING));
        }
    }

    #[test]
    fn time_ticks_are_elapsed_times() {
        let mut col = surface_engine::time_column::TimeColumn::default();
        col.extend_with(
            [
                (Some(0), surface_engine::EventType::Other),
                (Some(10 * MINUTE as i64), surface_engine::EventType::Other),
            ]
            .into_iter(),
        );
        let axis = Axis::Time(&col);
        let t = ticks(&axis, &axis.whole(), 1_000.0);
        assert_eq!(t[0].label, "0");
        assert_eq!(t[1].label, "+1m");
        assert_eq!(t.last().map(|t| t.label.as_str()), Some("+10m"));
    }
}
