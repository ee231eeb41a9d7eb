//! Design tokens: the only place with colours, strokes and sizes of the viewer.

use egui::{Color32, Stroke, Ui, Visuals};
use serde::{Deserialize, Serialize};

use surface_engine::{EventState, Severity};

/// Height of one timeline row, in points.
pub const ROW_HEIGHT: f32 = 18.0;
/// The Compare tab's turn column, at least, in points.
pub const COMPARE_TURN_WIDTH: f32 = 52.0;
/// The most height B's timeline in the Compare tab takes, in points.
pub const COMPARE_B_TIMELINE_HEIGHT: f32 = 240.0;
/// The Compare tab's figure columns, at least, in points.
pub const COMPARE_FIGURE_WIDTH: f32 = 44.0;
/// Height of one surface-panel row, in points.
pub const NODE_ROW_HEIGHT: f32 = 20.0;
/// Font size of the surface panel's fixed columns (seq, role, op, tokens).
pub const NODE_FONT_SIZE: f32 = 12.0;
/// Height of one row of the Compactions table and of the before | after lists.
pub const COMPACTION_ROW_HEIGHT: f32 = 20.0;
/// Widths of the Compactions table's columns: seq, kind, trigger, fill before → after,
/// tokens saved, summary tokens, lost terms, refetches, facts kept (they fit the side panel's default
/// width).
pub const COMPACTION_COLUMNS: [f32; 9] = [48.0, 66.0, 100.0, 64.0, 52.0, 66.0, 44.0, 56.0, 44.0];
/// Widths of the Compactions table's cost columns by their declaration (summarizer, saved/call
/// × calls, cache lost, balance): the balance is shown beside the kind, its parts after the
/// audit's columns.
pub const COMPACTION_COST_COLUMNS: [f32; 4] = [82.0, 120.0, 72.0, 84.0];
/// Width of the price file's path field (File ▸ Prices).
pub const PRICE_PATH_WIDTH: f32 = 320.0;
/// Width of a bar of the strip's cache split (one model call), at most.
pub const STRIP_CACHE_BAR: f32 = 3.0;
/// Width of the Compactions table's short policy column after `seq` ("agrees" / "differs" /
/// "can't judge"), visible at the panel's default width; the whole verdict is in the last
/// column and the hover.
pub const COMPACTION_POLICY_SHORT_WIDTH: f32 = 84.0;
/// Width of the Compactions table's last column, the policy's verdict (the table scrolls
/// sideways to it in a narrow panel; the whole verdict is in the row's hover).
pub const COMPACTION_POLICY_WIDTH: f32 = 340.0;
/// Font size of the Compactions table and the before | after lists.
pub const COMPACTION_FONT_SIZE: f32 = 12.0;
/// Share of the Compactions tab's height the table may take when a replace is shown below
/// (less when its rows need less).
pub const COMPACTION_TABLE_SHARE: f32 = 0.4;
/// Share of the Compactions tab's height the table may take when no replace is shown.
pub const COMPACTION_TABLE_SHARE_ALONE: f32 = 0.6;
/// Width of the role column of the before | after lists.
pub const COMPARE_ROLE_WIDTH: f32 = 70.0;
/// Height of each before | after surface list.
pub const COMPARE_LIST_HEIGHT: f32 = 200.0;
/// Height of the summary and shadowed-text boxes.
pub const COMPARE_TEXT_HEIGHT: f32 = 320.0;
/// Size of a trigger's colour chip.
pub const TRIGGER_CHIP: f32 = 9.0;
/// Width of the gutter left of the timeline rows (shadow brackets, arrows).
pub const GUTTER_WIDTH: f32 = 44.0;
/// Width of one bracket lane in the gutter.
pub const LANE_WIDTH: f32 = 7.0;
/// Number of bracket lanes in the gutter.
pub const LANES: usize = 4;
/// Width of the seq column (seven digits and a margin).
pub const SEQ_WIDTH: f32 = 60.0;
/// Room after the text of a fixed-width column (seq, op) before the next one.
pub const COLUMN_MARGIN: f32 = 8.0;
/// Width of the relative-time column.
pub const TIME_WIDTH: f32 = 68.0;
/// Width of the type column.
pub const TYPE_WIDTH: f32 = 150.0;
/// Width of the state column.
pub const STATE_WIDTH: f32 = 78.0;
/// Width of the token column of the before | after lists.
pub const TOKENS_WIDTH: f32 = 52.0;
/// Height of the replay scrubber.
pub const SCRUBBER_HEIGHT: f32 = 22.0;
/// Height of a search-hit mark along the scrubber's bottom edge.
pub const SCRUBBER_HIT_MARK: f32 = 5.0;
/// Width of the shortcut overlay.
pub const HELP_WIDTH: f32 = 560.0;
/// Share of the window height the shortcut overlay's list may take before it scrolls.
pub const HELP_HEIGHT_SHARE: f32 = 0.65;
/// Opacity of the brushed range and of the zoomed range on the scrubber.
pub const RANGE_BAND_ALPHA: f32 = 0.4;
/// Stroke width of a one-hop provenance arrow.
pub const ARROW_WIDTH: f32 = 1.8;
/// Stroke width of a transitive (chain) provenance arrow.
pub const CHAIN_ARROW_WIDTH: f32 = 1.0;
/// Distance (points) within which the pointer hovers an arrow.
pub const ARROW_HOVER_DISTANCE: f32 = 5.0;
/// Default width of the right-hand panel (inspector, preview, findings) as a share of the
/// window width, and its bounds.
pub const SIDE_PANEL_SHARE: (f32, f32, f32) = (0.26, 260.0, 460.0);
/// Default width of the surface panel as a share of the window width, and its bounds.
pub const SURFACE_PANEL_SHARE: (f32, f32, f32) = (0.29, 280.0, 500.0);
/// The narrowest payload column the timeline keeps whatever the side panels' widths.
pub const PAYLOAD_MIN_WIDTH: f32 = 160.0;
/// The timeline's scroll bar and margins beside its columns.
pub const TIMELINE_CHROME_WIDTH: f32 = 34.0;
/// Width of a collapsed side panel (one button that opens it again).
pub const COLLAPSED_PANEL_WIDTH: f32 = 26.0;
/// The most of the window width a side panel may take when resized by hand.
pub const PANEL_MAX_SHARE: f32 = 0.45;
/// Small gap between widgets.
pub const SPACE_SMALL: f32 = 4.0;
/// Gap between groups of widgets.
pub const SPACE: f32 = 8.0;
/// Gap around big blocks (the welcome screen).
pub const SPACE_LARGE: f32 = 16.0;
/// Corner radius of frames, banners and the scrubber track.
pub const CORNER_RADIUS: f32 = 4.0;
/// Inner margin of banners.
pub const BANNER_MARGIN: f32 = 6.0;
/// Seconds a notice (an information banner) stays before it clears itself.
pub const NOTICE_SECONDS: f64 = 6.0;
/// Gap between a notice laid over the panels and the edges of the window under the menu bar.
pub const NOTICE_INSET: f32 = 4.0;
/// Height of one row of the findings panel (two lines of text).
pub const FINDING_ROW_HEIGHT: f32 = 38.0;
/// Font size of the event JSON line in the replace preview.
pub const CODE_LINE_SIZE: f32 = 11.5;
/// Half the height of the scrubber track.
pub const SCRUBBER_TRACK_HALF: f32 = 3.0;
/// Radius of the scrubber handle.
pub const SCRUBBER_HANDLE_RADIUS: f32 = 6.0;
/// Pixels per marker below which scrubber markers are drawn thin and translucent.
pub const SCRUBBER_MARKER_SPACING: f32 = 6.0;
/// Size of an arrow head.
pub const ARROW_HEAD: f32 = 6.0;
/// How far an arrow end stays inside the view when its row is off screen.
pub const ARROW_EDGE_INSET: f32 = 6.0;
/// Share of the vertical distance a gutter curve bulges sideways, and its minimum.
pub const ARROW_BULGE: (f32, f32) = (0.35, 8.0);
/// Hairline strokes: separators, outlines, tracks.
pub const STROKE_THIN: f32 = 1.0;
/// Medium strokes: the cursor line, brackets.
pub const STROKE_MEDIUM: f32 = 2.0;
/// Thick strokes: emphasis marks (the entered node, a hovered bracket).
pub const STROKE_THICK: f32 = 3.0;
/// How much wider a hovered arrow is drawn.
pub const ARROW_HOVER_EXTRA: f32 = 2.0;
/// Width of a hovered shadow bracket.
pub const BRACKET_HOVER_WIDTH: f32 = 3.5;
/// Gap between the timeline and the surface panel where cross-panel arrows run.
pub const BRIDGE_WIDTH: f32 = 28.0;
/// Height of the context strip above the scrubber.
pub const STRIP_HEIGHT: f32 = 64.0;
/// Empty space above and below the context strip's plot.
pub const STRIP_PADDING: f32 = 3.0;
/// Radius of a reported-usage dot in the context strip.
pub const STRIP_DOT_RADIUS: f32 = 2.0;
/// Length of a replace-op mark at the top of the context strip.
pub const STRIP_OP_MARK: f32 = 10.0;
/// Height of a request-over-the-threshold mark along the bottom of the context strip.
pub const STRIP_OVER_MARK: f32 = 8.0;
/// Width of a replace-op mark on the context strip (1 pixel when they crowd).
pub const STRIP_OP_MARK_WIDTH: f32 = 3.0;
/// Half the size of a cache-break mark on the context strip (under the replace-op marks).
pub const STRIP_BREAK_MARK: f32 = 3.5;
/// How far (points) from a cache-break mark a click or the hover still finds it.
pub const STRIP_BREAK_REACH: f32 = 5.0;
/// Length of the underline under a hovered link cell of the Compactions table.
pub const COMPACTION_LINK_UNDERLINE: f32 = 36.0;
/// Alpha of the Request view's highlight of a request's first change.
pub const FIRST_CHANGE_ALPHA: f32 = 0.22;
/// Dash length of the threshold line.
pub const STRIP_DASH: f32 = 4.0;
/// Font size of the context strip's label.
pub const STRIP_LABEL_SIZE: f32 = 11.0;
/// Least room between two ticks of the context strip's x axis.
pub const STRIP_TICK_SPACING: f32 = 90.0;
/// Length of a tick on the context strip's bottom edge.
pub const STRIP_TICK: f32 = 4.0;
/// Height of a model-call bar along the bottom of the context strip (time axis).
pub const STRIP_CALL_BAR: f32 = 3.0;
/// Narrowest idle stretch on the time axis that is named (`idle 12m`).
pub const STRIP_IDLE_LABEL_MIN: f32 = 60.0;
/// Height of the legend row under the context strip.
pub const STRIP_LEGEND_SIZE: f32 = 10.5;
/// Height of the request view's stacked bar.
pub const REQUEST_BAR_HEIGHT: f32 = 22.0;
/// Size of a legend swatch.
pub const SWATCH_SIZE: f32 = 10.0;
/// The widest a column of the Request tab's figures grows, as a share of the panel: labels
/// wrap past it, so the figures beside them stay in view in a narrow panel.
pub const REQUEST_LABEL_SHARE: f32 = 0.5;

