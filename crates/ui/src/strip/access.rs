//! What scenario tests and benches read about the context strip: whether its x axis shows
//! wall-clock time, the range it shows, how many of its columns are idle time, whether the
//! what-if is drawn over it, and the cache breaks it marks.

use crate::app::ViewerApp;
use crate::strip::zoom::Zoom;

impl ViewerApp {
    /// True when the strip and the scrubber are asked to show wall-clock time.
    pub fn time_axis(&self) -> bool {
        self.prefs.time_axis
    }

    /// The range the strip shows, in its axis's units (`None`: the whole log).
    pub fn strip_zoom(&self) -> Option<Zoom> {
        self.view.zoom
    }

    /// Columns of the strip's last frame in which no event happened (idle time; always 0 on
    /// the index axis), or `None` before the strip was drawn with the meter.
    pub fn strip_idle_columns(&self) -> Option<usize> {
        self.panels.strip.idle_columns()
    }

    /// The longest idle stretch the strip's last frame shows, in milliseconds (`None`: not
    /// drawn on the time axis).
    pub fn strip_longest_idle_ms(&self) -> Option<u64> {
        self.panels.strip.longest_idle_ms()
    }

    /// True when the strip's last frame was drawn on the time axis.
    pub fn strip_drawn_on_time(&self) -> bool {
        self.panels.strip.drawn_on_time()
    }

    /// True when the strip splits each model call's prompt into cache read and the rest.
    pub fn cache_split(&self) -> bool {
        self.prefs.cache_split
    }

    /// Model calls whose cache split the strip's last frame drew (`None`: the split is off).
    pub fn strip_cache_bars(&self) -> Option<usize> {
        self.panels.strip.cache_bars()
    }

    /// The threshold ratio of the what-if drawn over the strip's last frame (`None`: none
    /// drawn, or hidden by its toggle).
    pub fn strip_what_if(&self) -> Option<f64> {
        self.panels.strip.what_if_drawn()
    }

    /// True when the strip marks the cache breaks (the preference).
    pub fn cache_breaks_shown(&self) -> bool {
        self.prefs.cache_breaks
    }

    /// Cache-break marks the strip's last frame drew (`None`: hidden, or not computed yet).
    pub fn strip_cache_breaks(&self) -> Option<usize> {
        self.panels.strip.shown_breaks().map(|l| l.marks.len())
    }

    /// Each cache-break mark of the last frame: where it is from the strip's top-left corner,
    /// and the seq of its model call.
    pub fn strip_break_marks(&self) -> Vec<(egui::Vec2, u64)> {
        let (Some(layer), Some(changes)) = (
            self.panels.strip.shown_breaks(),
            self.panels.compactions.cost.changes(),
        ) else {
            return Vec::new();
        };
        let y = crate::strip::breaks_layer::mark_y();
        layer
            .marks
            .iter()
            .filter_map(|&(column, _, k)| {
                let seq = changes.requests().get(k)?.seq;
                Some((egui::vec2(column + 0.5, y), seq))
            })
            .collect()
    }
}
