//! The application: owns the loaded session and all UI state, applies the queued
//! [`UiCommand`]s once per frame, and lays out the panels.

use std::path::{Path, PathBuf};

use crate::browser::browsing::Browsing;
use crate::browser::table::BrowserState;
use crate::chrome::background::Background;
use crate::chrome::banner::{self, Banner};
use crate::chrome::shortcuts;
use crate::chrome::window_state::Chrome;
use crate::chrome::{help, welcome};
use crate::command::BrowserCommand;
use crate::command::PreviewCommand;
use crate::command::SessionCommand;
use crate::command::{SideTab, UiCommand};
use crate::inspector;
use crate::nav::state::Navigation;
use crate::panels::Panels;
use crate::request_view;
use crate::session::analysis::Parcel;
use crate::session::follow_state::FollowState;
use crate::session::jobs::Jobs;
use crate::session::loaded::Session;
use crate::session::loader::{
    DialogJob, LoadEvent, LoadJob, Loaded, Source, load_blocking, sample_source,
};
use crate::theme;
use crate::view::{Prefs, ViewState};
use surface_store::FileChange;

/// Key of the persisted preferences.
const PREFS_KEY: &str = "surface-viewer/prefs";
/// Key of the persisted recent-folders list.
pub(crate) const RECENT_FOLDERS_KEY: &str = "surface-viewer/recent-folders";

/// How long the window's first frame waits for the log it opens with (eframe shows the window
/// after that frame). A log read by then opens on its session, with no progress frame
/// rasterized meanwhile (on a machine without a GPU such a frame takes both cores for about
/// 100 ms, from the load); a longer load shows its progress strip this much later.
const FIRST_FRAME_WAITS_FOR_LOG: std::time::Duration = std::time::Duration::from_millis(400);

/// The desktop viewer: the open session and a few owned parts, each handed to the code that
/// changes it.
pub struct ViewerApp {
    /// The persisted preferences (theme, tab, layout, recent files…).
    pub(crate) prefs: Prefs,
    /// The open session.
    pub(crate) session: Option<Session>,
    /// UI state every panel reads (selection, preview range, filters, zoom).
    pub(crate) view: ViewState,
    /// The session's background work: load, analysis, follower.
    pub(crate) jobs: Jobs,
    /// Banner, dialog, help, title.
    pub(crate) chrome: Chrome,
    /// Each panel's own state.
    pub(crate) panels: Panels,
    /// Pending reveal, history of jumps, list focus.
    pub(crate) nav: Navigation,
    /// The sessions browser and the recent folders.
    pub(crate) browser: Browsing,
    /// Commands queued by the panels this frame, applied after they are drawn.
    pub(crate) commands: Vec<UiCommand>,
}

