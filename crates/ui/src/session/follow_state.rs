//! A followed log's state: the store's [`Follower`], the file watcher that says when to poll
//! (`notify`, woken only by changes to the followed file itself — never by its being opened or
//! read, which the follower's own poll does —, with a thread comparing its size and
//! modification time every half second as the fallback), and what arrived when. Nothing here
//! repaints the window while the file stays as it is.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
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
    /// Keeps the watcher (or the fallback's thread) alive.
    watcher: Option<Watch>,
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
            watcher,
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

    /// True when nothing tells the follow that its file changed: the window's frames must
    /// then come every [`POLL_EVERY`] to poll.
    pub fn unwatched(&self) -> bool {
        self.watcher.is_none()
    }

    /// How long until [`FollowState::settled`] turns true, while events arrived and it is not.
    pub fn settles_in(&self, now: Instant) -> Option<Duration> {
        self.last_append
            .map(|t| SETTLE.saturating_sub(now.duration_since(t)))
            .filter(|left| !left.is_zero())
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

/// What tells the follow that its file changed; held only to be dropped with the follow.
#[allow(dead_code)]
enum Watch {
    /// The platform's change events.
    Events(notify::RecommendedWatcher),
    /// The fallback thread; it ends when this is dropped (at its next look).
    Looks(Sender<()>),
}

/// Watches the file's folder (files are often replaced by rename), or, when the platform
/// watcher cannot start, looks at the file's size and modification time every
/// [`POLL_EVERY`] from a thread. Either way `changed` is set, and the window woken, only when
/// the file changed. `None` when neither can start (the window's own frames then poll).
fn watch(path: &Path, changed: Arc<AtomicBool>, ctx: Option<egui::Context>) -> Option<Watch> {
    let wake = move || {
        changed.store(true, Ordering::Relaxed);
        if let Some(ctx) = &ctx {
            ctx.request_repaint();
        }
    };
    let folder = path
        .parent()
        .filter(|f| !f.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).ok();
    let name = path.file_name().map(OsStr::to_os_string);
    if let (Some(folder), Some(name)) = (folder, name)
        && let Some(watcher) = watch_events(&folder, name, wake.clone())
    {
        return Some(Watch::Events(watcher));
    }
    look_every(path.to_path_buf(), POLL_EVERY, wake).map(Watch::Looks)
}

/// The platform watcher on `folder`, calling `wake` for each event that changed `name`.
fn watch_events(
    folder: &Path,
    name: OsString,
    wake: impl Fn() + Send + 'static,
) -> Option<notify::RecommendedWatcher> {
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| changes_file(&e, &name)) {
            wake();
        }
    })
    .ok()?;
    watcher
        .watch(folder, notify::RecursiveMode::NonRecursive)
        .ok()?;
    Some(watcher)
}

/// True when `event` may have changed the file called `name`: anything but an access (an
/// open, a read, a close without writing — the follower's own poll makes those), on a path
/// with that name (the folder holds other files).
fn changes_file(event: &notify::Event, name: &OsStr) -> bool {
    !matches!(event.kind, notify::EventKind::Access(_))
        && event.paths.iter().any(|p| p.file_name() == Some(name))
}

/// The fallback: a thread comparing `path`'s size and modification time every `every`,
/// calling `wake` when they differ from the last look. Dropping the sender ends it.
fn look_every(
    path: PathBuf,
    every: Duration,
    wake: impl Fn() + Send + 'static,
) -> Option<Sender<()>> {
    let (stop, stopped) = channel::<()>();
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let mut last = stamp(&path);
    std::thread::Builder::new()
        .name("surface-viewer-follow-look".into())
        .spawn(move || {
            while stopped.recv_timeout(every) == Err(RecvTimeoutError::Timeout) {
                let now = stamp(&path);
                if now != last {
                    last = now;
                    wake();
                }
            }
        })
        .ok()?;
    Some(stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    const LINE: &str = r#"{"seq":1,"ts":"2026-01-01T00:00:00Z","type":"message","data":{"role":"user","content":"hi"}}"#;

    /// A follow of a fresh one-line log in `dir`, and how many times it woke the window.
    fn followed(dir: &Path) -> (FollowState, EventLog, Arc<AtomicUsize>) {
        let path = dir.join("live.session.jsonl");
        std::fs::write(&path, format!("{LINE}\n")).unwrap();
        let (opened, follower) =
            surface_store::open_following(&path, None, &Default::default()).unwrap();
        let ctx = egui::Context::default();
        let wakes = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&wakes);
        ctx.set_request_repaint_callback(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let state = FollowState::new(follower.unwrap(), Some(ctx));
        (state, opened.log, wakes)
    }

    #[test]
    fn an_idle_followed_file_wakes_nobody_though_it_is_polled() {
        let dir = tempfile::tempdir().unwrap();
        let (mut state, mut log, wakes) = followed(dir.path());
        // Another file in the same folder changes: not the followed one.
        std::fs::write(dir.path().join("other.txt"), "x").unwrap();
        // The window answers every wake with a frame that polls (as `poll_follow` does).
        for _ in 0..20 {
            state.poll(&mut log, Instant::now()).unwrap();
            std::thread::sleep(Duration::from_millis(25));
        }
        assert_eq!(
            wakes.load(Ordering::SeqCst),
            0,
            "opening and reading the file to poll it is no change"
        );
        assert!(!state.changed.load(Ordering::Relaxed));
        // An append wakes it.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("live.session.jsonl"))
            .unwrap();
        std::io::Write::write_all(&mut file, LINE.replace("\"seq\":1", "\"seq\":2").as_bytes())
            .unwrap();
        std::io::Write::write_all(&mut file, b"\n").unwrap();
        for _ in 0..200 {
            if wakes.load(Ordering::SeqCst) > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            wakes.load(Ordering::SeqCst) > 0,
            "an append wakes the window"
        );
        assert!(state.due(Instant::now()));
    }

    #[test]
    fn the_fallback_looks_wake_only_on_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, "a\n").unwrap();
        let wakes = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&wakes);
        let every = Duration::from_millis(5);
        let _stop = look_every(path.clone(), every, move || {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        std::thread::sleep(every * 10);
        assert_eq!(wakes.load(Ordering::SeqCst), 0);
        std::fs::write(&path, "a\nb\n").unwrap();
        for _ in 0..200 {
            if wakes.load(Ordering::SeqCst) > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(every * 10);
        assert_eq!(wakes.load(Ordering::SeqCst), 1);
    }
}