/// Adds the bundled monospace font as a fallback of the proportional family, so that the
/// arrows and shapes the UI uses (▲ ▶ ◀ ⇤ ↑ ● ■) render with the default fonts alone, and the
/// bundled CJK subset as the last fallback for Chinese, Japanese and Korean text, loaded only
/// when such text is drawn. Installed system fonts come first: eframe's system font provider
/// is asked before the bundled one.
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = egui::FontDefinitions::default();
    let mono = fonts
        .families
        .get(&egui::FontFamily::Monospace)
        .and_then(|f| f.first().cloned());
    if let (Some(mono), Some(prop)) = (
        mono,
        fonts.families.get_mut(&egui::FontFamily::Proportional),
    ) && !prop.contains(&mono)
    {
        prop.push(mono);
    }
    ctx.set_fonts(fonts);
    ctx.add_font_provider(crate::cjk_font::CjkFallback::provider());
}

/// A panel width: `share` of the window width within `(share, min, max)`'s bounds.
pub fn panel_width(window_width: f32, (share, min, max): (f32, f32, f32)) -> f32 {
    (window_width * share).clamp(min, max)
}

/// Height of one row of the sessions browser.
pub const BROWSER_ROW_HEIGHT: f32 = 20.0;
/// Indentation of a fork under its parent in the sessions browser.
pub const BROWSER_INDENT: f32 = 14.0;
/// Width of a Policy tab settings field.
pub const POLICY_FIELD_WIDTH: f32 = 90.0;
/// Height of a line of the Policy tab's verdict table (a row with a reason has two).
pub const POLICY_ROW_HEIGHT: f32 = 18.0;
/// Widths of the Policy tab's verdict columns (seq, turn.step, agrees, outcome, total /
/// threshold, decision, total after, figures); the table scrolls sideways in a narrow panel.
pub const POLICY_COLUMNS: [f32; 8] = [56.0, 80.0, 88.0, 150.0, 118.0, 300.0, 84.0, 76.0];
/// Share of the Policy tab's height its upper pane (settings, inferred, totals) takes at
/// first; the user drags its edge.
pub const POLICY_UPPER_SHARE: f32 = 0.45;
/// Height the Policy tab's verdict table keeps at least below the upper pane.
pub const POLICY_TABLE_MIN_HEIGHT: f32 = 140.0;
/// Width of a Tune view's grid field (the axis's VALUES).
pub const TUNE_FIELD_WIDTH: f32 = 170.0;
/// Height of a line of the Tune table.
pub const TUNE_ROW_HEIGHT: f32 = 18.0;
/// Widths of the Tune table's columns: the index, the setting, a small figure with its range
/// (`16 (12–16)`) and a large one (`221497 (205324–238456)`); the table scrolls sideways in
/// a narrow panel.
pub const TUNE_COLUMNS: (f32, f32, f32, f32) = (36.0, 196.0, 110.0, 168.0);
/// Share of the height below the form the frontier chart takes, and its least and most.
pub const TUNE_CHART_SHARE: (f32, f32, f32) = (0.45, 120.0, 420.0);
/// Least height the Tune table keeps below the chart.
pub const TUNE_TABLE_MIN_HEIGHT: f32 = 140.0;
/// Radius of a setting's point on the frontier chart; of the baseline's square; of the ring
/// around the recommendation (and the selected setting).
pub const TUNE_POINT_RADIUS: (f32, f32, f32) = (3.0, 5.0, 8.0);
/// How near the pointer must be to a point of the chart to hover or click it.
pub const TUNE_PICK_DISTANCE: f32 = 10.0;
/// Least width of the frontier chart's objective axis (its tick labels, `1100 k`).
pub const TUNE_Y_AXIS_WIDTH: f32 = 44.0;
/// Width of a Tune view's progress bar.
pub const TUNE_PROGRESS_WIDTH: f32 = 180.0;
/// Initial width of the project column.
pub const BROWSER_PROJECT_WIDTH: f32 = 170.0;
/// Initial width of the two time columns.
pub const BROWSER_TIME_WIDTH: f32 = 118.0;
/// Initial width of the number columns (events, compactions, size).
pub const BROWSER_NUMBER_WIDTH: f32 = 84.0;
/// Initial width of the errors/warnings column.
pub const BROWSER_PROBLEMS_WIDTH: f32 = 120.0;
/// Initial width of the format column (`JSONL packed`).
pub const BROWSER_FORMAT_WIDTH: f32 = 100.0;
/// Initial width of the path column.
pub const BROWSER_PATH_WIDTH: f32 = 200.0;
/// Width of the browser's filter box.
pub const BROWSER_FILTER_WIDTH: f32 = 280.0;
/// Width of the browser's progress bar.
pub const BROWSER_PROGRESS_WIDTH: f32 = 160.0;
/// Height of the browser's notes list when open.
pub const BROWSER_NOTES_HEIGHT: f32 = 120.0;
/// Default size of the window.
pub const WINDOW_SIZE: [f32; 2] = [1440.0, 900.0];
/// Smallest size of the window.
pub const WINDOW_MIN_SIZE: [f32; 2] = [900.0, 560.0];

