//! The range of the log the context strip shows (zoomed in, panned), in cursor units
//! (`0..=len`): pure math that maps cursors to a fraction of the strip and back, zooms at
//! an anchor, pans, and clamps to the log.

/// Fewest cursors a zoomed range spans.
pub const MIN_SPAN: f64 = 16.0;

/// A range of cursors `start..=end` shown across the strip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zoom {
    /// First cursor shown (left edge).
    pub start: f64,
    /// Last cursor shown (right edge).
    pub end: f64,
}

impl Zoom {
    /// The whole log of `len` events.
    pub fn whole(len: usize) -> Zoom {
        Zoom {
            start: 0.0,
            end: len as f64,
        }
    }

    /// The range shown for an optional zoom over `len` events.
    pub fn or_whole(zoom: Option<Zoom>, len: usize) -> Zoom {
        zoom.map_or(Zoom::whole(len), |z| z.clamped(len))
    }

    /// Cursors spanned.
    pub fn span(&self) -> f64 {
        (self.end - self.start).max(f64::MIN_POSITIVE)
    }

    /// Where cursor `cursor` sits across the strip (0 left edge, 1 right edge; outside the
    /// range below 0 or above 1).
    pub fn fraction(&self, cursor: f64) -> f64 {
        (cursor - self.start) / self.span()
    }

    /// The cursor at fraction `f` of the strip, rounded and clamped to `0..=len`.
    pub fn cursor_at(&self, f: f64, len: usize) -> usize {
        (self.start + f.clamp(0.0, 1.0) * self.span())
            .round()
            .clamp(0.0, len as f64) as usize
    }

    /// This range kept inside `0..=len` and at least [`MIN_SPAN`] wide (or the whole log
    /// when it is shorter).
    pub fn clamped(self, len: usize) -> Zoom {
        let len = len as f64;
        let span = self.span().max(MIN_SPAN).min(len.max(0.0));
        let start = self.start.clamp(0.0, (len - span).max(0.0));
        Zoom {
            start,
            end: start + span,
        }
    }

    /// Zoomed by `factor` (below 1 zooms in) keeping the cursor at fraction `anchor` in place.
    pub fn zoomed(self, anchor: f64, factor: f64, len: usize) -> Zoom {
        let anchor = anchor.clamp(0.0, 1.0);
        let at = self.start + anchor * self.span();
        let span = self.span() * factor;
        Zoom {
            start: at - anchor * span,
            end: at + (1.0 - anchor) * span,
        }
        .clamped(len)
    }

    /// Moved by `by` spans (negative: towards the start).
    pub fn panned(self, by: f64, len: usize) -> Zoom {
        let d = by * self.span();
        Zoom {
            start: self.start + d,
            end: self.end + d,
        }
        .clamped(len)
    }

    /// This range when it shows axis position `at`, else the same span centred on `at` (kept
    /// inside `0..=len`): where a strip zoomed in goes when the cursor jumps out of it.
    pub fn showing(self, at: f64, len: usize) -> Zoom {
        if (self.start..=self.end).contains(&at) {
            return self;
        }
        let half = self.span() / 2.0;
        Zoom {
            start: at - half,
            end: at + half,
        }
        .clamped(len)
    }

    /// True when the range covers the whole log.
    pub fn is_whole(&self, len: usize) -> bool {
        self.start <= 0.0 && self.end >= len as f64
    }

    /// The cursors each of `width` pixel columns covers: column `c` covers
    /// `bounds(c).0 .. bounds(c).1` (at least one cursor; the last column includes `end`).
    pub fn column_bounds(&self, c: usize, width: usize, len: usize) -> (usize, usize) {
        let at = |k: usize| {
            (self.start + self.span() * k as f64 / width.max(1) as f64)
                .floor()
                .clamp(0.0, len as f64) as usize
        };
        let from = at(c);
        let to = if c + 1 >= width {
            (self.end.ceil() as usize).min(len) + 1
        } else {
            at(c + 1).max(from + 1)
        };
        (from, to.max(from + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_that_does_not_show_a_position_moves_to_centre_it() {
        let z = Zoom {
            start: 800.0,
            end: 900.0,
        };
        assert_eq!(z.showing(850.0, 1000), z, "shown: left alone");
        assert_eq!(z.showing(800.0, 1000), z, "an edge is shown");
        let moved = z.showing(400.0, 1000);
        assert_eq!((moved.start, moved.end), (350.0, 450.0));
        let home = z.showing(0.0, 1000);
        assert_eq!((home.start, home.end), (0.0, 100.0), "kept inside the log");
        let end = Zoom {
            start: 0.0,
            end: 100.0,
        }
        .showing(1000.0, 1000);
        assert_eq!((end.start, end.end), (900.0, 1000.0));
    }

    #[test]
    fn zooming_keeps_the_anchor_in_place() {
        let z = Zoom::whole(1000).zoomed(0.25, 0.5, 1000);
        assert_eq!(
            z,
            Zoom {
                start: 125.0,
                end: 625.0
            }
        );
        assert!((z.fraction(250.0) - 0.25).abs() < 1e-9);
        // Zooming out past the log gives the whole log.
        assert_eq!(z.zoomed(0.5, 10.0, 1000), Zoom::whole(1000));
    }

    #[test]
    fn panning_stops_at_the_ends() {
        let z = Zoom {
            start: 100.0,
            end: 200.0,
        };
        assert_eq!(
            z.panned(0.5, 1000),
            Zoom {
                start: 150.0,
                end: 250.0
            }
        );
        assert_eq!(
            z.panned(-5.0, 1000),
            Zoom {
                start: 0.0,
                end: 100.0
            }
        );
        assert_eq!(
            z.panned(50.0, 1000),
            Zoom {
                start: 900.0,
                end: 1000.0
            }
        );
    }

    #[test]
    fn a_range_is_never_narrower_than_the_minimum() {
        let z = Zoom {
            start: 10.0,
            end: 11.0,
        }
        .clamped(1000);
        assert_eq!(z.span(), MIN_SPAN);
        // A log shorter than the minimum is shown whole.
        assert_eq!(
            Zoom {
                start: 2.0,
                end: 3.0
            }
            .clamped(5),
            Zoom::whole(5)
        );
    }

    #[test]
    fn cursors_and_columns_map_both_ways() {
        let z = Zoom {
            start: 100.0,
            end: 200.0,
        };
        assert_eq!(z.cursor_at(0.5, 1000), 150);
        assert_eq!(z.cursor_at(2.0, 1000), 200);
        assert_eq!(z.column_bounds(0, 10, 1000), (100, 110));
        assert_eq!(z.column_bounds(9, 10, 1000), (190, 201));
        // More columns than cursors: each column covers at least one.
        let w = Zoom::whole(3);
        assert_eq!(w.column_bounds(0, 10, 3), (0, 1));
        assert_eq!(w.column_bounds(9, 10, 3), (2, 4));
    }
}
