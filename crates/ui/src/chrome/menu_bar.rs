//! Window chrome: menu bar, banner, load progress, the welcome screen and the shortcut help.

use egui::{RichText, Ui};

use crate::chrome::shortcuts::{GESTURES, SHORTCUTS};
use crate::command::BrowserCommand;
use crate::command::PreviewCommand;
use crate::command::SessionCommand;
use crate::command::TimelineCommand;
use crate::command::WindowCommand;
use crate::command::{SideTab, UiCommand};
use crate::session::loaded::Session;
use crate::session::loader::LoadJob;
use crate::theme::{self, Family, ThemeChoice};
use crate::view::{Prefs, ViewState};

/// A one-line message above the panels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    /// True for problems, false for information.
    pub is_error: bool,
    /// The message.
    pub text: String,
    /// Offer a button that opens the findings tab.
    pub show_findings: bool,
}

impl Banner {
    /// An error banner.
    pub fn error(text: impl Into<String>) -> Self {
        Banner {
            is_error: true,
            text: text.into(),
            show_findings: false,
        }
    }

    /// An information banner.
    pub fn info(text: impl Into<String>) -> Self {
        Banner {
            is_error: false,
            text: text.into(),
            show_findings: false,
        }
    }
}

/// The banner to show right after a session loaded: findings (once computed) and
/// multi-session notes.
pub fn banner_for(session: &Session) -> Option<Banner> {
    let (errors, warnings) = session.finding_counts().unwrap_or((0, 0));
    let mut parts = Vec::new();
    if errors + warnings > 0 {
        parts.push(format!(
            "check found {errors} error(s) and {warnings} warning(s) in this log"
        ));
    }
    if session.sessions.len() > 1 {
        parts.push(format!(
            "this file holds {} sessions; showing {} (Session menu to switch)",
            session.sessions.len(),
            session.info.id
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut text = parts.join(" · ");
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    Some(Banner {
        is_error: errors > 0,
        text,
        show_findings: errors + warnings > 0,
    })
}

/// What the menu bar offers about folders (the sessions browser).
pub struct BrowserMenu<'a> {
    /// Recently browsed folders, newest first.
    pub recent_folders: &'a [std::path::PathBuf],
    /// The folder of the browser a session was opened from (offers Back).
    pub back_to: Option<&'a std::path::Path>,
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
            if ui.button("Open…  (Ctrl+O)").clicked() {
                commands.push(SessionCommand::OpenDialog.into());
            }
            if ui.button("Open folder…").clicked() {
                commands.push(BrowserCommand::OpenFolderDialog.into());
            }
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
            ui.separator();
            let can_save = session.is_some() && view.range_end.is_some();
            if ui
                .add_enabled(
                    can_save,
                    egui::Button::new("Save replace preview as new log…"),
                )
                .on_disabled_hover_text(
                    "Select a surface range first (click a node, shift-click another)",
                )
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
        });
        if let Some(s) = session
            && s.sessions.len() > 1
        {
            ui.menu_button("Session", |ui| {
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
            });
        }
        ui.menu_button("View", |ui| {
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
            crate::chrome::view_menu::panels_and_steps_ui(ui, prefs, commands);
        });
        ui.menu_button("Help", |ui| {
            if ui.button("Keyboard shortcuts  (F1)").clicked() {
                commands.push(WindowCommand::ToggleHelp.into());
            }
        });
        ui.separator();
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
        if let Some(s) = session {
            ui.separator();
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

/// The load progress strip with a cancel button.
pub fn loading_ui(ui: &mut Ui, job: &LoadJob, commands: &mut Vec<UiCommand>) {
    ui.horizontal(|ui| {
        ui.label(format!("Loading {}…", job.source.label()));
        let fraction = job.progress.fraction();
        let bar = egui::ProgressBar::new(fraction)
            .show_percentage()
            .desired_width(ui.available_width() - 90.0);
        ui.add(bar);
        if ui.button("Cancel").clicked() {
            commands.push(SessionCommand::CancelLoad.into());
        }
    });
}

/// The banner.
pub fn banner_ui(ui: &mut Ui, banner: &Banner, commands: &mut Vec<UiCommand>) {
    let pal = theme::palette(ui);
    let bg = if banner.is_error {
        pal.banner_error_bg
    } else {
        pal.banner_info_bg
    };
    egui::Frame::new()
        .fill(bg)
        .inner_margin(theme::BANNER_MARGIN)
        .corner_radius(theme::CORNER_RADIUS)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let icon = if banner.is_error { "■" } else { "●" };
                ui.label(RichText::new(format!("{icon} {}", banner.text)).color(pal.text));
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.button("×").on_hover_text("Dismiss").clicked() {
                        commands.push(WindowCommand::DismissBanner.into());
                    }
                    if banner.show_findings && ui.button("Show findings").clicked() {
                        commands.push(WindowCommand::ShowTab(SideTab::Findings).into());
                    }
                });
            });
        });
}