/// The window's background for a set of visuals (the palette's `background`): laid once per
/// frame, see [`crate::chrome::background`].
pub fn window_background(visuals: &Visuals) -> Color32 {
    palette_for(visuals).background
}

/// Panels paint no fill, in both themes: the background under them is laid once per frame
/// ([`crate::chrome::background`]), not once per nested panel.
pub fn install_panel_style(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| style.visuals.panel_fill = Color32::TRANSPARENT);
}

/// The user's theme choice, persisted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Follow the operating system.
    #[default]
    System,
    /// Always dark.
    Dark,
    /// Always light.
    Light,
}

impl ThemeChoice {
    /// Applies the choice to the context.
    pub fn apply(self, ctx: &egui::Context) {
        ctx.set_theme(match self {
            ThemeChoice::System => egui::ThemePreference::System,
            ThemeChoice::Dark => egui::ThemePreference::Dark,
            ThemeChoice::Light => egui::ThemePreference::Light,
        });
    }

    /// A short label for menus.
    pub fn label(self) -> &'static str {
        match self {
            ThemeChoice::System => "Follow system",
            ThemeChoice::Dark => "Dark",
            ThemeChoice::Light => "Light",
        }
    }
}

/// Event type families, each with its own colour in the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Family {
    /// `turn/*`, `step/*`.
    TurnStep,
    /// `user/*`.
    User,
    /// `assistant/*`.
    Assistant,
    /// `tool/*`.
    Tool,
    /// `compaction/*`.
    Compaction,
    /// `request/*`, `context/*`, `steering/*`.
    RequestContext,
    /// Everything else.
    Other,
}

