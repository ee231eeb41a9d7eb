//! The sessions browser as a mode of the app beside the viewer: opening a folder, the
//! browser's frame, its commands, Back, and the recent folders.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::app::ViewerApp;
use crate::browser::job::{DiscoveryJob, run_discovery};
use crate::browser::rows::BrowserRow;
use crate::browser::table::{self as browser, BrowserState};
use crate::chrome::banner;
use crate::chrome::menu_bar::{self, BrowserMenu};
use crate::command::BrowserCommand;
use crate::session::loader::{DialogPurpose, Source};

/// Most recent folders kept.
const MAX_RECENT_FOLDERS: usize = 10;

impl ViewerApp {
    /// An app for tests browsing `dir`: the discovery runs to the end before this returns.
    pub fn new_browser_for_test(dir: impl AsRef<Path>) -> Self {
        let mut app = ViewerApp::blank(crate::view::Prefs::default(), true);
        app.open_folder(dir.as_ref().to_path_buf(), None);
        app
    }

    /// True while the sessions browser is shown (instead of the viewer).
    pub fn is_browsing(&self) -> bool {
        self.browser.shown && self.browser.state.is_some()
    }

    /// The titles (or ids when untitled) of the browser's lines, top to bottom, forks
    /// indented with one `  ` per level.
    pub fn browser_lines(&mut self) -> Vec<String> {
        self.browser_visible(|row, depth| {
            let name = row.title().unwrap_or(&row.entry.id);
            format!("{}{name}", "  ".repeat(depth))
        })
    }

    /// The browser's lines top to bottom: each session's file and its fleet figures (`None`
    /// until read).
    pub fn browser_fleet(&mut self) -> Vec<(PathBuf, Option<crate::browser::fleet::FleetFigures>)> {
        self.browser_visible(|row, _| (row.entry.file.clone(), row.fleet.clone()))
    }

    /// `line` of each of the browser's lines, top to bottom, with its fork depth (none while
    /// no folder is browsed).
    fn browser_visible<T>(&mut self, line: impl Fn(&BrowserRow, usize) -> T) -> Vec<T> {
        let Some(b) = self.browser.state.as_mut() else {
            return Vec::new();
        };
        let lines = b.visible().to_vec();
        lines
            .iter()
            .map(|v| line(&b.rows[v.row], v.depth))
            .collect()
    }

    /// Prices the fleet columns' cost with `prices` (`None`: no cost column) and, when a folder
    /// is browsed, reads it again so that every row is priced. The hook the price-file setting
    /// calls.
    pub fn set_fleet_prices(
        &mut self,
        prices: Option<std::sync::Arc<surface_analysis::cost::PriceTable>>,
        ctx: Option<egui::Context>,
    ) {
        self.browser.fleet_prices = prices;
        if let Some(root) = self.browser.state.as_ref().map(|b| b.root.clone()) {
            let shown = self.browser.shown;
            self.open_folder(root, ctx);
            self.browser.shown = shown;
        }
    }

    /// The session id of the browser's selected line.
    pub fn browser_selected_id(&self) -> Option<String> {
        let b = self.browser.state.as_ref()?;
        Some(b.rows.get(b.selected?)?.entry.id.clone())
    }

    /// The browser table's vertical scroll offset.
    pub fn browser_scroll_offset(&self) -> f32 {
        self.browser.state.as_ref().map_or(0.0, |b| b.scroll_offset)
    }

    /// The session id of the open log.
    pub fn session_id(&self) -> Option<String> {
        Some(self.session.as_ref()?.info.id.clone())
    }

    /// Starts browsing `root` (synchronously in tests).
    pub(crate) fn open_folder(&mut self, root: PathBuf, ctx: Option<egui::Context>) {
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        if self.browser.state.as_ref().is_none_or(|b| b.root != root) {
            // Another folder: its own Tune view (the same folder read again keeps it).
            self.browser.tune.reset();
            self.browser.tune_shown = false;
        }
        if self.jobs.synchronous {
            let mut state = BrowserState::new(root.clone(), None);
            let cancel = AtomicBool::new(false);
            let prices = self.browser.fleet_prices.as_deref();
            run_discovery(&root, prices, 2, &cancel, &mut |m| state.apply(m));
            state.priced = prices.is_some();
            self.browser.state = Some(state);
        } else {
            self.browser.recent_folders.retain(|p| p != &root);
            self.browser.recent_folders.insert(0, root.clone());
            self.browser.recent_folders.truncate(MAX_RECENT_FOLDERS);
            let prices = self.browser.fleet_prices.clone();
            let priced = prices.is_some();
            let job = DiscoveryJob::spawn(root.clone(), prices, ctx);
            let mut state = BrowserState::new(root, Some(job));
            state.priced = priced;
            self.browser.state = Some(state);
        }
        self.browser.shown = true;
        self.chrome.banner = None;
    }

