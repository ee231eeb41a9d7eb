//! The application: owns the loaded session and all UI state, applies the queued
//! [`UiCommand`]s once per frame, and lays out the panels.

use std::path::{Path, PathBuf};

use surface_engine::EventIdx;

use super::analysis::Parcel;
use super::arrows::ArrowState;
use super::browser::BrowserState;
use super::chrome::{self, Banner};
use super::command::{SideTab, UiCommand};
use super::compactions::{self, CompactionsState};
use super::context_strip::StripState;
use super::findings_panel;
use super::follow_state::FollowState;
use super::inspector::{self, InspectorState};
use super::loader::{DialogJob, LoadEvent, LoadJob, Loaded, Source, load_blocking, sample_source};
use super::policy_tab::{self, PolicyTabState};
use super::preview_pane::{self, PreviewState};
use super::replay_bar::{self, ReplayState};
use super::request_view::{self, RequestViewState};
use super::search::SearchState;
use super::session::Session;
use super::shortcuts;
use super::surface_panel::SurfacePanelState;
use super::theme;
use super::timeline::TimelineState;
use super::view::{Prefs, RowGeometry, ViewState};

/// Key of the persisted preferences.
const PREFS_KEY: &str = "surface-viewer/prefs";
/// Key of the persisted recent-folders list.
pub(super) const RECENT_FOLDERS_KEY: &str = "surface-viewer/recent-folders";

/// The desktop viewer.
pub struct ViewerApp {
    pub(super) prefs: Prefs,
    pub(super) session: Option<Session>,
    pub(super) load: Option<LoadJob>,
    /// The load whose session is shown, while its findings and meter are computed.
    pub(super) analysis: Option<LoadJob>,
    /// Tests: a synchronous load's analysis, held back until [`ViewerApp::release_analysis`].
    pub(super) held_analysis: Option<Parcel>,
    /// Tests: hold back the analysis of the next synchronous load.
    pub(super) hold_analysis: bool,
    /// The session's first frame was drawn: let its analysis start at the next frame.
    pub(super) start_analysis_next: bool,
    /// Why the current load was started when it reopens a file that shrank under the viewer
    /// (shown once that load lands).
    pub(super) reopen_notice: Option<String>,
    pub(super) dialog: Option<DialogJob>,
    pub(super) banner: Option<Banner>,
    pub(super) view: ViewState,
    pub(super) timeline: TimelineState,
    pub(super) surface_panel: SurfacePanelState,
    pub(super) replay: ReplayState,
    pub(super) strip: StripState,
    pub(super) request_view: RequestViewState,
    pub(super) search: SearchState,
    pub(super) preview: PreviewState,
    pub(super) inspector: InspectorState,
    pub(super) compactions: CompactionsState,
    pub(super) policy: PolicyTabState,
    pub(super) arrows: ArrowState,
    pub(super) geometry: RowGeometry,
    pub(super) show_help: bool,
    pub(super) commands: Vec<UiCommand>,
    /// Load synchronously and never touch persistent storage (tests).
    pub(super) synchronous: bool,
    pub(super) title: String,
    pub(super) requested_session: Option<String>,
    /// Event to scroll both panels to on the next frame.
    pub(super) pending_reveal: Option<EventIdx>,
    /// Whether the font fallback is installed (done on the first frame).
    pub(super) fonts_ready: bool,
    /// Open files with a live follower (`--follow`, or the Follow toggle).
    pub(super) follow_requested: bool,
    /// The live follower of the open log.
    pub(super) follow: Option<FollowState>,
    /// Woken by background work (loader, file watcher); `None` in tests.
    pub(super) repaint: Option<egui::Context>,
    /// The sessions browser of an opened folder (kept while one of its sessions is viewed).
    pub(super) browser: Option<BrowserState>,
    /// The browser is shown instead of the viewer.
    pub(super) browsing: bool,
    /// Recently browsed folders, newest first (persisted).
    pub(super) recent_folders: Vec<PathBuf>,
    /// The start-up time report (`SURFACE_VIEWER_REPORT_READY`).
    pub(super) ready: super::ready_report::ReadyReport,
    /// Back/forward history of jumps.
    pub(super) history: super::history::History,
    /// The list ↑/↓/PgUp/PgDn move the selection of (the one clicked last).
    pub(super) list_focus: super::navigate::ListKind,
    /// The findings list's selected row (display order).
    pub(super) findings_row: Option<usize>,
}