impl Family {
    /// Every family, in display order.
    pub const ALL: [Family; 7] = [
        Family::TurnStep,
        Family::User,
        Family::Assistant,
        Family::Tool,
        Family::Compaction,
        Family::RequestContext,
        Family::Other,
    ];

    /// The family of an event type name.
    pub fn of(type_name: &str) -> Family {
        let prefix = type_name.split('/').next().unwrap_or("");
        match prefix {
            "turn" | "step" => Family::TurnStep,
            "user" => Family::User,
            "assistant" => Family::Assistant,
            "tool" => Family::Tool,
            "compaction" => Family::Compaction,
            "request" | "context" | "steering" => Family::RequestContext,
            _ => Family::Other,
        }
    }

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Family::TurnStep => "turn/step",
            Family::User => "user",
            Family::Assistant => "assistant",
            Family::Tool => "tool",
            Family::Compaction => "compaction",
            Family::RequestContext => "request/context",
            Family::Other => "other",
        }
    }

    /// Bit of this family in a filter mask.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The colours of one theme.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    /// Whether this is the dark palette.
    pub dark: bool,
    /// The window's background, under every panel (egui's own panel colour, so the look is
    /// egui's).
    pub background: Color32,
    /// Normal text.
    pub text: Color32,
    /// Secondary text (time, counts).
    pub weak_text: Color32,
    /// Text of shadowed events.
    pub shadowed_text: Color32,
    /// Text of events after the cursor.
    pub not_reached_text: Color32,
    /// Invalid ops and error findings.
    pub error: Color32,
    /// Warnings.
    pub warning: Color32,
    /// On-surface state chip.
    pub on_surface: Color32,
    /// Row background of the selected event.
    pub selection_bg: Color32,
    /// Row background of a replace-preview range.
    pub range_bg: Color32,
    /// Row background of the event at the cursor.
    pub cursor_bg: Color32,
    /// Background of a node that just entered the surface.
    pub entered_bg: Color32,
    /// Background of shadowed rows.
    pub shadowed_bg: Color32,
    /// Background of search hits.
    pub hit_bg: Color32,
    /// Search-hit marks on the scrubber.
    pub search_hit: Color32,
    /// Background of a lost term in the shadowed text of a compaction.
    pub lost_term_bg: Color32,
    /// Compactions triggered by a context-window overflow.
    pub trigger_overflow: Color32,
    /// Compactions a command asked for.
    pub trigger_command: Color32,
    /// Compactions run under threshold pressure.
    pub trigger_pressure: Color32,
    /// Compactions run below the threshold.
    pub trigger_below: Color32,
    /// Replaces without a trigger (other kinds, or no window known).
    pub trigger_none: Color32,
    /// Provenance arrow to a source.
    pub arrow_source: Color32,
    /// Provenance arrow from a citing event.
    pub arrow_cited_by: Color32,
    /// Scrubber track.
    pub track: Color32,
    /// Scrubber fill up to the cursor.
    pub track_fill: Color32,
    /// Banner background for errors.
    pub banner_error_bg: Color32,
    /// Banner background for information.
    pub banner_info_bg: Color32,
    /// Context strip background.
    pub strip_bg: Color32,
    /// Area under the context curve.
    pub strip_fill: Color32,
    /// The context curve (the meter's total).
    pub strip_curve: Color32,
    /// The context window line.
    pub strip_window: Color32,
    /// Provider-reported prompt sizes.
    pub strip_reported: Color32,
    /// Marks of model requests made over the threshold.
    pub strip_over_threshold: Color32,
    /// The Policy tab's what-if over the strip: its total, its threshold and its compactions.
    pub what_if: Color32,
    /// The second run of a comparison (docs/compare.md): its context curve and compactions.
    pub run_b: Color32,
    /// Request bar: the system prompt.
    pub bar_system: Color32,
    /// Request bar: the tools.
    pub bar_tools: Color32,
    /// Request bar: the messages.
    pub bar_messages: Color32,
    /// Request bar: the free part of the window.
    pub bar_free: Color32,
    /// The strip's cache split: the part of a call's prompt read from the cache.
    pub cache_read: Color32,
    /// The strip's cache split: the rest of the prompt (uncached + cache write).
    pub cache_rest: Color32,
    /// A compaction's balance above zero (it cost more than it saved).
    pub balance_cost: Color32,
    /// A compaction's balance below zero (it paid for itself).
    pub balance_saving: Color32,
}

