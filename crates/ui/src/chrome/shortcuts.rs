//! Keyboard shortcuts: one table drives both the key handling and the help overlay.

use egui::{Key, Modifiers};

use crate::command::NavCommand;
use crate::command::PreviewCommand;
use crate::command::ReplayCommand;
use crate::command::SessionCommand;
use crate::command::StripCommand;
use crate::command::TimelineCommand;
use crate::command::UiCommand;
use crate::command::WindowCommand;

/// One shortcut: keys, description, and the command it queues.
pub struct Shortcut {
    /// Modifiers that must be held (Shift variants are listed before plain ones).
    pub modifiers: Modifiers,
    /// The key.
    pub key: Key,
    /// How the help overlay names it.
    pub keys: &'static str,
    /// What it does.
    pub what: &'static str,
    /// Whether it also works while a text field has focus.
    pub in_text: bool,
    make: fn() -> UiCommand,
}

const fn sc(
    modifiers: Modifiers,
    key: Key,
    keys: &'static str,
    what: &'static str,
    in_text: bool,
    make: fn() -> UiCommand,
) -> Shortcut {
    Shortcut {
        modifiers,
        key,
        keys,
        what,
        in_text,
        make,
    }
}

const NONE: Modifiers = Modifiers::NONE;
const SHIFT: Modifiers = Modifiers::SHIFT;
const CMD: Modifiers = Modifiers::COMMAND;
const ALT: Modifiers = Modifiers::ALT;

/// Span kept by one zoom-in step (W).
const ZOOM_STEP: f64 = 0.6;
/// Widths moved by one pan step (A/D).
const PAN_STEP: f64 = 0.25;

/// Every shortcut, most specific first (extra Shift and Alt are ignored when matching).
pub const SHORTCUTS: &[Shortcut] = &[
    sc(
        ALT,
        Key::ArrowLeft,
        "Alt+← / mouse back",
        "back to where the last jump came from",
        false,
        || NavCommand::HistoryBack.into(),
    ),
    sc(
        ALT,
        Key::ArrowRight,
        "Alt+→ / mouse forward",
        "forward again",
        false,
        || NavCommand::HistoryForward.into(),
    ),
    sc(
        CMD,
        Key::ArrowLeft,
        "Ctrl+←",
        "previous turn (cursor past its turn/start)",
        false,
        || NavCommand::PrevTurn.into(),
    ),
    sc(CMD, Key::ArrowRight, "Ctrl+→", "next turn", false, || {
        NavCommand::NextTurn.into()
    }),
    sc(
        SHIFT,
        Key::ArrowLeft,
        "Shift+←",
        "previous compaction (replace op)",
        false,
        || NavCommand::PrevReplace.into(),
    ),
    sc(
        SHIFT,
        Key::ArrowRight,
        "Shift+→",
        "next compaction (replace op)",
        false,
        || NavCommand::NextReplace.into(),
    ),
    sc(
        NONE,
        Key::Comma,
        ",",
        "previous model call (cursor past its step/start)",
        false,
        || NavCommand::PrevModelCall.into(),
    ),
    sc(NONE, Key::Period, ".", "next model call", false, || {
        NavCommand::NextModelCall.into()
    }),
    sc(
        NONE,
        Key::ArrowLeft,
        "←",
        "step back one event",
        false,
        || NavCommand::StepBack.into(),
    ),
    sc(
        NONE,
        Key::ArrowRight,
        "→",
        "step forward one event",
        false,
        || NavCommand::StepForward.into(),
    ),
    sc(
        NONE,
        Key::ArrowUp,
        "↑",
        "select the row above (timeline, surface, Compactions or findings: the list clicked last)",
        false,
        || NavCommand::MoveSelection(-1).into(),
    ),
    sc(
        NONE,
        Key::ArrowDown,
        "↓",
        "select the row below",
        false,
        || NavCommand::MoveSelection(1).into(),
    ),
    sc(NONE, Key::PageUp, "PgUp", "select a page up", false, || {
        NavCommand::MoveSelectionPage(-1).into()
    }),
    sc(
        NONE,
        Key::PageDown,
        "PgDn",
        "select a page down",
        false,
        || NavCommand::MoveSelectionPage(1).into(),
    ),
    sc(
        CMD,
        Key::Home,
        "Ctrl+Home",
        "select the list's first row",
        false,
        || NavCommand::SelectListEnd(false).into(),
    ),
    sc(
        CMD,
        Key::End,
        "Ctrl+End",
        "select the list's last row",
        false,
        || NavCommand::SelectListEnd(true).into(),
    ),
    sc(
        NONE,
        Key::Home,
        "Home",
        "cursor to the start",
        false,
        || NavCommand::Home.into(),
    ),
    sc(NONE, Key::End, "End", "cursor to the end", false, || {
        NavCommand::End.into()
    }),
    sc(NONE, Key::Space, "Space", "play / pause", false, || {
        ReplayCommand::TogglePlay.into()
    }),
    sc(SHIFT, Key::F8, "Shift+F8", "previous finding", true, || {
        NavCommand::PrevFinding.into()
    }),
    sc(NONE, Key::F8, "F8", "next finding", true, || {
        NavCommand::NextFinding.into()
    }),
    sc(CMD, Key::F, "Ctrl+F", "search payloads", true, || {
        TimelineCommand::FocusSearch.into()
    }),
    sc(
        SHIFT,
        Key::F3,
        "Shift+F3 / Shift+Enter",
        "previous search hit",
        true,
        || TimelineCommand::PrevHit.into(),
    ),
    sc(NONE, Key::F3, "F3 / Enter", "next search hit", true, || {
        TimelineCommand::NextHit.into()
    }),
    sc(CMD, Key::O, "Ctrl+O", "open a file", true, || {
        SessionCommand::OpenDialog.into()
    }),
    sc(CMD, Key::Q, "Ctrl+Q", "quit", true, || {
        WindowCommand::Quit.into()
    }),
    sc(
        NONE,
        Key::W,
        "W",
        "zoom the context strip in",
        false,
        || StripCommand::ZoomStrip(ZOOM_STEP).into(),
    ),
    sc(
        NONE,
        Key::S,
        "S",
        "zoom the context strip out",
        false,
        || StripCommand::ZoomStrip(1.0 / ZOOM_STEP).into(),
    ),
    sc(
        NONE,
        Key::A,
        "A",
        "pan the context strip towards the start",
        false,
        || StripCommand::PanStrip(-PAN_STEP).into(),
    ),
    sc(
        NONE,
        Key::D,
        "D",
        "pan the context strip towards the end",
        false,
        || StripCommand::PanStrip(PAN_STEP).into(),
    ),
    sc(
        NONE,
        Key::T,
        "T",
        "context strip and scrubber: event index or wall-clock time",
        false,
        || StripCommand::ToggleTimeAxis.into(),
    ),
    sc(
        NONE,
        Key::F6,
        "F6",
        "show or hide the surface panel",
        true,
        || WindowCommand::ToggleSurfacePanel.into(),
    ),
    sc(
        NONE,
        Key::F7,
        "F7",
        "show or hide the side panel",
        true,
        || WindowCommand::ToggleSidePanel.into(),
    ),
    sc(NONE, Key::F1, "F1 or ?", "this help", true, || {
        WindowCommand::ToggleHelp.into()
    }),
    sc(NONE, Key::Questionmark, "?", "this help", false, || {
        WindowCommand::ToggleHelp.into()
    }),
    sc(
        NONE,
        Key::Escape,
        "Esc",
        "close help, clear the replace range",
        true,
        || PreviewCommand::ClearRange.into(),
    ),
];