impl ViewerApp {
    pub(crate) fn blank(prefs: Prefs, synchronous: bool) -> Self {
        let view = ViewState {
            filter_mask: prefs.filter_mask,
            whole_chain: prefs.whole_chain,
            threshold_ratio: prefs.threshold_ratio,
            ..Default::default()
        };
        let price_file = prefs.price_file.clone();
        let mut app = ViewerApp {
            prefs,
            session: None,
            view,
            jobs: Jobs::new(synchronous),
            chrome: Chrome::new(),
            panels: Panels::default(),
            nav: Navigation::default(),
            browser: Browsing::default(),
            commands: Vec::new(),
        };
        // The price file remembered from the last run; one that went bad is said at once.
        if let Some(path) = price_file
            && let Err(line) = app.panels.prices.load(&path)
        {
            app.chrome.banner = Some(Banner::error(line.clone()));
            app.panels.prices.startup_error = Some(line);
        }
        app.share_prices(None);
        // One threshold: the Policy tab's settings start at the view's ratio.
        let ratio = app.view.threshold_ratio;
        app.set_threshold_ratio(ratio, crate::threshold::ThresholdSource::Remembered);
        app
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
    pub(crate) fn new_with_load(
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
        theme::install_panel_style(&cc.egui_ctx);
        crate::ready_report::note("window created");
        let mut app = ViewerApp::blank(prefs, false);
        app.chrome.fonts_ready = true;
        // The window's renderer clears to the background (`clear_color`).
        app.chrome.background = Background::Cleared;
        app.jobs.follow_requested = follow && file.is_some();
        app.jobs.repaint = Some(cc.egui_ctx.clone());
        app.browser.recent_folders = cc
            .storage
            .and_then(|s| eframe::get_value(s, RECENT_FOLDERS_KEY))
            .unwrap_or_default();
        if let Some(dir) = file.as_ref().filter(|f| f.is_dir()) {
            app.jobs.follow_requested = false;
            app.open_folder(dir.clone(), Some(cc.egui_ctx.clone()));
            return app;
        }
        if let Some(job) = started {
            // Polled every frame while it runs (see `poll_background`); it wakes the window
            // when the log is read.
            job.waker.set(cc.egui_ctx.clone());
            app.jobs.load = Some(job);
        } else {
            match file.map(Source::Path).or_else(sample_source) {
                Some(source) => app.start_load(source, session, Some(cc.egui_ctx.clone())),
                None => {
                    app.chrome.banner = Some(Banner::info(
                        "No file given and no bundled sample found: use File ▸ Open, drop a file, or pick a recent one.",
                    ))
                }
            }
        }
        // eframe shows the window after its first frame: that frame waits a moment for the
        // log, so that a log read by then opens on its session rather than on a progress
        // strip, and no frame is rasterized while the load needs the cores.
        if let Some(job) = app.jobs.load.as_mut() {
            job.wait(FIRST_FRAME_WAITS_FOR_LOG);
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
        app.jobs.hold_analysis = true;
        app.start_load(Source::Path(path.as_ref().to_path_buf()), None, None);
        app
    }

    /// Delivers the held-back analysis as the loader thread does: a command applied on the
    /// next frame. False when none is held.
    pub fn release_analysis(&mut self) -> bool {
        match self.jobs.held_analysis.take() {
            Some(parcel) => {
                self.commands
                    .push(SessionCommand::AnalysisLanded(parcel).into());
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
        self.panels.preview.current()
    }

    /// The compaction audit the Compactions tab and the context strip show (the latest computed).
    pub fn compaction_audit(&self) -> Option<&surface_analysis::audit::Audit> {
        self.panels.compactions.cache.audit().map(|a| a.as_ref())
    }

    /// The seq of the replace shown before | after, and the seqs of the surface just before
    /// and just after it.
    pub fn compared(&self) -> Option<(u64, Vec<u64>, Vec<u64>)> {
        let s = self.session.as_ref()?;
        let idx = self.panels.compactions.compare.shown()?;
        let (before, after) = self.panels.compactions.compare.lists(s)?;
        Some((s.log.event(idx).seq, before, after))
    }

    /// Seqs of the Compactions table's rows, in display order.
    pub fn compaction_rows(&self) -> Vec<u64> {
        let Some(a) = self.panels.compactions.cache.audit() else {
            return Vec::new();
        };
        self.panels
            .compactions
            .order()
            .iter()
            .filter_map(|&k| a.replaces.get(k).map(|r| r.seq))
            .collect()
    }

    /// The model request the Request tab shows (computed when that tab was last drawn).
    pub fn shown_request(&self) -> Option<&surface_engine::Request> {
        self.panels.request_view.current()
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
        self.panels
            .search
            .hits
            .iter()
            .map(|&i| s.log.event(i).seq)
            .collect()
    }

    /// The banner text, if one is shown.
    pub fn banner_text(&self) -> Option<&str> {
        self.chrome.banner.as_ref().map(|b| b.text.as_str())
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
    pub fn push_command(&mut self, command: impl Into<UiCommand>) {
        self.commands.push(command.into());
    }

    // --- Loading ----------------------------------------------------------------------

    pub(crate) fn start_load(
        &mut self,
        source: Source,
        session: Option<String>,
        ctx: Option<egui::Context>,
    ) {
        if let Some(job) = self.jobs.load.take() {
            job.cancel();
        }
        // A newer load discards the older one's analysis, late or not.
        if let Some(job) = self.jobs.analysis.take() {
            job.cancel();
        }
        self.jobs.held_analysis = None;
        self.jobs.start_analysis_next = false;
        self.jobs.follow = None;
        let follow = self.jobs.follow_requested && matches!(source, Source::Path(_));
        if self.jobs.synchronous {
            match load_blocking(&source, session.as_deref(), None, follow) {
                Ok((loaded, analysis)) => {
                    let parcel = Parcel::new(loaded.generation, analysis);
                    self.finish_load(Ok(loaded));
                    if self.jobs.hold_analysis {
                        self.jobs.held_analysis = Some(parcel);
                    } else {
                        self.land_analysis(&parcel);
                    }
                }
                Err(e) => self.finish_load(Err(e)),
            }
        } else {
            self.jobs.load = Some(LoadJob::spawn(source, session, ctx, follow));
        }
    }

    /// Applies a load's findings and meter to the shown session, when it is that load's.
    pub(crate) fn land_analysis(&mut self, parcel: &Parcel) {
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
        let automatic =
            self.chrome.banner.is_none() || self.chrome.banner == banner::banner_for(session);
        session.land(analysis);
        if automatic {
            self.chrome.banner = banner::banner_for(session);
        }
        crate::ready_report::note("findings and meter applied");
    }

    pub(crate) fn finish_load(&mut self, result: Result<Loaded, String>) {
        match result {
            Ok(mut loaded) => {
                let follower = loaded.follower.take();
                let mut session = Session::new(loaded);
                session.watch_file(self.jobs.repaint.clone());
                crate::ready_report::note("session indexed");
                self.jobs.follow = follower.map(|f| FollowState::new(f, self.jobs.repaint.clone()));
                if let Some(p) = session.path() {
                    // Absolute, so that the recent list works from any working directory.
                    let absolute = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                    self.prefs.remember(&absolute);
                }
                self.chrome.banner = banner::banner_for(&session);
                if let Some(notice) = self.jobs.reopen_notice.take() {
                    self.chrome.banner = Some(Banner::info(notice));
                }
                if let Some(line) = self.panels.prices.startup_error.take() {
                    self.chrome.banner = Some(Banner::error(line));
                }
                self.session = Some(session);
                self.panels.timeline.reset();
                self.panels.surface_panel.reset();
                self.panels.replay.reset();
                self.panels.strip.reset();
                self.panels.request_view.reset();
                if let Some(s) = &self.session {
                    self.panels
                        .search
                        .restart(&s.log, None, self.jobs.synchronous);
                }
                self.panels.preview.reset();
                self.panels.inspector.reset();
                self.panels.compactions.reset();
                self.panels.policy.reset();
                self.panels.tune.reset();
                self.panels.arrows.reset();
                self.view.selected = None;
                self.view.range_start = None;
                self.view.range_end = None;
                self.nav.history.reset();
                self.nav.findings_row = None;
                self.view.zoom = None;
                self.view.zoom_before_switch = None;
                // The file shown, reopened: the cursor and selection stay (within the new log).
                if let (Some((cursor, selected)), Some(s)) =
                    (self.jobs.keep_place.take(), self.session.as_mut())
                {
                    s.seek(cursor.min(s.len()));
                    self.view.selected = selected.filter(|i| i.get() < s.len());
                }
                // Open where the cursor is (the end), not at the last file's scroll offset.
                self.nav.pending_reveal = self.session.as_ref().and_then(Session::cursor_event);
            }
            Err(message) => {
                self.jobs.reopen_notice = None;
                self.jobs.keep_place = None;
                self.chrome.banner = Some(Banner::error(message));
                // A session picked in the browser did not open: back to the table.
                if self.browser.state.is_some() {
                    self.browser.shown = true;
                }
            }
        }
    }

    fn poll_background(&mut self, ctx: &egui::Context) {
        match self.jobs.load.as_mut().and_then(LoadJob::poll) {
            Some(LoadEvent::Loaded(loaded)) => {
                // The same thread sends the analysis next.
                self.jobs.analysis = self.jobs.load.take();
                self.finish_load(Ok(*loaded));
            }
            Some(LoadEvent::Failed(message)) => {
                self.jobs.load = None;
                self.finish_load(Err(message));
            }
            Some(LoadEvent::Analysed(parcel)) => {
                self.jobs.load = None;
                self.commands
                    .push(SessionCommand::AnalysisLanded(parcel).into());
            }
            None => {}
        }
        match self.jobs.analysis.as_mut().and_then(LoadJob::poll) {
            Some(LoadEvent::Analysed(parcel)) => {
                self.jobs.analysis = None;
                self.commands
                    .push(SessionCommand::AnalysisLanded(parcel).into());
            }
            Some(LoadEvent::Failed(message)) => {
                self.jobs.analysis = None;
                self.chrome.banner = Some(Banner::error(format!(
                    "The findings and the token meter could not be computed: {message}"
                )));
            }
            Some(LoadEvent::Loaded(_)) | None => {}
        }
        if self.jobs.load.is_some() || self.jobs.analysis.is_some() {
            ctx.request_repaint_after(crate::session::loader::PROGRESS_REPAINT_EVERY);
        }
        if self.browser.state.as_mut().is_some_and(BrowserState::poll) {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.poll_export(ctx);
        if let Some(answer) = self.chrome.dialog.as_ref().and_then(DialogJob::poll) {
            let purpose = self.chrome.dialog.take().map(|d| d.purpose);
            match (purpose, answer) {
                (Some(crate::session::loader::DialogPurpose::OpenFolder), Some(path)) => {
                    self.commands.push(BrowserCommand::OpenFolder(path).into())
                }
                (Some(crate::session::loader::DialogPurpose::ExportTo), Some(path)) => self
                    .commands
                    .push(BrowserCommand::ExportFolderTo(path).into()),
                (Some(crate::session::loader::DialogPurpose::Open), Some(path)) => {
                    self.commands.push(SessionCommand::Open(path).into())
                }
                (Some(crate::session::loader::DialogPurpose::Prices), Some(path)) => self
                    .commands
                    .push(crate::command::PriceCommand::Use(path).into()),
                (Some(crate::session::loader::DialogPurpose::Compare), Some(path)) => self
                    .commands
                    .push(crate::command::CompareCommand::With(path).into()),
                (Some(crate::session::loader::DialogPurpose::CompareBeside), Some(path)) => self
                    .commands
                    .push(crate::command::CompareCommand::Beside(path).into()),
                // The native dialog asks before it names an existing file.
                (Some(crate::session::loader::DialogPurpose::Save), Some(path)) => self
                    .commands
                    .push(PreviewCommand::SaveAsReplacing(path).into()),
                (Some(purpose), None) => {
                    self.chrome.banner =
                        Some(Banner::info(crate::chrome::path_field::no_choice(purpose)))
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
            self.commands.push(SessionCommand::Open(path).into());
        }
    }

    /// A mapped log whose file another program truncated reads as zeros from then on, and
    /// one it rewrote reads as the new bytes (`store::open` mapping it); a copy would show what
    /// the file no longer holds: reopen the file, and say why once it is back. A file that only
    /// grew is kept as it was read, and said once (Follow reads the new events).
    pub(crate) fn reopen_if_lost(&mut self) {
        let Some(session) = &mut self.session else {
            return;
        };
        if self.jobs.load.is_some() {
            return;
        }
        // The identity check may see a truncation before a read past the new end does.
        let shrank = "shrank while it was shown (another program truncated it)";
        let why = if session.log.text_lost() {
            shrank
        } else {
            match session.file_change(std::time::Instant::now()) {
                FileChange::Shrank => shrank,
                FileChange::Rewritten => {
                    "was rewritten while it was shown (another program changed it)"
                }
                FileChange::Grew => {
                    // The mapping still shows every byte read; the new events wait for Follow.
                    if !session.growth_told {
                        session.growth_told = true;
                        let path = session
                            .path()
                            .map_or(String::new(), |p| p.display().to_string());
                        self.chrome.banner = Some(Banner::info(format!(
                            "{path} grew while it was shown (another program appended to it): the events shown are as they were read; turn on Follow (View ▸ Follow the file live) to read the new ones."
                        )));
                    }
                    return;
                }
                FileChange::Unchanged => return,
            }
        };
        let Some(path) = session.path().map(std::path::Path::to_path_buf) else {
            return;
        };
        self.jobs.reopen_notice = Some(format!(
            "{} {why}: reopened; the cursor stays where it was (or at the new end).",
            path.display()
        ));
        self.jobs.keep_place = Some((session.cursor(), self.view.selected));
        self.commands.push(SessionCommand::Open(path).into());
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = match (&self.session, &self.jobs.load) {
            _ if self.is_browsing() => format!(
                "Sessions under {} — surface-viewer",
                self.browser
                    .state
                    .as_ref()
                    .map_or(String::new(), |b| b.root.display().to_string())
            ),
            (_, Some(job)) => format!("Loading {} — surface-viewer", job.source.label()),
            (Some(s), None) => s.title(),
            (None, None) => "surface-viewer".to_string(),
        };
        if title != self.chrome.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.chrome.title = title;
        }
    }

    fn tick_playback(&mut self, ctx: &egui::Context) {
        if !self.panels.replay.playing {
            return;
        }
        let dt = ctx.input(|i| i.stable_dt).min(0.25);
        let steps = self.panels.replay.tick(dt, self.prefs.speed);
        if let Some(s) = self.session.as_mut() {
            let target = (s.cursor() + steps).min(s.len());
            let started = std::time::Instant::now();
            s.seek(target);
            self.panels
                .replay
                .adapt(steps, started.elapsed().as_secs_f32());
            if steps > 0 {
                self.nav.pending_reveal = s.cursor_event();
            }
            if s.cursor() >= s.len() {
                self.panels.replay.playing = false;
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
        if let Some(job) = &self.jobs.load {
            egui::Panel::top("loading")
                .show(ui, |ui| banner::loading_ui(ui, job, &mut self.commands));
        }
        if let Some(banner) = &self.chrome.banner {
            banner::banner_slot_ui(ui, banner, &mut self.commands);
        }
        let Some(session) = self.session.as_ref() else {
            egui::CentralPanel::default().show(ui, |ui| {
                welcome::welcome_ui(ui, &self.prefs, &mut self.commands)
            });
            return;
        };
        // The strip colours its marks from the compaction audit (computed in the background
        // for long logs, once per length and ratio).
        let ratio = self.view.threshold_ratio;
        self.panels
            .compactions
            .cache
            .ensure(session, ratio, Some(ui.ctx()), self.jobs.synchronous);
        if self.panels.compactions.cache.poll() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.panels
            .strip
            .set_audit(self.panels.compactions.cache.audit());
        // Why the cache missed, beside the ledger's parts (in the background for long logs):
        // the strip marks each break, the Request view and the Compactions tab name it.
        self.panels.compactions.cost.ensure(
            session,
            self.panels.prices.table(),
            Some(ui.ctx()),
            self.jobs.synchronous,
        );
        self.panels
            .strip
            .set_changes(self.panels.compactions.cost.changes());
        self.panels.strip.show_breaks = self.prefs.cache_breaks;
        // The what-if's curve stays over the strip whichever tab is open (its toggle hides it).
        self.panels
            .strip
            .set_what_if(self.panels.policy.latest_what_if());
        self.panels.strip.show_cache = self.prefs.cache_split;
        // B's curve likewise, once a comparison is computed.
        crate::compare::tick::tick_compare(
            &mut self.panels,
            session,
            (ratio, self.jobs.synchronous),
            ui.ctx(),
        );
        egui::Panel::bottom("replay").show(ui, |ui| {
            ui.add_space(theme::SPACE_SMALL);
            crate::replay::bar::replay_bar_ui(
                ui,
                session,
                &mut self.panels.replay,
                &mut self.panels.strip,
                self.prefs.speed,
                self.view.threshold_ratio,
                crate::replay::bar::Overview {
                    zoom: self.view.zoom,
                    hits: &self.panels.search.hits,
                    time_axis: self.prefs.time_axis,
                },
                &mut self.commands,
            );
            ui.add_space(2.0);
        });
        self.session_panels_ui(ui);
    }

    pub(crate) fn side_ui(&mut self, ui: &mut egui::Ui) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        // One row that never wraps: the tabs that do not fit go to a "⋯" menu.
        let findings = match session.finding_counts() {
            Some((errors, warnings)) => format!("Findings ({errors} E, {warnings} W)"),
            None => format!("Findings ({})", crate::session::loaded::PENDING),
        };
        // Most used first: the replace preview opens by itself when a range is picked.
        let tabs = [
            (SideTab::Inspector, "Inspector".to_string()),
            (SideTab::Compactions, "Compactions".to_string()),
            (SideTab::Findings, findings),
            (SideTab::Request, "Request".to_string()),
            (SideTab::Preview, "Preview".to_string()),
            (SideTab::Policy, "Policy".to_string()),
            (SideTab::Tune, "Tune".to_string()),
            (SideTab::Compare, "Compare".to_string()),
        ];
        crate::chrome::side_tabs::side_tabs_ui(ui, &tabs, self.prefs.tab, &mut self.commands);
        ui.separator();
        match self.prefs.tab {
            SideTab::Inspector => inspector::inspector_ui(
                ui,
                session,
                &self.view,
                &mut self.panels.inspector,
                &mut self.commands,
            ),
            SideTab::Preview => crate::preview::pane::preview_ui(
                ui,
                session,
                &self.view,
                &mut self.panels.preview,
                self.jobs.synchronous,
                &mut self.commands,
            ),
            SideTab::Compactions => crate::compactions::tab::compactions_ui(
                ui,
                session,
                &self.view,
                &mut self.panels.compactions,
                &mut self.panels.policy,
                (self.jobs.synchronous, self.panels.prices.table()),
                &mut self.commands,
            ),
            SideTab::Findings => crate::findings::panel::findings_ui(
                ui,
                session,
                &self.view,
                (self.nav.findings_row, &mut self.panels.findings),
                &mut self.commands,
            ),
            SideTab::Request => request_view::request_ui(
                ui,
                session,
                &mut self.panels.request_view,
                (
                    self.view.threshold_ratio,
                    self.panels.prices.table().map(|t| t.as_ref()),
                    self.panels.compactions.cost.changes().map(|c| c.as_ref()),
                ),
                &mut self.commands,
            ),
            SideTab::Compare => crate::compare::tab::compare_ui(
                ui,
                &mut self.panels.compare,
                &self.prefs.recent,
                session.path(),
                &mut self.commands,
            ),
            SideTab::Policy => crate::policy::tab::policy_ui(
                ui,
                (session, &self.panels.compare),
                &mut self.panels.policy,
                (self.jobs.synchronous, self.view.reveal.is_some()),
                &mut self.commands,
            ),
            SideTab::Tune => crate::tune::tab::tune_tab_ui(
                ui,
                session,
                &mut self.panels.tune,
                (self.panels.prices.table().is_some(), self.jobs.synchronous),
                &mut self.commands,
            ),
        }
    }

    /// An app for tests that follows `path` live (polled on every frame).
    pub fn new_following_for_test(path: impl AsRef<Path>) -> Self {
        let mut app = ViewerApp::blank(Prefs::default(), true);
        app.jobs.follow_requested = true;
        app.start_load(Source::Path(path.as_ref().to_path_buf()), None, None);
        app
    }

    /// True while the open log is followed live.
    pub fn is_following(&self) -> bool {
        self.jobs.follow.is_some()
    }
}

impl eframe::App for ViewerApp {
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        crate::chrome::background::clear_color(visuals)
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        if !self.chrome.fonts_ready {
            // New fonts apply from the next pass: draw nothing with symbols before that.
            theme::install_fonts(&ctx);
            theme::install_panel_style(&ctx);
            self.chrome.fonts_ready = true;
            ctx.request_repaint();
            return;
        }
        self.chrome.ready.frame_start();
        self.chrome.background.lay(ui);
        if std::mem::take(&mut self.jobs.start_analysis_next)
            && let Some(job) = self.jobs.analysis.as_mut()
        {
            // The previous frame, with the session, has been presented.
            job.start_analysis();
        }
        self.poll_background(&ctx);
        self.chrome.expire_notice(&ctx);
        self.reopen_if_lost();
        self.poll_follow(&ctx);
        self.view.following = self.jobs.follow.is_some();
        self.tick_playback(&ctx);
        if let Some(s) = self.session.as_ref() {
            self.panels
                .search
                .sync_query(&s.log, Some(&ctx), self.jobs.synchronous);
        }
        if self.panels.search.poll() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.view.reveal = self.nav.pending_reveal.take();
        self.panels_ui(ui);
        let session_drawn = self.session.is_some() && !self.browser.shown;
        let everything = self.session.as_ref().is_some_and(|s| !s.analysis_pending())
            && self.panels.compactions.cache.audit().is_some();
        self.chrome.ready.frame_end(&ctx, session_drawn, everything);
        if session_drawn
            && self
                .jobs
                .analysis
                .as_ref()
                .is_some_and(LoadJob::analysis_waits)
        {
            self.jobs.start_analysis_next = true;
            ctx.request_repaint();
        }
        if self.chrome.show_help {
            help::help_ui(&ctx, &mut self.commands);
        }
        self.apply_commands(&ctx);
        self.keep_cursor_in_zoom();
        if self.nav.pending_reveal.is_some() {
            ctx.request_repaint();
        }
        self.update_title(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if !self.jobs.synchronous {
            self.prefs.filter_mask = self.view.filter_mask;
            self.prefs.whole_chain = self.view.whole_chain;
            self.prefs.threshold_ratio = self.view.threshold_ratio;
            eframe::set_value(storage, PREFS_KEY, &self.prefs);
            eframe::set_value(storage, RECENT_FOLDERS_KEY, &self.browser.recent_folders);
        }
    }
}
