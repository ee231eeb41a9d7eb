//! Live follow in the viewer: the store's [`Follower`] is polled when the file changes
//! (`notify`) or every half second (the fallback when change events are unavailable), and new
//! events go through the engine's delta processing. The viewer only reads the file.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use notify::Watcher as _;

use super::app::ViewerApp;
use super::chrome::{self, Banner};
use super::loader::Source;
use surface_engine::EventLog;
use surface_store::{FollowUpdate, Follower, StoreError};

/// Polling interval when no change event arrives.
pub const POLL_EVERY: Duration = Duration::from_millis(500);
/// How long the log must be quiet before findings are recomputed.
pub const SETTLE: Duration = Duration::from_secs(1);

/// A followed log.
pub struct FollowState {
    follower: Follower,
    /// Set by the watcher thread on any change in the file's folder.
    changed: Arc<AtomicBool>,
    /// Keeps the watcher alive; `None` when change events are unavailable (polling only).
    _watcher: Option<notify::RecommendedWatcher>,
    last_poll: Option<Instant>,
    /// When events last arrived.
    pub last_append: Option<Instant>,
    /// Events appended since following started.
    pub appended: usize,
    /// Reveal the last event once more on the next frame (see `ViewerApp::poll_follow`).
    pub reveal_again: bool,
}

impl FollowState {
    /// Starts following; `ctx` is woken on change events.
    pub fn new(follower: Follower, ctx: Option<egui::Context>) -> Self {
        let changed = Arc::new(AtomicBool::new(true));
        let watcher = watch(follower.path(), Arc::clone(&changed), ctx);
        FollowState {
            follower,
            changed,
            _watcher: watcher,
            last_poll: None,
            last_append: None,
            appended: 0,
            reveal_again: false,
        }
    }

    /// True when the file may have changed: a change event arrived or the fallback interval
    /// passed.
    pub fn due(&self, now: Instant) -> bool {
        self.changed.load(Ordering::Relaxed)
            || self
                .last_poll
                .is_none_or(|t| now.duration_since(t) >= POLL_EVERY)
    }

    /// True when events arrived and none for [`SETTLE`].
    pub fn settled(&self, now: Instant) -> bool {
        self.last_append
            .is_some_and(|t| now.duration_since(t) >= SETTLE)
    }

    /// Reads what was appended into `log`.
    pub fn poll(&mut self, log: &mut EventLog, now: Instant) -> Result<FollowUpdate, StoreError> {
        self.changed.store(false, Ordering::Relaxed);
        self.last_poll = Some(now);
        let update = self.follower.poll(log)?;
        if let FollowUpdate::Appended { events } = update
            && events > 0
        {
            self.last_append = Some(now);
            self.appended += events;
        }
        Ok(update)
    }
}

impl ViewerApp {
    /// Turns following on (re-reading the file once, so that it starts from a consistent
    /// offset) or off.
    pub(super) fn toggle_follow(&mut self) {
        if self.follow.take().is_some() {
            self.follow_requested = false;
            return;
        }
        let Some(path) = self
            .session
            .as_ref()
            .and_then(|s| s.path().map(Path::to_path_buf))
        else {
            self.banner = Some(Banner::info("Only a file on disk can be followed."));
            return;
        };
        self.follow_requested = true;
        let session = self.session.as_ref().map(|s| s.info.id.clone());
        self.start_load(Source::Path(path), session, self.repaint.clone());
    }

    /// Polls the follower when the file may have changed, feeds new events to the engine,
    /// and recomputes findings once the log has been quiet for a moment.
    pub(super) fn poll_follow(&mut self, ctx: &egui::Context) {
        let (Some(follow), Some(session)) = (self.follow.as_mut(), self.session.as_mut()) else {
            return;
        };
        let now = std::time::Instant::now();
        if self.synchronous || follow.due(now) {
            let was_at_end = session.cursor() == session.len();
            // A search thread may hold the log for a moment; poll again next frame then.
            if let Some(log) = std::sync::Arc::get_mut(&mut session.log) {
                match follow.poll(log, now) {
                    Ok(FollowUpdate::Appended { events }) if events > 0 => {
                        session.absorb_appended();
                        if was_at_end {
                            self.pending_reveal = session.cursor_event();
                            // The scroll area clamps to last frame's content height, which
                            // did not include the new rows yet: reveal once more next frame.
                            follow.reveal_again = true;
                        }
                        ctx.request_repaint();
                        return;
                    }
                    Ok(FollowUpdate::Reload { reason }) => {
                        self.banner = Some(Banner::info(format!(
                            "The followed file changed underneath ({reason}); reloaded it."
                        )));
                        let path = session.path().map(Path::to_path_buf);
                        let id = Some(session.info.id.clone());
                        if let Some(path) = path {
                            self.start_load(Source::Path(path), id, self.repaint.clone());
                        }
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        self.banner = Some(Banner::error(format!("Stopped following: {e}")));
                        self.follow = None;
                        return;
                    }
                }
            }
        }
        if std::mem::take(&mut follow.reveal_again) && session.cursor() == session.len() {
            self.pending_reveal = session.cursor_event();
        }
        if session.findings_stale && (self.synchronous || follow.settled(now)) {
            session.refresh_findings();
            if self.banner.as_ref().is_none_or(|b| b.show_findings) {
                self.banner = chrome::banner_for(session);
            }
            self.search
                .restart(&session.log, Some(ctx), self.synchronous);
        }
        ctx.request_repaint_after(POLL_EVERY);
    }
}

/// Watches the file's folder (files are often replaced by rename). `None` when the platform
/// watcher cannot start; polling still works.
fn watch(
    path: &Path,
    changed: Arc<AtomicBool>,
    ctx: Option<egui::Context>,
) -> Option<notify::RecommendedWatcher> {
    let absolute = std::fs::canonicalize(path).ok()?;
    let folder = absolute.parent()?;
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok() {
            changed.store(true, Ordering::Relaxed);
            if let Some(ctx) = &ctx {
                ctx.request_repaint();
            }
        }
    })
    .ok()?;
    watcher
        .watch(folder, notify::RecursiveMode::NonRecursive)
        .ok()?;
    Some(watcher)
}
