//! A followed log's state: the store's [`Follower`], the file watcher that says when to poll
//! (`notify`, with polling every half second as the fallback), and what arrived when.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use notify::Watcher as _;

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