    /// Applies a command of the sessions browser.
    pub(crate) fn apply_browser(&mut self, ctx: &egui::Context, command: BrowserCommand) {
        let browser = self.browser.state.as_mut();
        match command {
            BrowserCommand::OpenFolder(root) => self.open_folder(root, Some(ctx.clone())),
            BrowserCommand::OpenFolderDialog => self.open_dialog(ctx, DialogPurpose::OpenFolder),
            BrowserCommand::OpenSessionOf { file, session } => {
                self.browser.shown = false;
                self.start_load(Source::Path(file), session, Some(ctx.clone()));
            }
            BrowserCommand::BackToSessions => {
                if let Some(b) = browser {
                    if let Some(job) = self.jobs.load.take() {
                        job.cancel();
                    }
                    b.restore_scroll = true;
                    self.browser.shown = true;
                    self.chrome.banner = None;
                }
            }
            BrowserCommand::SortSessions(column) => {
                if let Some(b) = browser {
                    b.sort = b.sort.clicked(column);
                    b.scroll_to_selected = true;
                }
            }
            BrowserCommand::ToggleSessionForks(row) => {
                if let Some(b) = browser {
                    b.toggle_forks(row);
                }
            }
            BrowserCommand::SelectSessionRow(row) => {
                if let Some(b) = browser {
                    b.selected = Some(row);
                }
            }
            BrowserCommand::MoveSessionSelection(delta) => {
                if let Some(b) = browser {
                    b.move_selection(delta);
                }
            }
            BrowserCommand::OpenSelectedSession => {
                let open = browser.and_then(|b| {
                    if b.selected.is_none() {
                        b.move_selection(0);
                    }
                    b.open_command(b.selected?)
                });
                if let Some(open) = open {
                    self.apply_browser(ctx, open);
                }
            }
            BrowserCommand::ClearRecentFolders => self.browser.recent_folders.clear(),
            BrowserCommand::ExportFolderDialog => self.open_dialog(ctx, DialogPurpose::ExportTo),
            BrowserCommand::ExportFolderTo(out) => self.start_export(out, Some(ctx.clone())),
        }
    }

    /// The menu bar, with the session's menus when `with_session` and a session is loaded.
    pub(crate) fn menu_panel_ui(&mut self, ui: &mut egui::Ui, with_session: bool) {
        let session = self.session.as_ref().filter(|_| with_session);
        let mut folders = ViewerApp::browser_menu(
            self.browser.state.as_ref(),
            self.browser.shown,
            &self.browser.recent_folders,
        );
        folders.prices_in_use = self.panels.prices.table().is_some();
        egui::Panel::top("menu").show(ui, |ui| {
            menu_bar::menu_bar_ui(
                ui,
                &self.prefs,
                session,
                &self.view,
                &mut self.commands,
                &folders,
            );
        });
    }

    /// The window while browsing: menu, banner, the table.
    pub(crate) fn browser_panels_ui(&mut self, ui: &mut egui::Ui) {
        let text_focus = ui.ctx().egui_wants_keyboard_input();
        browser::browser_keys(ui.ctx(), text_focus, &mut self.commands);
        self.menu_panel_ui(ui, false);
        if let Some(banner) = &self.chrome.banner {
            banner::banner_slot_ui(ui, banner, &mut self.commands);
        }
        let Some(b) = self.browser.state.as_mut() else {
            return;
        };
        let export = self.browser.export.as_ref();
        let root = b.root.clone();
        let tune_shown = self.browser.tune_shown;
        let (priced, synchronous) = (self.panels.prices.table().is_some(), self.jobs.synchronous);
        let tune = &mut self.browser.tune;
        egui::CentralPanel::default().show(ui, |ui| {
            if tune_shown {
                ui.horizontal(|ui| {
                    ui.heading("Tune");
                    crate::tune::browser::tune_button_ui(ui, true, &mut self.commands);
                });
                crate::tune::browser::folder_tune_ui(
                    ui,
                    tune,
                    &root,
                    (priced, synchronous),
                    &mut self.commands,
                );
                return;
            }
            browser::browser_ui(ui, b, &mut self.commands, |ui, commands| {
                crate::tune::browser::tune_button_ui(ui, false, commands);
                crate::browser::export_mode::export_ui(ui, &root, export, commands);
            });
        });
    }

    /// What the menu offers about folders.
    pub(crate) fn browser_menu<'a>(
        browser: Option<&'a BrowserState>,
        browsing: bool,
        recent_folders: &'a [PathBuf],
    ) -> BrowserMenu<'a> {
        BrowserMenu {
            recent_folders,
            back_to: browser.filter(|_| !browsing).map(|b| b.root.as_path()),
            prices_in_use: false,
        }
    }

    /// Alt+← returns to the browser from a session opened in it.
    pub(crate) fn back_key(&mut self, ctx: &egui::Context) {
        if self.browser.state.is_some()
            && !self.browser.shown
            && self.nav.history.back_len() == 0
            && ctx.input_mut(|i| i.consume_key(egui::Modifiers::ALT, egui::Key::ArrowLeft))
        {
            self.commands.push(BrowserCommand::BackToSessions.into());
        }
    }
}
