//! The menu bar: Back to the sessions browser, the File, Session, View and Help menus, the
//! arrows and follow toggles, and what the open log is.

use egui::{RichText, Ui};

use crate::command::{BrowserCommand, PreviewCommand, SessionCommand, TimelineCommand};
use crate::command::{UiCommand, WindowCommand};
use crate::session::loaded::Session;
use crate::theme;
use crate::view::{Prefs, ViewState};

/// What the menu bar offers about folders (the sessions browser).
pub struct BrowserMenu<'a> {
    /// Recently browsed folders, newest first.
    pub recent_folders: &'a [std::path::PathBuf],
    /// The folder of the browser a session was opened from (offers Back).
    pub back_to: Option<&'a std::path::Path>,
    /// The remembered price file was read and is in use.
    pub prices_in_use: bool,
}

/// The menu bar.
pub fn menu_bar_ui(
    ui: &mut Ui,
    prefs: &Prefs,
    session: Option<&Session>,
    view: &ViewState,
    commands: &mut Vec<UiCommand>,
    folders: &BrowserMenu<'_>,
) {
    egui::MenuBar::new().ui(ui, |ui| {
        if let Some(root) = folders.back_to
            && ui
                .button("◀ Sessions")
                .on_hover_text(format!(
                    "Back to every session under {} (Alt+←)",
                    root.display()
                ))
                .clicked()
        {
            commands.push(BrowserCommand::BackToSessions.into());
        }
        ui.menu_button("File", |ui| {
            file_menu_ui(ui, prefs, session, view, commands, folders)
        });
        if let Some(s) = session
            && s.sessions.len() > 1
        {
            ui.menu_button("Session", |ui| session_menu_ui(ui, s, commands));
        }
        ui.menu_button("View", |ui| {
            crate::chrome::view_menu::view_menu_ui(ui, prefs, view, commands)
        });
        ui.menu_button("Help", |ui| {
            if ui.button("Keyboard shortcuts  (F1)").clicked() {
                commands.push(WindowCommand::ToggleHelp.into());
            }
        });
        ui.separator();
        toggles_ui(ui, view, commands);
        if let Some(s) = session {
            ui.separator();
            log_label_ui(ui, s);
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .button("?")
                .on_hover_text("Keyboard shortcuts (F1)")
                .clicked()
            {
                commands.push(WindowCommand::ToggleHelp.into());
            }
        });
    });
}

/// A submenu that a click inside does not close (its path field must take the focus); its
/// buttons close the menu themselves once a choice is made.
fn keeps_open_on_click(label: &str) -> egui::containers::menu::SubMenuButton<'_> {
    egui::containers::menu::SubMenuButton::new(label).config(
        egui::containers::menu::MenuConfig::new()
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside),
    )
}

/// File ▸ Open a path: a session log's or a folder's path typed (the way to open one where no
/// desktop file-dialog service answers); a folder opens in the sessions browser.
fn open_path_ui(ui: &mut Ui, commands: &mut Vec<UiCommand>) {
    let field = crate::chrome::path_field::PathField {
        label: "or its path:",
        hint: "a session log, or a folder of them",
        button: "Open",
        enabled: true,
        max_width: theme::PRICE_PATH_WIDTH,
    };
    let typed =
        crate::chrome::path_field::remembered_path_field_ui(ui, "open-path", String::new, &field);
    if let Some(path) = typed {
        commands.push(if path.is_dir() {
            BrowserCommand::OpenFolder(path).into()
        } else {
            SessionCommand::Open(path).into()
        });
        ui.close();
    }
}