impl ViewerApp {
    pub(super) fn blank(prefs: Prefs, synchronous: bool) -> Self {
        let view = ViewState {
            filter_mask: prefs.filter_mask,
            whole_chain: prefs.whole_chain,
            threshold_ratio: prefs.threshold_ratio,
            ..Default::default()
        };
        ViewerApp {
            prefs,
            session: None,
            load: None,
            analysis: None,
            held_analysis: None,
            hold_analysis: false,
            start_analysis_next: false,
            reopen_notice: None,
            dialog: None,
            banner: None,
            view,
            timeline: TimelineState::default(),
            surface_panel: SurfacePanelState::default(),
            replay: ReplayState::default(),
            strip: StripState::default(),
            request_view: RequestViewState::default(),
            search: SearchState::default(),
            preview: PreviewState::default(),
            inspector: InspectorState::default(),
            compactions: CompactionsState::default(),
            policy: PolicyTabState::default(),
            arrows: ArrowState::default(),
            geometry: RowGeometry::default(),
            show_help: false,
            commands: Vec::new(),
            synchronous,
            title: String::new(),
            requested_session: None,
            pending_reveal: None,
            fonts_ready: false,
            follow_requested: false,
            follow: None,
            repaint: None,
            browser: None,
            browsing: false,
            recent_folders: Vec::new(),
            ready: super::ready_report::ReadyReport::from_env(),
            history: Default::default(),
            list_focus: Default::default(),
            findings_row: None,
        }
    }