/// The palette matching the current visuals.
pub fn palette(ui: &Ui) -> Palette {
    palette_for(ui.visuals())
}

/// The palette for a set of visuals.
pub fn palette_for(visuals: &Visuals) -> Palette {
    if visuals.dark_mode { DARK } else { LIGHT }
}

const DARK: Palette = Palette {
    dark: true,
    background: Color32::from_gray(27),
    text: Color32::from_rgb(220, 222, 226),
    weak_text: Color32::from_rgb(140, 146, 156),
    shadowed_text: Color32::from_rgb(110, 114, 122),
    not_reached_text: Color32::from_rgb(88, 92, 100),
    error: Color32::from_rgb(240, 96, 96),
    warning: Color32::from_rgb(230, 180, 80),
    on_surface: Color32::from_rgb(110, 200, 130),
    selection_bg: Color32::from_rgb(40, 70, 110),
    range_bg: Color32::from_rgb(70, 55, 100),
    cursor_bg: Color32::from_rgb(48, 52, 40),
    entered_bg: Color32::from_rgb(30, 80, 50),
    shadowed_bg: Color32::from_rgb(34, 34, 38),
    hit_bg: Color32::from_rgb(90, 80, 30),
    search_hit: Color32::from_rgb(240, 200, 60),
    lost_term_bg: Color32::from_rgb(120, 72, 20),
    trigger_overflow: Color32::from_rgb(240, 90, 90),
    trigger_command: Color32::from_rgb(190, 130, 240),
    trigger_pressure: Color32::from_rgb(245, 160, 60),
    trigger_below: Color32::from_rgb(100, 200, 120),
    trigger_none: Color32::from_rgb(140, 146, 156),
    arrow_source: Color32::from_rgb(90, 170, 255),
    arrow_cited_by: Color32::from_rgb(255, 150, 80),
    track: Color32::from_rgb(50, 54, 60),
    track_fill: Color32::from_rgb(70, 110, 160),
    banner_error_bg: Color32::from_rgb(90, 36, 36),
    banner_info_bg: Color32::from_rgb(36, 56, 84),
    strip_bg: Color32::from_rgb(30, 32, 36),
    strip_fill: Color32::from_rgb(40, 62, 90),
    strip_curve: Color32::from_rgb(110, 180, 255),
    strip_window: Color32::from_rgb(150, 150, 160),
    strip_reported: Color32::from_rgb(255, 150, 80),
    strip_over_threshold: Color32::from_rgb(255, 70, 70),
    what_if: Color32::from_rgb(140, 230, 90),
    run_b: Color32::from_rgb(235, 120, 225),
    bar_system: Color32::from_rgb(120, 210, 210),
    bar_tools: Color32::from_rgb(230, 190, 90),
    bar_messages: Color32::from_rgb(110, 170, 250),
    bar_free: Color32::from_rgb(50, 54, 60),
    cache_read: Color32::from_rgb(80, 200, 160),
    cache_rest: Color32::from_rgb(235, 110, 150),
    balance_cost: Color32::from_rgb(255, 120, 110),
    balance_saving: Color32::from_rgb(110, 220, 120),
};

