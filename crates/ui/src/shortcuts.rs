//! Keyboard shortcuts: one table drives both the key handling and the help overlay.

use egui::{Key, Modifiers};

use super::command::UiCommand;

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

/// Every shortcut, most specific first.
pub const SHORTCUTS: &[Shortcut] = &[
    sc(
        SHIFT,
        Key::ArrowLeft,
        "Shift+←",
        "previous replace op",
        false,
        || UiCommand::PrevReplace,
    ),
    sc(
        SHIFT,
        Key::ArrowRight,
        "Shift+→",
        "next replace op",
        false,
        || UiCommand::NextReplace,
    ),
    sc(
        NONE,
        Key::ArrowLeft,
        "←",
        "step back one event",
        false,
        || UiCommand::StepBack,
    ),
    sc(
        NONE,
        Key::ArrowRight,
        "→",
        "step forward one event",
        false,
        || UiCommand::StepForward,
    ),
    sc(
        NONE,
        Key::Home,
        "Home",
        "cursor to the start",
        false,
        || UiCommand::Home,
    ),
    sc(NONE, Key::End, "End", "cursor to the end", false, || {
        UiCommand::End
    }),
    sc(NONE, Key::Space, "Space", "play / pause", false, || {
        UiCommand::TogglePlay
    }),
    sc(SHIFT, Key::F8, "Shift+F8", "previous finding", true, || {
        UiCommand::PrevFinding
    }),
    sc(NONE, Key::F8, "F8", "next finding", true, || {
        UiCommand::NextFinding
    }),
    sc(CMD, Key::F, "Ctrl+F", "search payloads", true, || {
        UiCommand::FocusSearch
    }),
    sc(
        SHIFT,
        Key::F3,
        "Shift+F3 / Shift+Enter",
        "previous search hit",
        true,
        || UiCommand::PrevHit,
    ),
    sc(NONE, Key::F3, "F3 / Enter", "next search hit", true, || {
        UiCommand::NextHit
    }),
    sc(CMD, Key::O, "Ctrl+O", "open a file", true, || {
        UiCommand::OpenDialog
    }),
    sc(NONE, Key::F1, "F1 or ?", "this help", true, || {
        UiCommand::ToggleHelp
    }),
    sc(NONE, Key::Questionmark, "?", "this help", false, || {
        UiCommand::ToggleHelp
    }),
    sc(
        NONE,
        Key::Escape,
        "Esc",
        "close help, clear the replace range",
        true,
        || UiCommand::ClearRange,
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
    ("drop a file on the window", "open it"),
];

/// Consumes the pressed shortcuts and returns their commands. `text_focus` is true while a
/// text field has keyboard focus (then only `in_text` shortcuts apply).
pub fn consume(ctx: &egui::Context, text_focus: bool) -> Vec<UiCommand> {
    let mut out = Vec::new();
    ctx.input_mut(|i| {
        for s in SHORTCUTS {
            if (s.in_text || !text_focus) && i.consume_key(s.modifiers, s.key) {
                out.push((s.make)());
            }
        }
    });
    out
}