    /// The app for a real window: restores preferences and starts loading `file` (or the
    /// bundled sample) in the background.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        file: Option<PathBuf>,
        session: Option<String>,
        follow: bool,
    ) -> Self {
        Self::new_with_load(cc, file, session, follow, None)
    }

    /// [`ViewerApp::new`] adopting a load of `file` that [`super::run`] started before the
    /// window opened (so that reading overlaps the window and GPU set-up).
    pub(super) fn new_with_load(
        cc: &eframe::CreationContext<'_>,
        file: Option<PathBuf>,
        session: Option<String>,
        follow: bool,
        started: Option<LoadJob>,
    ) -> Self {
        let prefs: Prefs = cc
            .storage
            .and_then(|s| eframe::get_value(s, PREFS_KEY))
            .unwrap_or_default();
        prefs.theme.apply(&cc.egui_ctx);
        theme::install_fonts(&cc.egui_ctx);
        super::ready_report::note("window created");
        let mut app = ViewerApp::blank(prefs, false);
        app.fonts_ready = true;
        app.requested_session = session.clone();
        app.follow_requested = follow && file.is_some();
        app.repaint = Some(cc.egui_ctx.clone());
        app.recent_folders = cc
            .storage
            .and_then(|s| eframe::get_value(s, RECENT_FOLDERS_KEY))
            .unwrap_or_default();
        if let Some(dir) = file.as_ref().filter(|f| f.is_dir()) {
            app.follow_requested = false;
            app.open_folder(dir.clone(), Some(cc.egui_ctx.clone()));
            return app;
        }
        if let Some(job) = started {
            // Polled every frame while it runs (see `poll_background`).
            app.load = Some(job);
            return app;
        }
        match file.map(Source::Path).or_else(sample_source) {
            Some(source) => app.start_load(source, session, Some(cc.egui_ctx.clone())),
            None => {
                app.banner = Some(Banner::info(
                    "No file given and no bundled sample found: use File ▸ Open, drop a file, or pick a recent one.",
                ))
            }
        }
        app
    }

    /// An app for tests: loads `path` synchronously, no persistence, no threads.
    pub fn new_for_test(path: impl AsRef<Path>) -> Self {
        let mut app = ViewerApp::blank(Prefs::default(), true);
        app.start_load(Source::Path(path.as_ref().to_path_buf()), None, None);
        app
    }

    /// [`ViewerApp::new_for_test`] with the findings and the meter held back, as a long log
    /// shows them while they are computed, until [`ViewerApp::release_analysis`].
    pub fn new_for_test_pending(path: impl AsRef<Path>) -> Self {
        let mut app = ViewerApp::blank(Prefs::default(), true);
        app.hold_analysis = true;
        app.start_load(Source::Path(path.as_ref().to_path_buf()), None, None);
        app
    }

    /// Delivers the held-back analysis as the loader thread does: a command applied on the
    /// next frame. False when none is held.
    pub fn release_analysis(&mut self) -> bool {
        match self.held_analysis.take() {
            Some(parcel) => {
                self.commands.push(UiCommand::AnalysisLanded(parcel));
                true
            }
            None => false,
        }
    }

    /// True while the open log's findings and meter are being computed.
    pub fn analysis_pending(&self) -> bool {
        self.session.as_ref().is_some_and(Session::analysis_pending)
    }

    // --- Read access for tests and the shell ------------------------------------------

    /// The replay cursor (events applied), if a log is loaded.
    pub fn cursor(&self) -> Option<usize> {
        self.session.as_ref().map(Session::cursor)
    }

    /// Number of events in the open log (0 without one).
    pub fn event_count(&self) -> usize {
        self.session.as_ref().map_or(0, |s| s.len())
    }

    /// The first event at or after index `from` that has `sourceEventSeqs` (for benchmarks
    /// and tests that want provenance arrows on screen).
    pub fn first_event_with_sources_from(&self, from: usize) -> Option<surface_engine::EventIdx> {
        let log = &self.session.as_ref()?.log;
        log.indices()
            .skip(from)
            .find(|&i| log.sources(i).is_some_and(|s| !s.is_empty()))
    }

    /// Seqs of the surface nodes at the cursor (empty without a log).
    pub fn surface_seqs(&self) -> Vec<u64> {
        self.session
            .as_ref()
            .map(|s| s.nodes.iter().map(|&i| s.log.event(i).seq).collect())
            .unwrap_or_default()
    }

    /// Seq of the selected event.
    pub fn selected_seq(&self) -> Option<u64> {
        let s = self.session.as_ref()?;
        self.view.selected.map(|i| s.log.event(i).seq)
    }

    /// The current replace preview, if a range is selected.
    pub fn preview(&self) -> Option<&surface_engine::Preview> {
        self.preview.current()
    }

    /// The compaction audit the Compactions tab and the context strip show (the latest computed).
    pub fn compaction_audit(&self) -> Option<&surface_engine::audit::Audit> {
        self.compactions.cache.audit().map(|a| a.as_ref())
    }

    /// The seq of the replace shown before | after, and the seqs of the surface just before
    /// and just after it.
    pub fn compared(&self) -> Option<(u64, Vec<u64>, Vec<u64>)> {
        let s = self.session.as_ref()?;
        let idx = self.compactions.compare.shown()?;
        let (before, after) = self.compactions.compare.lists(s)?;
        Some((s.log.event(idx).seq, before, after))
    }

    /// Seqs of the Compactions table's rows, in display order.
    pub fn compaction_rows(&self) -> Vec<u64> {
        let Some(a) = self.compactions.cache.audit() else {
            return Vec::new();
        };
        self.compactions
            .order()
            .iter()
            .filter_map(|&k| a.replaces.get(k).map(|r| r.seq))
            .collect()
    }

    /// The model request the Request tab shows (computed when that tab was last drawn).
    pub fn shown_request(&self) -> Option<&surface_engine::Request> {
        self.request_view.current()
    }

    /// The threshold ratio in use.
    pub fn threshold_ratio(&self) -> f64 {
        self.view.threshold_ratio
    }

    /// Seqs of the search hits found so far.
    pub fn search_hits(&self) -> Vec<u64> {
        let Some(s) = self.session.as_ref() else {
            return Vec::new();
        };
        self.search
            .hits
            .iter()
            .map(|&i| s.log.event(i).seq)
            .collect()
    }

    /// The banner text, if one is shown.
    pub fn banner_text(&self) -> Option<&str> {
        self.banner.as_ref().map(|b| b.text.as_str())
    }

    /// Number of findings of the loaded log.
    pub fn finding_count(&self) -> usize {
        self.session
            .as_ref()
            .and_then(|s| s.findings.as_ref())
            .map_or(0, |f| f.list.len())
    }

    /// The tab shown in the right-hand panel.
    pub fn side_tab(&self) -> SideTab {
        self.prefs.tab
    }

    /// Queues a command as if a panel had pushed it.
    pub fn push_command(&mut self, command: UiCommand) {
        self.commands.push(command);
    }

    // --- Loading ----------------------------------------------------------------------

    pub(super) fn start_load(
        &mut self,
        source: Source,
        session: Option<String>,
        ctx: Option<egui::Context>,
    ) {
        if let Some(job) = self.load.take() {
            job.cancel();
        }
        // A newer load discards the older one's analysis, late or not.
        if let Some(job) = self.analysis.take() {
            job.cancel();
        }
        self.held_analysis = None;
        self.start_analysis_next = false;
        self.follow = None;
        let follow = self.follow_requested && matches!(source, Source::Path(_));
        if self.synchronous {
            match load_blocking(&source, session.as_deref(), None, follow) {
                Ok((loaded, analysis)) => {
                    let parcel = Parcel::new(loaded.generation, analysis);
                    self.finish_load(Ok(loaded));
                    if self.hold_analysis {
                        self.held_analysis = Some(parcel);
                    } else {
                        self.land_analysis(&parcel);
                    }
                }
                Err(e) => self.finish_load(Err(e)),
            }
        } else {
            self.load = Some(LoadJob::spawn(source, session, ctx, follow));
        }
    }

    /// Applies a load's findings and meter to the shown session, when it is that load's.
    pub(super) fn land_analysis(&mut self, parcel: &Parcel) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        if session.generation != parcel.generation() {
            return;
        }
        let Some(analysis) = parcel.take() else {
            return;
        };
        // The automatic banner (findings, several sessions) is redone with the findings; a
        // banner the user caused stays.
        let automatic = self.banner.is_none() || self.banner == chrome::banner_for(session);
        session.land(analysis);
        if automatic {
            self.banner = chrome::banner_for(session);
        }
        super::ready_report::note("findings and meter applied");
    }

    pub(super) fn finish_load(&mut self, result: Result<Loaded, String>) {
        match result {
            Ok(mut loaded) => {
                let follower = loaded.follower.take();
                let session = Session::new(loaded);
                super::ready_report::note("session indexed");
                self.follow = follower.map(|f| FollowState::new(f, self.repaint.clone()));
                if let Some(p) = session.path() {
                    // Absolute, so that the recent list works from any working directory.
                    let absolute = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                    self.prefs.remember(&absolute);
                }
                self.banner = chrome::banner_for(&session);
                if let Some(notice) = self.reopen_notice.take() {
                    self.banner = Some(Banner::info(notice));
                }
                self.session = Some(session);
                self.timeline.reset();
                self.surface_panel.reset();
                self.replay.reset();
                self.strip.reset();
                self.request_view.reset();
                if let Some(s) = &self.session {
                    self.search.restart(&s.log, None, self.synchronous);
                }
                self.preview.reset();
                self.inspector.reset();
                self.compactions.reset();
                self.policy.reset();
                self.arrows.reset();
                self.view.selected = None;
                self.view.range_start = None;
                self.view.range_end = None;
                self.history.reset();
                self.findings_row = None;
                self.view.zoom = None;
                self.view.zoom_before_switch = None;
                // Open where the cursor is (the end), not at the last file's scroll offset.
                self.pending_reveal = self.session.as_ref().and_then(Session::cursor_event);
            }
            Err(message) => {
                self.reopen_notice = None;
                self.banner = Some(Banner::error(message));
                // A session picked in the browser did not open: back to the table.
                if self.browser.is_some() {
                    self.browsing = true;
                }
            }
        }
    }

    fn poll_background(&mut self, ctx: &egui::Context) {
        match self.load.as_ref().and_then(LoadJob::poll) {
            Some(LoadEvent::Loaded(loaded)) => {
                // The same thread sends the analysis next.
                self.analysis = self.load.take();
                self.finish_load(Ok(*loaded));
            }
            Some(LoadEvent::Failed(message)) => {
                self.load = None;
                self.finish_load(Err(message));
            }
            Some(LoadEvent::Analysed(parcel)) => {
                self.load = None;
                self.commands.push(UiCommand::AnalysisLanded(parcel));
            }
            None => {}
        }
        match self.analysis.as_ref().and_then(LoadJob::poll) {
            Some(LoadEvent::Analysed(parcel)) => {
                self.analysis = None;
                self.commands.push(UiCommand::AnalysisLanded(parcel));
            }
            Some(LoadEvent::Failed(message)) => {
                self.analysis = None;
                self.banner = Some(Banner::error(format!(
                    "The findings and the token meter could not be computed: {message}"
                )));
            }
            Some(LoadEvent::Loaded(_)) | None => {}
        }
        if self.load.is_some() || self.analysis.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        if self.browser.as_mut().is_some_and(BrowserState::poll) {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        if let Some(answer) = self.dialog.as_ref().and_then(DialogJob::poll) {
            let purpose = self.dialog.take().map(|d| d.purpose);
            match (purpose, answer) {
                (Some(super::loader::DialogPurpose::OpenFolder), Some(path)) => {
                    self.commands.push(UiCommand::OpenFolder(path))
                }
                (Some(super::loader::DialogPurpose::Open), Some(path)) => {
                    self.commands.push(UiCommand::Open(path))
                }
                // The native dialog asks before it names an existing file.
                (Some(super::loader::DialogPurpose::Save), Some(path)) => {
                    self.commands.push(UiCommand::SaveAsReplacing(path))
                }
                (_, None) => {
                    self.banner = Some(Banner::info(
                        "No file chosen (without a desktop file-dialog service the dialog closes at once: drop a file on the window, pick one under File ▸ Recent files, or pass its path on the command line).",
                    ))
                }
                _ => {}
            }
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.commands.push(UiCommand::Open(path));
        }
    }

    /// A mapped log whose file another program truncated reads as zeros from then on, and
    /// one it rewrote reads as the new bytes (`store::open_for_viewer`): reopen the file, and
    /// say why once it is back.
    pub(super) fn reopen_if_lost(&mut self) {
        let Some(session) = &mut self.session else {
            return;
        };
        if self.load.is_some() {
            return;
        }
        let why = if session.log.text_lost() {
            "shrank while it was shown (another program truncated it)"
        } else if session.file_changed(std::time::Instant::now()) {
            "was rewritten while it was shown (another program changed it)"
        } else {
            return;
        };
        let Some(path) = session.path().map(std::path::Path::to_path_buf) else {
            return;
        };
        self.reopen_notice = Some(format!("{} {why}: reopened.", path.display()));
        self.commands.push(UiCommand::Open(path));
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = match (&self.session, &self.load) {
            _ if self.is_browsing() => format!(
                "Sessions under {} — surface-viewer",
                self.browser
                    .as_ref()
                    .map_or(String::new(), |b| b.root.display().to_string())
            ),
            (_, Some(job)) => format!("Loading {} — surface-viewer", job.source.label()),
            (Some(s), None) => s.title(),
            (None, None) => "surface-viewer".to_string(),
        };
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    fn tick_playback(&mut self, ctx: &egui::Context) {
        if !self.replay.playing {
            return;
        }
        let dt = ctx.input(|i| i.stable_dt).min(0.25);
        let steps = self.replay.tick(dt, self.prefs.speed);
        if let Some(s) = self.session.as_mut() {
            let target = (s.cursor() + steps).min(s.len());
            let started = std::time::Instant::now();
            s.seek(target);
            self.replay.adapt(steps, started.elapsed().as_secs_f32());
            if steps > 0 {
                self.pending_reveal = s.cursor_event();
            }
            if s.cursor() >= s.len() {
                self.replay.playing = false;
            }
        }
        ctx.request_repaint();
    }

    fn apply_commands(&mut self, ctx: &egui::Context) {
        let commands = std::mem::take(&mut self.commands);
        if !commands.is_empty() {
            // Commands are applied after the panels were drawn: draw their result now.
            ctx.request_repaint();
        }
        for command in commands {
            self.apply_recorded(ctx, command);
        }
        self.commands.clear();
    }

    // --- Layout -----------------------------------------------------------------------

    fn panels_ui(&mut self, ui: &mut egui::Ui) {
        if self.is_browsing() {
            self.browser_panels_ui(ui);
            return;
        }
        self.back_key(ui.ctx());
        self.history_buttons(ui.ctx());
        let text_focus = ui.ctx().egui_wants_keyboard_input();
        self.commands
            .extend(shortcuts::consume(ui.ctx(), text_focus));
        self.menu_panel_ui(ui, true);
        if let Some(job) = &self.load {
            egui::Panel::top("loading")
                .show(ui, |ui| chrome::loading_ui(ui, job, &mut self.commands));
        }
        if let Some(banner) = &self.banner {
            egui::Panel::top("banner")
                .show(ui, |ui| chrome::banner_ui(ui, banner, &mut self.commands));
        }
        let Some(session) = self.session.as_ref() else {
            egui::CentralPanel::default().show(ui, |ui| {
                chrome::welcome_ui(ui, &self.prefs, &mut self.commands)
            });
            return;
        };
        // The strip colours its marks from the compaction audit (computed in the background
        // for long logs, once per length and ratio).
        let ratio = self.view.threshold_ratio;
        self.compactions
            .cache
            .ensure(session, ratio, Some(ui.ctx()), self.synchronous);
        if self.compactions.cache.poll() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.strip.set_audit(self.compactions.cache.audit());
        self.strip
            .set_what_if(self.policy.what_if_shown(self.prefs.tab == SideTab::Policy));
        egui::Panel::bottom("replay").show(ui, |ui| {
            ui.add_space(theme::SPACE_SMALL);
            replay_bar::replay_bar_ui(
                ui,
                session,
                &mut self.replay,
                &mut self.strip,
                self.prefs.speed,
                self.view.threshold_ratio,
                replay_bar::Overview {
                    zoom: self.view.zoom,
                    hits: &self.search.hits,
                    time_axis: self.prefs.time_axis,
                },
                &mut self.commands,
            );
            ui.add_space(2.0);
        });
        self.session_panels_ui(ui);
    }

    pub(super) fn side_ui(&mut self, ui: &mut egui::Ui) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        // One row that never wraps: the tabs that do not fit go to a "⋯" menu.
        let findings = match session.finding_counts() {
            Some((errors, warnings)) => format!("Findings ({errors} E, {warnings} W)"),
            None => format!("Findings ({})", super::session::PENDING),
        };
        // Most used first: the replace preview opens by itself when a range is picked.
        let tabs = [
            (SideTab::Inspector, "Inspector".to_string()),
            (SideTab::Compactions, "Compactions".to_string()),
            (SideTab::Findings, findings),
            (SideTab::Request, "Request".to_string()),
            (SideTab::Preview, "Preview".to_string()),
            (SideTab::Policy, "Policy".to_string()),
        ];
        super::side_tabs::side_tabs_ui(ui, &tabs, self.prefs.tab, &mut self.commands);
        ui.separator();
        match self.prefs.tab {
            SideTab::Inspector => inspector::inspector_ui(
                ui,
                session,
                &self.view,
                &mut self.inspector,
                &mut self.commands,
            ),
            SideTab::Preview => preview_pane::preview_ui(
                ui,
                session,
                &self.view,
                &mut self.preview,
                &mut self.commands,
            ),
            SideTab::Compactions => compactions::compactions_ui(
                ui,
                session,
                &self.view,
                &mut self.compactions,
                &mut self.policy,
                self.synchronous,
                &mut self.commands,
            ),
            SideTab::Findings => {
                findings_panel::findings_ui(ui, session, &self.view, &mut self.commands)
            }
            SideTab::Request => request_view::request_ui(
                ui,
                session,
                &mut self.request_view,
                self.view.threshold_ratio,
                &mut self.commands,
            ),
            SideTab::Policy => policy_tab::policy_ui(
                ui,
                session,
                &mut self.policy,
                self.synchronous,
                &mut self.commands,
            ),
        }
    }

    /// An app for tests that follows `path` live (polled on every frame).
    pub fn new_following_for_test(path: impl AsRef<Path>) -> Self {
        let mut app = ViewerApp::blank(Prefs::default(), true);
        app.follow_requested = true;
        app.start_load(Source::Path(path.as_ref().to_path_buf()), None, None);
        app
    }

    /// True while the open log is followed live.
    pub fn is_following(&self) -> bool {
        self.follow.is_some()
    }

    /// Moves the cursor so that `idx` is applied and selects it.
    pub(super) fn jump_to(&mut self, idx: EventIdx) {
        if let Some(s) = self.session.as_mut() {
            s.seek(idx.get() + 1);
        }
        self.view.selected = Some(idx);
        self.pending_reveal = Some(idx);
    }
}