const LIGHT: Palette = Palette {
    dark: false,
    background: Color32::from_gray(248),
    text: Color32::from_rgb(30, 32, 36),
    weak_text: Color32::from_rgb(100, 106, 116),
    shadowed_text: Color32::from_rgb(150, 152, 158),
    not_reached_text: Color32::from_rgb(180, 182, 188),
    error: Color32::from_rgb(200, 30, 30),
    warning: Color32::from_rgb(170, 110, 0),
    on_surface: Color32::from_rgb(20, 130, 60),
    selection_bg: Color32::from_rgb(190, 215, 245),
    range_bg: Color32::from_rgb(225, 210, 245),
    cursor_bg: Color32::from_rgb(240, 240, 210),
    entered_bg: Color32::from_rgb(200, 240, 205),
    shadowed_bg: Color32::from_rgb(238, 238, 240),
    hit_bg: Color32::from_rgb(255, 235, 150),
    search_hit: Color32::from_rgb(180, 130, 0),
    lost_term_bg: Color32::from_rgb(255, 200, 140),
    trigger_overflow: Color32::from_rgb(210, 40, 40),
    trigger_command: Color32::from_rgb(140, 70, 180),
    trigger_pressure: Color32::from_rgb(225, 120, 20),
    trigger_below: Color32::from_rgb(40, 140, 60),
    trigger_none: Color32::from_rgb(120, 126, 136),
    arrow_source: Color32::from_rgb(20, 100, 220),
    arrow_cited_by: Color32::from_rgb(220, 100, 20),
    track: Color32::from_rgb(215, 218, 224),
    track_fill: Color32::from_rgb(140, 175, 225),
    banner_error_bg: Color32::from_rgb(250, 215, 215),
    banner_info_bg: Color32::from_rgb(215, 230, 250),
    strip_bg: Color32::from_rgb(246, 247, 249),
    strip_fill: Color32::from_rgb(205, 222, 245),
    strip_curve: Color32::from_rgb(30, 100, 210),
    strip_window: Color32::from_rgb(110, 110, 120),
    strip_reported: Color32::from_rgb(220, 100, 20),
    strip_over_threshold: Color32::from_rgb(205, 30, 30),
    what_if: Color32::from_rgb(30, 145, 40),
    run_b: Color32::from_rgb(170, 40, 160),
    bar_system: Color32::from_rgb(0, 150, 155),
    bar_tools: Color32::from_rgb(200, 140, 0),
    bar_messages: Color32::from_rgb(40, 110, 220),
    bar_free: Color32::from_rgb(225, 228, 234),
    cache_read: Color32::from_rgb(0, 140, 105),
    cache_rest: Color32::from_rgb(200, 40, 110),
    balance_cost: Color32::from_rgb(190, 30, 30),
    balance_saving: Color32::from_rgb(20, 130, 40),
};

