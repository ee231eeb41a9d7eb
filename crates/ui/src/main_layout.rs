//! The session window's side-by-side panels: the side panel (tabs) and the surface panel on
//! the right, each resizable by hand and collapsible ([`super::layout`]), the timeline in the
//! room that is left.

use super::app::ViewerApp;
use super::command::UiCommand;
use super::layout::{collapsed_strip_ui, pinned};
use super::surface_panel;
use super::theme;
use super::timeline;

impl ViewerApp {
    /// Lays out the side panel, the surface panel and the timeline, then the arrows over them.
    pub(super) fn session_panels_ui(&mut self, ui: &mut egui::Ui) {
        let window = ui.ctx().content_rect().width();
        let (default, min, max) = self.prefs.layout.side_bounds(window);
        let mut side_open = self.prefs.layout.side_open;
        let shown = egui::Panel::show_switched(
            ui,
            &mut side_open,
            egui::Panel::right("side-collapsed")
                .resizable(false)
                .exact_size(theme::COLLAPSED_PANEL_WIDTH),
            egui::Panel::right("side")
                .resizable(true)
                .default_size(default)
                .min_size(min)
                .max_size(max),
            |ui, expanded| {
                if expanded {
                    pinned(ui, |ui| self.side_ui(ui));
                } else if collapsed_strip_ui(ui, "side panel", "F7") {
                    self.commands.push(UiCommand::ToggleSidePanel);
                }
            },
        );
        if side_open != self.prefs.layout.side_open {
            self.commands.push(UiCommand::ToggleSidePanel);
        } else if side_open {
            self.prefs.layout.side_width = Some(shown.response.rect.width());
        }
        let Some(session) = self.session.as_ref() else {
            return;
        };
        self.geometry.clear();
        let (default, min, max) = self.prefs.layout.surface_bounds(window);
        let mut surface_open = self.prefs.layout.surface_open;
        let mut toggle_surface = false;
        let mut surface_width = None;
        egui::CentralPanel::default().show(ui, |ui| {
            let shown = egui::Panel::show_switched(
                ui,
                &mut surface_open,
                egui::Panel::right("surface-collapsed")
                    .resizable(false)
                    .exact_size(theme::COLLAPSED_PANEL_WIDTH),
                egui::Panel::right("surface")
                    .resizable(true)
                    .default_size(default)
                    .min_size(min)
                    .max_size(max),
                |ui, expanded| {
                    if expanded {
                        pinned(ui, |ui| {
                            surface_panel::surface_panel_ui(
                                ui,
                                session,
                                &self.view,
                                &mut self.surface_panel,
                                &mut self.geometry,
                                &mut self.commands,
                            )
                        });
                    } else if collapsed_strip_ui(ui, "surface panel", "F6") {
                        toggle_surface = true;
                    }
                },
            );
            surface_width = Some(shown.response.rect.width());
            egui::CentralPanel::default().show(ui, |ui| {
                timeline::timeline_ui(
                    ui,
                    session,
                    &self.view,
                    &mut self.timeline,
                    &mut self.search,
                    &mut self.geometry,
                    &mut self.commands,
                );
            });
        });
        if toggle_surface || surface_open != self.prefs.layout.surface_open {
            self.commands.push(UiCommand::ToggleSurfacePanel);
        } else if surface_open {
            self.prefs.layout.surface_width = surface_width;
        }
        super::arrows::arrows_ui(ui, session, &self.view, &mut self.arrows, &self.geometry);
    }
}