/// What the window shows before any log is loaded.
pub fn welcome_ui(ui: &mut Ui, prefs: &Prefs, commands: &mut Vec<UiCommand>) {
    ui.vertical_centered(|ui| {
        ui.add_space(60.0);
        ui.heading("surface-viewer");
        ui.label("See what an LLM agent actually saw: the event log beside the surface, replay, provenance and replace previews.");
        ui.add_space(theme::SPACE_LARGE);
        if ui.button("Open a session log…").clicked() {
            commands.push(SessionCommand::OpenDialog.into());
        }
        if ui.button("Open the bundled sample").clicked() {
            commands.push(SessionCommand::OpenSample.into());
        }
        if ui.button("Open a folder of sessions…").clicked() {
            commands.push(BrowserCommand::OpenFolderDialog.into());
        }
        ui.label("…or drop a .jsonl, .jsonl.zstd or SQLite file, or a folder, on this window.");
        if !prefs.recent.is_empty() {
            ui.add_space(theme::SPACE_LARGE);
            ui.label(RichText::new("Recent files").strong());
            for path in &prefs.recent {
                if ui.link(path.display().to_string()).clicked() {
                    commands.push(SessionCommand::Open(path.clone()).into());
                }
            }
        }
    });
}

/// The keyboard shortcut overlay.
pub fn help_ui(ctx: &egui::Context, commands: &mut Vec<UiCommand>) {
    let modal = egui::Modal::new(egui::Id::unique("help")).show(ctx, |ui| {
        ui.set_width(theme::HELP_WIDTH);
        ui.heading("Keyboard and mouse");
        // Every shortcut and gesture: taller than a laptop screen, so it scrolls.
        let room = ctx.content_rect().height() * theme::HELP_HEIGHT_SHARE;
        egui::ScrollArea::vertical()
            .max_height(room)
            .show(ui, |ui| {
                egui::Grid::new("shortcut-grid")
                    .num_columns(2)
                    .striped(true)
                    .show(ui, |ui| {
                        let mut seen = std::collections::HashSet::new();
                        for s in SHORTCUTS {
                            if seen.insert(s.what) {
                                ui.label(RichText::new(s.keys).monospace());
                                ui.label(s.what);
                                ui.end_row();
                            }
                        }
                        for (gesture, what) in GESTURES {
                            ui.label(RichText::new(*gesture).italics());
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
            });
        ui.add_space(theme::SPACE);
        ui.label("Timeline colours by type family:");
        let pal = theme::palette(ui);
        ui.horizontal_wrapped(|ui| {
            for f in Family::ALL {
                ui.label(RichText::new(f.label()).color(pal.family(f)));
            }
        });
        ui.add_space(theme::SPACE);
        if ui.button("Close").clicked() {
            commands.push(WindowCommand::ToggleHelp.into());
        }
    });
    if modal.should_close() {
        commands.push(WindowCommand::ToggleHelp.into());
    }
}