impl Palette {
    /// The colour of a compaction trigger (and of a replace without one).
    pub fn trigger(&self, trigger: Option<surface_analysis::audit::Trigger>) -> Color32 {
        use surface_analysis::audit::Trigger;
        match trigger {
            Some(Trigger::Overflow) => self.trigger_overflow,
            Some(Trigger::Command) => self.trigger_command,
            Some(Trigger::Pressure) => self.trigger_pressure,
            Some(Trigger::BelowThreshold) => self.trigger_below,
            None => self.trigger_none,
        }
    }

    /// The colour of a cause of a cache break (docs/cost.md, "Why the cache missed"): the
    /// strip's marks, their legend and the Request view's first change.
    pub fn cache_break(&self, cause: surface_analysis::cost::Cause) -> Color32 {
        use surface_analysis::cost::Cause;
        let (d, l) = match cause {
            Cause::Model => ((240, 90, 90), (200, 30, 30)),
            Cause::System => ((245, 160, 60), (200, 100, 0)),
            Cause::Tools => ((230, 210, 80), (150, 120, 0)),
            Cause::Replace => ((230, 120, 230), (130, 20, 130)),
            Cause::Edit => ((90, 200, 255), (20, 100, 200)),
            Cause::Insert => ((120, 220, 150), (20, 130, 60)),
            Cause::None => ((140, 146, 156), (100, 106, 116)),
        };
        let (r, g, b) = if self.dark { d } else { l };
        Color32::from_rgb(r, g, b)
    }