impl eframe::App for ViewerApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        if !self.fonts_ready {
            // New fonts apply from the next pass: draw nothing with symbols before that.
            theme::install_fonts(&ctx);
            self.fonts_ready = true;
            ctx.request_repaint();
            return;
        }
        self.ready.frame_start();
        if std::mem::take(&mut self.start_analysis_next)
            && let Some(job) = self.analysis.as_mut()
        {
            // The previous frame, with the session, has been presented.
            job.start_analysis();
        }
        self.poll_background(&ctx);
        self.reopen_if_lost();
        self.poll_follow(&ctx);
        self.view.following = self.follow.is_some();
        self.tick_playback(&ctx);
        if let Some(s) = self.session.as_ref() {
            self.search.sync_query(&s.log, Some(&ctx), self.synchronous);
        }
        if self.search.poll() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.view.reveal = self.pending_reveal.take();
        self.panels_ui(ui);
        let session_drawn = self.session.is_some() && !self.browsing;
        let everything = self.session.as_ref().is_some_and(|s| !s.analysis_pending())
            && self.compactions.cache.audit().is_some();
        self.ready.frame_end(&ctx, session_drawn, everything);
        if session_drawn && self.analysis.as_ref().is_some_and(LoadJob::analysis_waits) {
            self.start_analysis_next = true;
            ctx.request_repaint();
        }
        if self.show_help {
            chrome::help_ui(&ctx, &mut self.commands);
        }
        self.apply_commands(&ctx);
        if self.pending_reveal.is_some() {
            ctx.request_repaint();
        }
        self.update_title(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if !self.synchronous {
            self.prefs.filter_mask = self.view.filter_mask;
            self.prefs.whole_chain = self.view.whole_chain;
            self.prefs.threshold_ratio = self.view.threshold_ratio;
            eframe::set_value(storage, PREFS_KEY, &self.prefs);
            eframe::set_value(storage, RECENT_FOLDERS_KEY, &self.recent_folders);
        }
    }
}
