//! Applying the [`StripCommand`]s: the range the context strip shows (zoom, pan), its x axis,
//! the compaction threshold it draws, and the what-if's, the cache split's and the cache breaks' toggles.

use surface_engine::EventIdx;

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::strip::axis::{Axis, has_time_axis};
use crate::strip::command::StripCommand;
use crate::strip::zoom::Zoom;
use crate::threshold::ThresholdSource;

impl ViewerApp {
    /// Applies a command of the context strip.
    pub(crate) fn apply_strip(&mut self, command: StripCommand) {
        match command {
            StripCommand::SetZoom(zoom) => self.set_zoom(zoom),
            StripCommand::ZoomStrip(factor) => {
                if let Some(s) = &self.session {
                    let axis = Axis::of(s, self.prefs.time_axis);
                    let extent = axis.extent();
                    let z = Zoom::or_whole(self.view.zoom, extent);
                    let f = axis.fraction(&z, s.cursor());
                    let anchor = if (0.0..=1.0).contains(&f) { f } else { 0.5 };
                    self.set_zoom(Some(z.zoomed(anchor, factor, extent)));
                }
            }
            StripCommand::PanStrip(by) => {
                if let Some(s) = &self.session {
                    let extent = Axis::of(s, self.prefs.time_axis).extent();
                    let z = Zoom::or_whole(self.view.zoom, extent);
                    self.set_zoom(Some(z.panned(by, extent)));
                }
            }
            StripCommand::ToggleTimeAxis => self.toggle_time_axis(),
            StripCommand::SetThresholdRatio(r) => {
                if r > 0.0 && r.is_finite() {
                    self.set_threshold_ratio(r, ThresholdSource::Strip);
                }
            }
            StripCommand::ShowWhatIf(shown) => self.panels.strip.hide_what_if = !shown,
            StripCommand::ShowCacheSplit(shown) => {
                self.prefs.cache_split = shown;
                self.panels.strip.show_cache = shown;
            }
            StripCommand::ShowCacheBreaks(shown) => {
                self.prefs.cache_breaks = shown;
                self.panels.strip.show_breaks = shown;
            }
        }
    }

    /// Moves a zoomed strip's range to the cursor when the cursor moved since the last frame
    /// and left the range (a pan by hand, which leaves the cursor where it is, is kept).
    pub(crate) fn keep_cursor_in_zoom(&mut self) {
        let Some(s) = &self.session else {
            return;
        };
        let cursor = s.cursor();
        let moved = self.view.zoom_cursor.replace(cursor) != Some(cursor);
        let Some(zoom) = self.view.zoom.filter(|_| moved) else {
            return;
        };
        let axis = Axis::of(s, self.prefs.time_axis);
        let shown = zoom.showing(axis.pos(cursor), axis.extent());
        if shown != zoom {
            // The range moves; the timeline stays on the cursor (no reveal of the middle).
            self.view.zoom = Some(shown);
        }
    }

    /// Shows `zoom` (in the units of the strip's axis) on the strip (the whole log when it
    /// covers it) and scrolls the timeline to the middle of the range.
    fn set_zoom(&mut self, zoom: Option<Zoom>) {
        let Some(s) = &self.session else {
            return;
        };
        let len = s.len();
        let axis = Axis::of(s, self.prefs.time_axis);
        let extent = axis.extent();
        let zoom = zoom
            .map(|z| z.clamped(extent))
            .filter(|z| !z.is_whole(extent));
        if zoom == self.view.zoom {
            return;
        }
        self.view.zoom = zoom;
        if let Some(z) = zoom
            && len > 0
        {
            let middle = axis.cursor_at(((z.start + z.end) / 2.0).floor());
            self.nav.pending_reveal = Some(EventIdx(middle.min(len - 1) as u32));
        }
    }

    /// Switches the strip's x axis between event index and wall-clock time, keeping the range
    /// shown on the same events (the cursor is an event, so it stays where it is).
    fn toggle_time_axis(&mut self) {
        let from_time = self.prefs.time_axis;
        self.prefs.time_axis = !from_time;
        let Some(s) = &self.session else {
            return;
        };
        let from = Axis::of(s, from_time);
        let to = Axis::of(s, !from_time);
        let before = self.view.zoom;
        self.view.zoom = match self.view.zoom_before_switch.take() {
            Some((previous, set)) if set == before => previous,
            _ => before
                .map(|z| from.convert(z, &to))
                .filter(|z| !z.is_whole(to.extent())),
        };
        self.view.zoom_before_switch = Some((before, self.view.zoom));
        if !to.is_time() && !from_time && !has_time_axis(&s.time) {
            self.chrome.banner = Some(Banner::info(
                "This log has no timestamps to put on a time axis: the strip stays on the event index.".to_string(),
            ));
        }
    }
}