/// Mouse gestures listed in the help overlay.
pub const GESTURES: &[(&str, &str)] = &[
    (
        "click a row",
        "select the event (inspector, provenance arrows)",
    ),
    (
        "double-click a timeline row",
        "move the replay cursor to it",
    ),
    (
        "click a surface node, shift-click another",
        "preview a replace of that range",
    ),
    (
        "click a gutter bracket",
        "select the replace that shadows the range",
    ),
    ("drag the scrubber", "move the cursor anywhere"),
    ("click the context strip", "move the cursor there"),
    (
        "drag across the context strip",
        "zoom to that range (the scrubber shows it on the whole log)",
    ),
    ("Ctrl+wheel on the context strip", "zoom at the pointer"),
    (
        "wheel, Shift+drag or middle-drag on the strip",
        "pan the zoomed strip",
    ),
    (
        "double-click the context strip",
        "show the whole log again (the cursor stays)",
    ),
    (
        "right-click the context strip",
        "set the compaction threshold it draws",
    ),
    (
        "hover the context strip",
        "the figures there; the line under the strip names every mark",
    ),
    (
        "“what-if curve” under the strip",
        "show or hide the Policy tab's latest what-if",
    ),
    (
        "click a Policy tab row or its first divergence",
        "move the cursor to that check",
    ),
    (
        "mouse back / forward buttons",
        "back / forward (as Alt+← / Alt+→)",
    ),
    (
        "drag a panel's edge; double-click it",
        "resize the panel; collapse it",
    ),
    ("drop a file on the window", "open it"),
];

/// Consumes the pressed shortcuts and returns their commands, one per press: presses that
/// arrive in the same frame (fast typing, auto-repeat while frames are slow) each count.
/// `text_focus` is true while a text field has keyboard focus (then only `in_text`
/// shortcuts apply).
pub fn consume(ctx: &egui::Context, text_focus: bool) -> Vec<UiCommand> {
    let mut out = Vec::new();
    // An open menu or context menu closes on Esc: leave the key to it.
    let popup_open = egui::Popup::is_any_open(ctx);
    ctx.input_mut(|i| {
        for s in SHORTCUTS {
            if s.key == Key::Escape && popup_open {
                continue;
            }
            if s.in_text || !text_focus {
                let presses = i.count_and_consume_key(s.modifiers, s.key);
                out.extend(std::iter::repeat_with(s.make).take(presses));
            }
        }
    });
    out
}
