//! What scenario tests and benches read about the context strip: whether its x axis shows
//! wall-clock time, the range it shows, how many of its columns are idle time, and whether the
//! what-if is drawn over it.

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
}
