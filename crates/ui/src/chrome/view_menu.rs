//! The View menu's panel and navigation entries, each with its shortcut: the panels to show,
//! the side panel's tabs, and the cursor steps (turn, model call, compaction) and history.

use egui::Ui;

use crate::command::{SideTab, UiCommand};
use crate::view::Prefs;

/// One menu entry: label, shortcut, command.
type Entry = (&'static str, &'static str, fn() -> UiCommand);

/// Cursor steps and history, in menu order.
const GO: &[Entry] = &[
    ("Previous turn", "Ctrl+←", || UiCommand::PrevTurn),
    ("Next turn", "Ctrl+→", || UiCommand::NextTurn),
    ("Previous model call", ",", || UiCommand::PrevModelCall),
    ("Next model call", ".", || UiCommand::NextModelCall),
    ("Previous compaction", "Shift+←", || {
        UiCommand::PrevReplace
    }),
    ("Next compaction", "Shift+→", || UiCommand::NextReplace),
    ("Back", "Alt+←", || UiCommand::HistoryBack),
    ("Forward", "Alt+→", || UiCommand::HistoryForward),
];

/// The side panel's tabs, in tab order.
const TABS: &[(SideTab, &str)] = &[
    (SideTab::Inspector, "Inspector"),
    (SideTab::Compactions, "Compactions"),
    (SideTab::Findings, "Findings"),
    (SideTab::Request, "Request"),
    (SideTab::Preview, "Replace preview"),
    (SideTab::Policy, "Policy"),
];

/// The panel toggles, the tabs and the cursor steps of the View menu.
pub fn panels_and_steps_ui(ui: &mut Ui, prefs: &Prefs, commands: &mut Vec<UiCommand>) {
    let layout = &prefs.layout;
    if ui
        .add(egui::Button::selectable(layout.surface_open, "Surface panel").shortcut_text("F6"))
        .clicked()
    {
        commands.push(UiCommand::ToggleSurfacePanel);
    }
    if ui
        .add(egui::Button::selectable(layout.side_open, "Side panel").shortcut_text("F7"))
        .clicked()
    {
        commands.push(UiCommand::ToggleSidePanel);
    }
    if ui
        .add(
            egui::Button::selectable(prefs.time_axis, "Time axis on the context strip")
                .shortcut_text("T"),
        )
        .clicked()
    {
        commands.push(UiCommand::ToggleTimeAxis);
    }
    ui.separator();
    for &(tab, label) in TABS {
        if ui.selectable_label(prefs.tab == tab, label).clicked() {
            commands.push(UiCommand::ShowTab(tab));
        }
    }
    ui.separator();
    ui.menu_button("Go", |ui| {
        for &(label, keys, make) in GO {
            if ui
                .add(egui::Button::new(label).shortcut_text(keys))
                .clicked()
            {
                commands.push(make());
            }
        }
    });
}