    /// The colour of an event type family.
    pub fn family(&self, family: Family) -> Color32 {
        let (d, l) = match family {
            Family::TurnStep => ((150, 150, 160), (110, 110, 120)),
            Family::User => ((110, 190, 255), (20, 100, 200)),
            Family::Assistant => ((120, 220, 150), (20, 130, 60)),
            Family::Tool => ((230, 190, 90), (125, 80, 0)),
            Family::Compaction => ((230, 120, 230), (130, 20, 130)),
            Family::RequestContext => ((120, 210, 210), (0, 125, 130)),
            Family::Other => ((175, 165, 150), (120, 105, 90)),
        };
        let (r, g, b) = if self.dark { d } else { l };
        Color32::from_rgb(r, g, b)
    }

    /// The colour of a shadow bracket in lane `lane`.
    pub fn bracket(&self, lane: usize) -> Color32 {
        const DARK_LANES: [(u8, u8, u8); LANES] = [
            (200, 120, 220),
            (120, 170, 240),
            (230, 170, 90),
            (120, 210, 170),
        ];
        const LIGHT_LANES: [(u8, u8, u8); LANES] =
            [(150, 50, 170), (40, 90, 200), (180, 110, 0), (20, 140, 100)];
        let lanes = if self.dark { DARK_LANES } else { LIGHT_LANES };
        let (r, g, b) = lanes[lane % LANES];
        Color32::from_rgb(r, g, b)
    }

    /// The text colour of a timeline row in `state`.
    pub fn state_text(&self, state: EventState) -> Color32 {
        match state {
            EventState::NotReached => self.not_reached_text,
            EventState::Shadowed { .. } => self.shadowed_text,
            EventState::Invalid(_) => self.error,
            _ => self.text,
        }
    }

    /// The colour of the state chip.
    pub fn state_chip(&self, state: EventState) -> Color32 {
        match state {
            EventState::OnSurface => self.on_surface,
            EventState::Shadowed { .. } => self.bracket(0),
            EventState::Invalid(_) => self.error,
            EventState::MissingOp => self.warning,
            EventState::NotReached => self.not_reached_text,
            EventState::LogOnly => self.weak_text,
        }
    }

    /// The colour of a severity.
    pub fn severity(&self, severity: Severity) -> Color32 {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
        }
    }

    /// A stroke for a provenance arrow.
    pub fn arrow_stroke(&self, to_source: bool, chain: bool) -> Stroke {
        let color = if to_source {
            self.arrow_source
        } else {
            self.arrow_cited_by
        };
        if chain {
            Stroke::new(CHAIN_ARROW_WIDTH, color.gamma_multiply(0.6))
        } else {
            Stroke::new(ARROW_WIDTH, color)
        }
    }

    /// The outline of the row under the pointer (the timeline, the surface panel, the
    /// Compactions and Policy tables), drawn inside the row.
    pub fn hover_stroke(&self) -> Stroke {
        Stroke::new(STROKE_THIN, self.track_fill)
    }

    /// Scrubber marker stroke for replace ops (`op`) or findings; thin and translucent when
    /// markers are crowded.
    pub fn marker_stroke(&self, op: bool, crowded: bool) -> Stroke {
        let color = if op {
            self.family(Family::Compaction)
        } else {
            self.error
        };
        match (crowded, op) {
            (true, _) => Stroke::new(1.0, color.gamma_multiply(0.45)),
            (false, true) => Stroke::new(2.0, color),
            (false, false) => Stroke::new(1.5, color),
        }
    }
}

/// The context strip's time-axis colours, derived from the palette.
impl Palette {
    /// Idle stretches (no event for a while) behind the curve.
    pub fn strip_idle(&self) -> Color32 {
        self.weak_text.gamma_multiply(0.12)
    }

    /// Compactions, from their start event to their end, behind the curve.
    pub fn strip_compaction_span(&self) -> Color32 {
        self.family(Family::Compaction).gamma_multiply(0.22)
    }

    /// Model calls, from the request to the response, along the bottom edge.
    pub fn strip_call_span(&self) -> Color32 {
        self.arrow_source.gamma_multiply(0.8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        assert_eq!(Family::of("turn/start"), Family::TurnStep);
        assert_eq!(Family::of("step/end"), Family::TurnStep);
        assert_eq!(Family::of("compaction/summary"), Family::Compaction);
        assert_eq!(Family::of("request/context"), Family::RequestContext);
        assert_eq!(Family::of("context/message"), Family::RequestContext);
        assert_eq!(Family::of("session/title"), Family::Other);
        let mask: u8 = Family::ALL.iter().map(|f| f.bit()).fold(0, |a, b| a | b);
        assert_eq!(mask, 0x7f);
    }
}
