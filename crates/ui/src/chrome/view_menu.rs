//! The View menu: the theme, the arrows' reach, the families, following, and the panel and
//! navigation entries, each with its shortcut: the panels to show, the side panel's tabs, and
//! the cursor steps (turn, model call, compaction) and history.

use egui::Ui;

use crate::command::{NavCommand, SessionCommand, SideTab, StripCommand, TimelineCommand};
use crate::command::{UiCommand, WindowCommand};
use crate::theme::ThemeChoice;
use crate::view::{Prefs, ViewState};

/// One menu entry: label, shortcut, command.
type Entry = (&'static str, &'static str, fn() -> UiCommand);

/// Cursor steps and history, in menu order.
const GO: &[Entry] = &[
    ("Previous turn", "Ctrl+←", || NavCommand::PrevTurn.into()),
    ("Next turn", "Ctrl+→", || NavCommand::NextTurn.into()),
    ("Previous model call", ",", || {
        NavCommand::PrevModelCall.into()
    }),
    ("Next model call", ".", || NavCommand::NextModelCall.into()),
    ("Previous compaction", "Shift+←", || {
        NavCommand::PrevReplace.into()
    }),
    ("Next compaction", "Shift+→", || {
        NavCommand::NextReplace.into()
    }),
    ("Back", "Alt+←", || NavCommand::HistoryBack.into()),
    ("Forward", "Alt+→", || NavCommand::HistoryForward.into()),
];

/// The side panel's tabs, in tab order.
const TABS: &[(SideTab, &str)] = &[
    (SideTab::Inspector, "Inspector"),
    (SideTab::Compactions, "Compactions"),
    (SideTab::Findings, "Findings"),
    (SideTab::Request, "Request"),
    (SideTab::Preview, "Replace preview"),
    (SideTab::Policy, "Policy"),
    (SideTab::Tune, "Tune"),
    (SideTab::Compare, "Compare"),
];

/// The View menu: the theme, the arrows' reach, the families, following, then the panels,
/// the tabs and the cursor steps.
pub fn view_menu_ui(ui: &mut Ui, prefs: &Prefs, view: &ViewState, commands: &mut Vec<UiCommand>) {
    ui.label("Theme");
    for choice in [ThemeChoice::System, ThemeChoice::Dark, ThemeChoice::Light] {
        if ui
            .selectable_label(prefs.theme == choice, choice.label())
            .clicked()
        {
            commands.push(WindowCommand::SetTheme(choice).into());
        }
    }
    ui.separator();
    if ui
        .selectable_label(view.whole_chain, "Whole provenance chain")
        .clicked()
    {
        commands.push(TimelineCommand::ToggleChain.into());
    }
    if ui.button("Show every event type").clicked() {
        commands.push(TimelineCommand::ShowAllFamilies.into());
    }
    if ui
        .selectable_label(view.following, "Follow the file live")
        .on_hover_text("Tail a log an agent is still writing; the cursor follows the end")
        .clicked()
    {
        commands.push(SessionCommand::ToggleFollow.into());
    }
    ui.separator();
    panels_and_steps_ui(ui, prefs, commands);
}

/// The panel toggles, the tabs and the cursor steps of the View menu.
fn panels_and_steps_ui(ui: &mut Ui, prefs: &Prefs, commands: &mut Vec<UiCommand>) {
    let layout = &prefs.layout;
    if ui
        .add(egui::Button::selectable(layout.surface_open, "Surface panel").shortcut_text("F6"))
        .clicked()
    {
        commands.push(WindowCommand::ToggleSurfacePanel.into());
    }
    if ui
        .add(egui::Button::selectable(layout.side_open, "Side panel").shortcut_text("F7"))
        .clicked()
    {
        commands.push(WindowCommand::ToggleSidePanel.into());
    }
    if ui
        .add(
            egui::Button::selectable(prefs.time_axis, "Time axis on the context strip")
                .shortcut_text("T"),
        )
        .clicked()
    {
        commands.push(StripCommand::ToggleTimeAxis.into());
    }
    if ui
        .selectable_label(prefs.cache_breaks, "Cache breaks on the context strip")
        .on_hover_text(
            "Mark each model call whose request's first change breaks the cache, by cause \
             (docs/cost.md, \"Why the cache missed\")",
        )
        .clicked()
    {
        commands.push(StripCommand::ShowCacheBreaks(!prefs.cache_breaks).into());
    }
    ui.separator();
    for &(tab, label) in TABS {
        if ui.selectable_label(prefs.tab == tab, label).clicked() {
            commands.push(WindowCommand::ShowTab(tab).into());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tab, each once (the match fails to compile when a tab is added).
    #[test]
    fn the_view_menu_lists_every_tab() {
        let listed = |tab: SideTab| TABS.iter().filter(|(t, _)| *t == tab).count();
        for tab in [
            SideTab::Inspector,
            SideTab::Preview,
            SideTab::Compactions,
            SideTab::Findings,
            SideTab::Request,
            SideTab::Policy,
            SideTab::Tune,
            SideTab::Compare,
        ] {
            match tab {
                SideTab::Inspector
                | SideTab::Preview
                | SideTab::Compactions
                | SideTab::Findings
                | SideTab::Request
                | SideTab::Policy
                | SideTab::Tune
                | SideTab::Compare => assert_eq!(listed(tab), 1, "{tab:?}"),
            }
        }
    }
}
