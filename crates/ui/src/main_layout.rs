//! The session window's side-by-side panels: the side panel (tabs) and the surface panel on
//! the right, each resizable by hand and collapsible ([`crate::layout`]), the timeline in the
//! room that is left — or the Tune view across all of it, when its tab asked to be wide.

use crate::app::ViewerApp;
use crate::command::WindowCommand;
use crate::layout::{collapsed_strip_ui, pinned};
use crate::surface_panel;
use crate::theme;

/// A collapsible right-hand panel: its id, how the collapsed strip names it and its key,
/// whether it is open, and its `(default, min, max)` widths.
struct RightPanel<'a> {
    id: &'a str,
    name: &'a str,
    key: &'a str,
    open: bool,
    bounds: (f32, f32, f32),
}

/// What showing a [`RightPanel`] asked for.
struct Switched {
    /// The user opened or closed it (its edge dragged shut, the strip's button).
    toggle: bool,
    /// Its width, while open.
    width: Option<f32>,
}

/// Shows `panel` open (with `contents`, pinned to its rect) or as a collapsed strip.
fn show_right_panel(
    ui: &mut egui::Ui,
    panel: RightPanel<'_>,
    contents: impl FnOnce(&mut egui::Ui),
) -> Switched {
    let (default, min, max) = panel.bounds;
    let mut open = panel.open;
    let mut clicked = false;
    let shown = egui::Panel::show_switched(
        ui,
        &mut open,
        egui::Panel::right(format!("{}-collapsed", panel.id))
            .resizable(false)
            .exact_size(theme::COLLAPSED_PANEL_WIDTH),
        egui::Panel::right(panel.id)
            .resizable(true)
            .default_size(default)
            .min_size(min)
            .max_size(max),
        |ui, expanded| {
            if expanded {
                pinned(ui, contents);
            } else if collapsed_strip_ui(ui, panel.name, panel.key) {
                clicked = true;
            }
        },
    );
    Switched {
        toggle: clicked || open != panel.open,
        width: open.then(|| shown.response.rect.width()),
    }
}

impl ViewerApp {
    /// Lays out the side panel, the surface panel and the timeline, then the arrows over them.
    pub(super) fn session_panels_ui(&mut self, ui: &mut egui::Ui) {
        if self.panels.tune.wide
            && let Some(session) = self.session.as_ref()
        {
            // The Tune view across the window (its tab's ⤢ Wide).
            let priced = self.panels.prices.table().is_some();
            egui::CentralPanel::default().show(ui, |ui| {
                crate::tune::tab::tune_tab_ui(
                    ui,
                    session,
                    &mut self.panels.tune,
                    (priced, self.jobs.synchronous),
                    &mut self.commands,
                )
            });
            return;
        }
        let window = ui.ctx().content_rect().width();
        let side = RightPanel {
            id: "side",
            name: "side panel",
            key: "F7",
            open: self.prefs.layout.side_open,
            bounds: self.prefs.layout.side_bounds(window),
        };
        let side = show_right_panel(ui, side, |ui| self.side_ui(ui));
        if side.toggle {
            self.commands.push(WindowCommand::ToggleSidePanel.into());
        } else if side.width.is_some() {
            self.prefs.layout.side_width = side.width;
        }
        let Some(session) = self.session.as_ref() else {
            return;
        };
        self.panels.geometry.clear();
        let surface = RightPanel {
            id: "surface",
            name: "surface panel",
            key: "F6",
            open: self.prefs.layout.surface_open,
            bounds: self.prefs.layout.surface_bounds(window),
        };
        let mut switched = None;
        egui::CentralPanel::default().show(ui, |ui| {
            switched = Some(show_right_panel(ui, surface, |ui| {
                surface_panel::surface_panel_ui(
                    ui,
                    session,
                    &self.view,
                    &mut self.panels.surface_panel,
                    &mut self.panels.geometry,
                    &mut self.commands,
                )
            }));
            egui::CentralPanel::default().show(ui, |ui| {
                crate::timeline::panel::timeline_ui(
                    ui,
                    session,
                    &self.view,
                    &mut self.panels.timeline,
                    &mut self.panels.search,
                    &mut self.panels.geometry,
                    &mut self.commands,
                );
            });
        });
        match switched {
            Some(s) if s.toggle => self.commands.push(WindowCommand::ToggleSurfacePanel.into()),
            Some(s) if s.width.is_some() => self.prefs.layout.surface_width = s.width,
            _ => {}
        }
        crate::arrows::arrows_ui(
            ui,
            session,
            &self.view,
            &mut self.panels.arrows,
            &self.panels.geometry,
        );
    }
}
