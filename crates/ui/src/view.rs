//! UI state shared by all panels (selection, preview range, filters) and the row geometry
//! panels record each frame for the provenance arrows.

use egui::Rect;
use serde::{Deserialize, Serialize};

use surface_engine::EventIdx;

use crate::theme::Family;

/// Every family bit set.
pub const ALL_FAMILIES: u8 = 0x7f;

/// Selection and view options every panel reads (only the app writes them).
#[derive(Clone, Debug)]
pub struct ViewState {
    /// The selected event.
    pub selected: Option<EventIdx>,
    /// First node of the replace-preview range.
    pub range_start: Option<EventIdx>,
    /// Last node of the replace-preview range.
    pub range_end: Option<EventIdx>,
    /// Scroll both panels to this event this frame.
    pub reveal: Option<EventIdx>,
    /// Which type families the timeline shows.
    pub filter_mask: u8,
    /// Draw the whole provenance chain instead of one hop.
    pub whole_chain: bool,
    /// The open log is being followed live (mirrors the app's follow state each frame).
    pub following: bool,
    /// The compaction threshold as a fraction of the context window: the one every view
    /// judges by (the Policy tab's settings hold the same ratio).
    pub threshold_ratio: f64,
    /// Who set [`ViewState::threshold_ratio`] last.
    pub threshold_source: crate::threshold::ThresholdSource,
    /// The range of the log the context strip shows (`None`: all of it).
    pub zoom: Option<crate::strip::zoom::Zoom>,
    /// The cursor the zoomed strip last showed: when the cursor moves out of the range (Home,
    /// End, go to seq, a finding), the range follows it.
    pub zoom_cursor: Option<usize>,
    /// The zoom before the last axis switch and the zoom that switch set: switching back while
    /// the strip still shows the latter restores the former exactly (events that share a
    /// millisecond make the conversion through time lossy).
    pub zoom_before_switch: Option<(
        Option<crate::strip::zoom::Zoom>,
        Option<crate::strip::zoom::Zoom>,
    )>,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            selected: None,
            range_start: None,
            range_end: None,
            reveal: None,
            filter_mask: ALL_FAMILIES,
            whole_chain: false,
            following: false,
            threshold_ratio: surface_engine::DEFAULT_THRESHOLD_RATIO,
            threshold_source: Default::default(),
            zoom: None,
            zoom_cursor: None,
            zoom_before_switch: None,
        }
    }
}

impl ViewState {
    /// Whether events of `family` are shown.
    pub fn shows(&self, family: Family) -> bool {
        self.filter_mask & family.bit() != 0
    }
}

/// Preferences persisted between runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    /// Layout version of this struct.
    pub version: u32,
    /// Theme choice.
    pub theme: crate::theme::ThemeChoice,
    /// Recently opened files, newest first.
    pub recent: Vec<std::path::PathBuf>,
    /// Playback speed, events per second.
    pub speed: f32,
    /// Timeline family filter.
    pub filter_mask: u8,
    /// Whole provenance chain.
    pub whole_chain: bool,
    /// Right-hand tab.
    pub tab: crate::command::SideTab,
    /// The compaction threshold as a fraction of the context window.
    pub threshold_ratio: f64,
    /// Which panels are open, and their widths.
    pub layout: crate::layout::PanelLayout,
    /// The context strip and the scrubber show wall-clock time instead of the event index.
    pub time_axis: bool,
    /// The price file chosen in File ▸ Prices (`None`: tokens only).
    pub price_file: Option<std::path::PathBuf>,
    /// The context strip splits each model call's prompt into cache read and the rest.
    pub cache_split: bool,
    /// The context strip marks each request whose first change breaks the cache, by cause.
    pub cache_breaks: bool,
}

impl Default for Prefs {
    fn default() -> Self {
        Prefs {
            version: 1,
            theme: Default::default(),
            recent: Vec::new(),
            speed: 5.0,
            filter_mask: ALL_FAMILIES,
            whole_chain: false,
            tab: Default::default(),
            threshold_ratio: surface_engine::DEFAULT_THRESHOLD_RATIO,
            layout: Default::default(),
            time_axis: false,
            price_file: None,
            cache_split: false,
            cache_breaks: true,
        }
    }
}

/// Most recent files kept.
pub const MAX_RECENT: usize = 10;

impl Prefs {
    /// Puts `path` first in the recent list.
    pub fn remember(&mut self, path: &std::path::Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }
}

/// Where rows were drawn this frame, for arrows that connect them.
#[derive(Clone, Debug)]
pub struct RowGeometry {
    /// Visible timeline rows.
    pub timeline: Vec<(EventIdx, Rect)>,
    /// The timeline's visible area.
    pub timeline_clip: Rect,
    /// Right edge of the timeline gutter (arrows inside the timeline start here).
    pub gutter_right: f32,
    /// Visible surface-panel rows.
    pub surface: Vec<(EventIdx, Rect)>,
    /// The surface panel's visible area.
    pub surface_clip: Rect,
}

impl Default for RowGeometry {
    fn default() -> Self {
        RowGeometry {
            timeline: Vec::new(),
            timeline_clip: Rect::NOTHING,
            gutter_right: 0.0,
            surface: Vec::new(),
            surface_clip: Rect::NOTHING,
        }
    }
}

impl RowGeometry {
    /// Clears the rows (start of a frame).
    pub fn clear(&mut self) {
        self.timeline.clear();
        self.surface.clear();
        self.timeline_clip = Rect::NOTHING;
        self.surface_clip = Rect::NOTHING;
    }

    /// The timeline rect of `idx`, when visible.
    pub fn timeline_rect(&self, idx: EventIdx) -> Option<Rect> {
        self.timeline
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, r)| *r)
    }

    /// The surface-panel rect of `idx`, when visible.
    pub fn surface_rect(&self, idx: EventIdx) -> Option<Rect> {
        self.surface
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, r)| *r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_list() {
        let mut p = Prefs::default();
        for i in 0..12 {
            p.remember(std::path::Path::new(&format!("/tmp/{i}")));
        }
        p.remember(std::path::Path::new("/tmp/5"));
        assert_eq!(p.recent.len(), MAX_RECENT);
        assert_eq!(p.recent[0], std::path::PathBuf::from("/tmp/5"));
        assert_eq!(p.recent.iter().filter(|x| x.ends_with("5")).count(), 1);
    }
}

#[cfg(test)]
mod prefs_tests {
    use super::*;

    #[test]
    fn the_price_file_and_the_cache_split_persist_and_old_prefs_still_load() {
        let prefs = Prefs {
            price_file: Some("/tmp/prices.json".into()),
            cache_split: true,
            ..Default::default()
        };
        let text = serde_json::to_string(&prefs).unwrap();
        let back: Prefs = serde_json::from_str(&text).unwrap();
        assert_eq!(back.price_file, prefs.price_file);
        assert!(back.cache_split);
        // Preferences saved before these settings existed load with them off.
        let old: Prefs = serde_json::from_str(r#"{"version":1,"speed":5.0}"#).unwrap();
        assert!(old.price_file.is_none() && !old.cache_split);
        // The cache breaks' marks are on until turned off, and stay off once turned off.
        assert!(old.cache_breaks);
        let off = Prefs {
            cache_breaks: false,
            ..Default::default()
        };
        let back: Prefs = serde_json::from_str(&serde_json::to_string(&off).unwrap()).unwrap();
        assert!(!back.cache_breaks);
    }
}
