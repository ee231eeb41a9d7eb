//! The context strip's commands: the range it shows, its x axis, the threshold it draws and
//! whether the what-if, the cache split and the cache breaks are drawn over it — applied by [`crate::strip::apply`].

use crate::strip::zoom::Zoom;

/// A command of the context strip.
#[derive(Clone, Debug, PartialEq)]
pub enum StripCommand {
    /// Show this range of the log on the context strip (`None`: the whole log); the
    /// timeline scrolls to its middle.
    SetZoom(Option<Zoom>),
    /// Zoom the strip by this factor (below 1: in) around the cursor, or its middle when the
    /// cursor is off the range shown.
    ZoomStrip(f64),
    /// Pan the strip by this many widths (negative: towards the start).
    PanStrip(f64),
    /// Switch the strip's and the scrubber's x axis between event index and wall-clock
    /// time (the range shown and the cursor stay on the same events).
    ToggleTimeAxis,
    /// Set the compaction threshold as a fraction of the context window.
    SetThresholdRatio(f64),
    /// Draw the Policy tab's latest what-if over the strip, or not.
    ShowWhatIf(bool),
    /// Split each model call's prompt into cache read and the rest, or not (remembered).
    ShowCacheSplit(bool),
    /// Mark each request whose first change breaks the cache, by cause, or not (remembered).
    ShowCacheBreaks(bool),
}