/// The File menu.
fn file_menu_ui(
    ui: &mut Ui,
    prefs: &Prefs,
    session: Option<&Session>,
    view: &ViewState,
    commands: &mut Vec<UiCommand>,
    folders: &BrowserMenu<'_>,
) {
    if ui.button("Open…  (Ctrl+O)").clicked() {
        commands.push(SessionCommand::OpenDialog.into());
    }
    ui.add_enabled_ui(session.is_some(), |ui| {
        keeps_open_on_click("Compare with").ui(ui, |ui| {
            crate::compare::pick::pick_b_ui(
                ui,
                &prefs.recent,
                session.and_then(Session::path),
                true,
                commands,
            );
        })
    });
    if ui.button("Open folder…").clicked() {
        commands.push(BrowserCommand::OpenFolderDialog.into());
    }
    keeps_open_on_click("Open a path").ui(ui, |ui| open_path_ui(ui, commands));
    if ui.button("Open the bundled sample").clicked() {
        commands.push(SessionCommand::OpenSample.into());
    }
    ui.menu_button("Recent files", |ui| {
        if prefs.recent.is_empty() {
            ui.label("(none yet)");
        }
        for path in &prefs.recent {
            if ui.button(path.display().to_string()).clicked() {
                commands.push(SessionCommand::Open(path.clone()).into());
            }
        }
        ui.separator();
        if ui.button("Clear recent files").clicked() {
            commands.push(SessionCommand::ClearRecent.into());
        }
    });
    recent_folders_menu(ui, folders.recent_folders, commands);
    keeps_open_on_click("Prices").ui(ui, |ui| {
        crate::prices::menu::prices_menu_ui(
            ui,
            prefs.price_file.as_deref(),
            folders.prices_in_use,
            commands,
        )
    });
    ui.separator();
    let can_save = session.is_some() && view.range_end.is_some();
    if ui
        .add_enabled(
            can_save,
            egui::Button::new("Save replace preview as new log…"),
        )
        .on_disabled_hover_text("Select a surface range first (click a node, shift-click another)")
        .clicked()
    {
        commands.push(PreviewCommand::SaveDialog.into());
    }
    ui.separator();
    if ui
        .add(egui::Button::new("Quit").shortcut_text("Ctrl+Q"))
        .clicked()
    {
        ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
    }
}

/// The Session menu of a file holding several sessions: one entry per session.
fn session_menu_ui(ui: &mut Ui, s: &Session, commands: &mut Vec<UiCommand>) {
    for info in &s.sessions {
        let short = |id: &str| id.chars().take(8).collect::<String>();
        let label = format!(
            "{} · {} events · {}…{}",
            info.created.map_or(
                "no date".to_string(),
                crate::session::loaded::format_absolute
            ),
            info.events,
            short(&info.id),
            info.parent
                .as_ref()
                .map_or(String::new(), |p| format!(" (fork of {}…)", short(p)))
        );
        if ui
            .selectable_label(info.id == s.info.id, label)
            .on_hover_text(format!("session {}", info.id))
            .clicked()
        {
            commands.push(SessionCommand::PickSession(info.id.clone()).into());
        }
    }
}

/// The arrows' reach and the follow toggle, beside the menus.
fn toggles_ui(ui: &mut Ui, view: &ViewState, commands: &mut Vec<UiCommand>) {
    let chain = if view.whole_chain {
        "arrows: whole chain"
    } else {
        "arrows: one hop"
    };
    if ui
        .selectable_label(view.whole_chain, chain)
        .on_hover_text("Provenance arrows: one hop or the whole chain")
        .clicked()
    {
        commands.push(TimelineCommand::ToggleChain.into());
    }
    let follow_label = if view.following {
        "● following"
    } else {
        "follow"
    };
    if ui
        .selectable_label(view.following, follow_label)
        .on_hover_text("Follow the file live: new events appear as the agent writes them")
        .clicked()
    {
        commands.push(SessionCommand::ToggleFollow.into());
    }
}

/// What the open log is: source, era and format, events, and the session it forks.
fn log_label_ui(ui: &mut Ui, s: &Session) {
    let pal = theme::palette(ui);
    let fork = s
        .log
        .header
        .as_ref()
        .and_then(|h| {
            h.parent_session.as_ref().map(|p| {
                format!(
                    " · fork of {p}, first {} events inherited",
                    h.seed_length.unwrap_or(0)
                )
            })
        })
        .unwrap_or_default();
    ui.label(
        RichText::new(format!(
            "{} · {} · {} events{fork}",
            s.source.label(),
            s.era_and_format(),
            s.len()
        ))
        .color(pal.weak_text),
    )
    .on_hover_text(s.era_hover());
}

/// File ▸ Recent folders.
fn recent_folders_menu(ui: &mut Ui, recent: &[std::path::PathBuf], commands: &mut Vec<UiCommand>) {
    ui.menu_button("Recent folders", |ui| {
        if recent.is_empty() {
            ui.label("(none yet)");
        }
        for path in recent {
            if ui.button(path.display().to_string()).clicked() {
                commands.push(BrowserCommand::OpenFolder(path.clone()).into());
            }
        }
        ui.separator();
        if ui.button("Clear recent folders").clicked() {
            commands.push(BrowserCommand::ClearRecentFolders.into());
        }
    });
}
