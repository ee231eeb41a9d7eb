//! Background work that must never block the UI thread: loading a session file (with progress
//! and cancellation) in two steps — the log and its surface first, then its findings and token
//! meter ([`crate::session::analysis`]) — and the native file and folder dialogs (the folder
//! discovery itself is `browser/job.rs`).
//!
//! The viewer maps a large JSONL file (`store::open` with `Reading::Map`): the log's text
//! shares the page cache's pages, so the window's private memory holds the index, not a copy
//! of the file. A log it follows is an owned copy (`store::open_following`), which new lines are
//! appended to. If another program truncates a mapped file, its bytes read as zeros and the
//! window reopens it (`ViewerApp::reopen_if_lost`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use surface_engine::{EventLog, Surface};
use surface_store::{self as store, Format, LoadProgress, SessionInfo};

use crate::session::analysis::{Analysis, Parcel, analyse};
use crate::session::indexes::{Indexes, surface_and_indexes};

/// Where a log comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file on disk.
    Path(PathBuf),
    /// A copy compiled into the binary.
    Embedded {
        /// A display name.
        name: &'static str,
        /// The JSONL bytes.
        bytes: &'static [u8],
    },
}

impl Source {
    /// A short display name (the file name).
    pub fn label(&self) -> String {
        match self {
            Source::Path(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            Source::Embedded { name, .. } => (*name).to_string(),
        }
    }
}

/// A new load number: a session remembers the load it came from, so that a late analysis of
/// an older load is never applied to a newer one.
pub fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What the first step of a load hands to the UI: enough for the first frame.
#[derive(Debug)]
pub struct Loaded {
    /// The load number (see [`next_generation`]).
    pub generation: u64,
    /// Where it came from.
    pub source: Source,
    /// Detected format.
    pub format: Format,
    /// The session that was read.
    pub info: SessionInfo,
    /// All sessions of the file (more than one only for SQLite).
    pub sessions: Vec<SessionInfo>,
    /// The log (shared read-only with the analysis, search and audit workers).
    pub log: Arc<EventLog>,
    /// The live follower, when the log was opened with Follow on (JSONL, zstd or SQLite).
    pub follower: Option<store::Follower>,
    /// The surface, processed to the end (cursor at the end); shared with the analysis until
    /// the UI first moves its cursor (see [`crate::session::loaded::Session::seek`]).
    pub surface: Arc<Surface>,
    /// The session's indexes of the records, built beside the surface.
    pub indexes: Indexes,
}

/// Reads a source and processes its surface to the end, on the calling thread: the first
/// step of a load. `None` for `progress` means no cancellation. Errors are one human sentence.
pub fn read_source(
    source: &Source,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    follow: bool,
    generation: u64,
) -> Result<Loaded, String> {
    let mut follower = None;
    let (format, info, sessions, log) = match source {
        Source::Path(path) if follow => {
            let (opened, f) = store::open_following(path, session, &store::ReadLimits::default())
                .map_err(|e| e.to_string())?;
            follower = f;
            let sessions = vec![opened.session.clone()];
            (opened.format, opened.session, sessions, opened.log)
        }
        Source::Path(path) => read_path(path, session, progress)?,
        Source::Embedded { name, bytes } => {
            let log = store::read_jsonl(bytes.to_vec(), progress)
                .ok_or_else(|| format!("loading {name} was cancelled"))?;
            let info = SessionInfo {
                id: log
                    .header
                    .as_ref()
                    .map(|h| h.id.clone())
                    .unwrap_or_default(),
                events: log.len() as u64,
                ..Default::default()
            };
            (Format::Jsonl, info.clone(), vec![info], log)
        }
    };
    crate::ready_report::note("log read");
    // The file the window watches for other programs' changes: a JSONL or Zstandard file not
    // followed (a follower reads the changes itself; a SQLite store's header changes at every
    // commit of any of its sessions).
    let watched = match source {
        Source::Path(path) if !follow && format != Format::Sqlite => Some(path.as_path()),
        _ => None,
    };
    let (surface, indexes) = surface_and_indexes(&log, watched);
    if progress.is_some_and(LoadProgress::is_cancelled) {
        return Err(format!("loading {} was cancelled", source.label()));
    }
    Ok(Loaded {
        generation,
        source: source.clone(),
        format,
        info,
        sessions,
        log: Arc::new(log),
        follower,
        surface: Arc::new(surface),
        indexes,
    })
}

/// Both steps of a load on the calling thread (tests and the synchronous app): the log and
/// surface, and their analysis.
pub fn load_blocking(
    source: &Source,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    follow: bool,
) -> Result<(Loaded, Analysis), String> {
    let loaded = read_source(source, session, progress, follow, next_generation())?;
    let analysis = analyse(&loaded.log, &loaded.surface);
    Ok((loaded, analysis))
}

type ReadResult = (Format, SessionInfo, Vec<SessionInfo>, EventLog);

fn read_path(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
) -> Result<ReadResult, String> {
    let format = store::detect_file(path).map_err(|e| e.to_string())?;
    let sessions = if format == Format::Sqlite {
        store::list_sessions(path).map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    let options = store::Options {
        session,
        progress,
        limits: store::ReadLimits::default(),
        reading: store::Reading::Map(store::OnTruncate::Report),
    };
    let opened = store::open(path, &options).map_err(|e| e.to_string())?;
    let sessions = if sessions.is_empty() {
        vec![opened.session.clone()]
    } else {
        sessions
    };
    Ok((opened.format, opened.session, sessions, opened.log))
}

/// A message of a load running on a worker thread: the log first, then its analysis.
#[derive(Debug)]
pub enum LoadEvent {
    /// The log and its surface, ready for the first frame.
    Loaded(Box<Loaded>),
    /// Its findings and token meter.
    Analysed(Parcel),
    /// Nothing could be read (one human sentence).
    Failed(String),
}

impl LoadEvent {
    /// What a job says when its thread ended without a word (it panicked).
    fn stopped() -> Self {
        LoadEvent::Failed("the loader thread stopped unexpectedly".into())
    }
}

/// How long the loader waits for the UI to put the log on screen before it starts the
/// analysis anyway (a window that draws no frame, e.g. minimised).
const ANALYSIS_WAITS_FOR_FRAME: Duration = Duration::from_secs(2);

/// How often the window redraws a running load's progress (and an analysis's "computing…")
/// on its own. The job asks for a frame itself the moment each step is ready ([`RepaintWaker`]), so
/// this paces only the progress bar: on a machine without a GPU every frame is rasterized on
/// the same cores the load reads with (about 100 ms of both cores for a 1600×1000 frame under
/// Mesa's llvmpipe), and a faster pace took that time from the load.
pub const PROGRESS_REPAINT_EVERY: Duration = Duration::from_millis(250);

/// Asks the window for a frame from a worker thread. A load started before the window opened
/// ([`crate::run`]) has no window yet: [`RepaintWaker::set`] gives it one later, and a step that
/// ends before then is seen by the window's first frame, which polls every job.
#[derive(Default)]
pub struct RepaintWaker {
    ctx: Mutex<Option<egui::Context>>,
}

impl RepaintWaker {
    fn new(ctx: Option<egui::Context>) -> Self {
        RepaintWaker {
            ctx: Mutex::new(ctx),
        }
    }

    /// The window to wake from now on.
    pub fn set(&self, ctx: egui::Context) {
        *self.ctx.lock().unwrap_or_else(PoisonError::into_inner) = Some(ctx);
    }

    /// Asks the window (if there is one yet) for a frame.
    pub fn wake(&self) {
        if let Some(ctx) = &*self.ctx.lock().unwrap_or_else(PoisonError::into_inner) {
            ctx.request_repaint();
        }
    }
}

/// A load running on a worker thread. Dropping it discards whatever the thread still sends.
pub struct LoadJob {
    /// What is being loaded.
    pub source: Source,
    /// Shared progress and cancel flag.
    pub progress: Arc<LoadProgress>,
    /// Wakes the window when a step is ready.
    pub waker: Arc<RepaintWaker>,
    rx: Receiver<LoadEvent>,
    /// A message [`LoadJob::wait`] received, handed out by the next [`LoadJob::poll`].
    early: Option<LoadEvent>,
    /// Lets the analysis start (see [`LoadJob::start_analysis`]); `None` once sent.
    go: Option<Sender<()>>,
}

impl LoadJob {
    /// Starts loading on a new thread; `ctx` is asked to repaint when each step is ready.
    pub fn spawn(
        source: Source,
        session: Option<String>,
        ctx: Option<egui::Context>,
        follow: bool,
    ) -> Self {
        let progress = Arc::new(LoadProgress::default());
        let generation = next_generation();
        let (tx, rx) = channel();
        let (go, go_rx) = channel::<()>();
        let worker_progress = Arc::clone(&progress);
        let worker_source = source.clone();
        let waker = Arc::new(RepaintWaker::new(ctx));
        let worker_waker = Arc::clone(&waker);
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-load".into())
            .spawn(move || {
                let wake = || worker_waker.wake();
                let loaded = match read_source(
                    &worker_source,
                    session.as_deref(),
                    Some(&worker_progress),
                    follow,
                    generation,
                ) {
                    Ok(loaded) => loaded,
                    Err(e) => {
                        // The receiver may be gone (a newer load replaced this one); that is fine.
                        let _ = tx.send(LoadEvent::Failed(e));
                        wake();
                        return;
                    }
                };
                // The analysis shares the log and the surface (only its processed effects are
                // read; the UI copies the surface if it moves the cursor meanwhile).
                let log = Arc::clone(&loaded.log);
                let surface = Arc::clone(&loaded.surface);
                let _ = tx.send(LoadEvent::Loaded(Box::new(loaded)));
                wake();
                // The first frame gets both cores: the analysis starts once it is on screen.
                if let Err(RecvTimeoutError::Disconnected) =
                    go_rx.recv_timeout(ANALYSIS_WAITS_FOR_FRAME)
                    && worker_progress.is_cancelled()
                {
                    return;
                }
                crate::ready_report::note("analysis started");
                let analysis = analyse(&log, &surface);
                drop(surface);
                // Free the log here when the UI already dropped this load.
                drop(log);
                crate::ready_report::note("findings and meter computed");
                if !worker_progress.is_cancelled() {
                    let _ = tx.send(LoadEvent::Analysed(Parcel::new(generation, analysis)));
                    wake();
                }
            });
        if let Err(e) = spawned {
            let (tx, err_rx) = channel();
            let _ = tx.send(LoadEvent::Failed(format!(
                "cannot start the loader thread: {e}"
            )));
            return LoadJob {
                source,
                progress,
                waker,
                rx: err_rx,
                early: None,
                go: None,
            };
        }
        LoadJob {
            source,
            progress,
            waker,
            rx,
            early: None,
            go: Some(go),
        }
    }

    /// True until [`LoadJob::start_analysis`] was called.
    pub fn analysis_waits(&self) -> bool {
        self.go.is_some()
    }

    /// Lets the loader start the findings and the meter: called once the log and surface are
    /// on screen (the loader starts them on its own after [`ANALYSIS_WAITS_FOR_FRAME`]).
    pub fn start_analysis(&mut self) {
        if let Some(go) = self.go.take() {
            let _ = go.send(());
        }
    }

    /// The next message, once the thread sent one.
    pub fn poll(&mut self) -> Option<LoadEvent> {
        if let Some(event) = self.early.take() {
            return Some(event);
        }
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(LoadEvent::stopped()),
        }
    }

    /// Blocks up to `timeout` for the job's next message, kept for the next [`LoadJob::poll`];
    /// true when one came.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if self.early.is_none() {
            self.early = match self.rx.recv_timeout(timeout) {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(LoadEvent::stopped()),
            };
        }
        self.early.is_some()
    }

    /// Asks the loader to stop.
    pub fn cancel(&self) {
        self.progress.cancel();
    }
}

/// What a file dialog was opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Pick a log to open.
    Open,
    /// Pick where to save a new log.
    Save,
    /// Pick a folder to browse.
    OpenFolder,
    /// Pick a price file.
    Prices,
    /// Pick a second log to compare with the open one.
    Compare,
    /// Pick a real run to hold beside the Policy tab's what-if (compared as with `Compare`).
    CompareBeside,
    /// Name the new folder an export of the browsed folder is written to.
    ExportTo,
}

/// A native file dialog running on a worker thread.
pub struct DialogJob {
    /// Why it was opened.
    pub purpose: DialogPurpose,
    rx: Receiver<Option<PathBuf>>,
}

impl DialogJob {
    /// Opens a dialog on a worker thread. Without a desktop portal it answers "no file" at once.
    pub fn spawn(purpose: DialogPurpose, suggested: Option<PathBuf>, ctx: egui::Context) -> Self {
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-dialog".into())
            .spawn(move || {
                let mut dialog = rfd::FileDialog::new();
                if purpose == DialogPurpose::OpenFolder {
                    if let Some(dir) = &suggested {
                        dialog = dialog.set_directory(dir);
                    }
                    let _ = tx.send(dialog.pick_folder());
                    ctx.request_repaint();
                    return;
                }
                if let Some(s) = &suggested {
                    if let Some(dir) = s.parent() {
                        dialog = dialog.set_directory(dir);
                    }
                    if let Some(name) = s.file_name() {
                        dialog = dialog.set_file_name(name.to_string_lossy());
                    }
                }
                let picked = match purpose {
                    DialogPurpose::Open | DialogPurpose::Compare | DialogPurpose::CompareBeside => {
                        dialog
                            .add_filter("Session logs", &["jsonl", "zstd", "zst", "sqlite", "db"])
                            .add_filter("All files", &["*"])
                            .pick_file()
                    }
                    DialogPurpose::Prices => dialog
                        .add_filter("Price files", &["json"])
                        .add_filter("All files", &["*"])
                        .pick_file(),
                    DialogPurpose::Save | DialogPurpose::OpenFolder | DialogPurpose::ExportTo => {
                        dialog.save_file()
                    }
                };
                let _ = tx.send(picked);
                ctx.request_repaint();
            });
        if spawned.is_err() {
            let (tx, err_rx) = channel();
            let _ = tx.send(None);
            return DialogJob {
                purpose,
                rx: err_rx,
            };
        }
        DialogJob { purpose, rx }
    }

    /// `Some(answer)` once the dialog closed (`answer` is `None` when nothing was picked).
    pub fn poll(&self) -> Option<Option<PathBuf>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(None),
        }
    }
}

/// The sample compiled into the binary, used when the source tree is not around.
const EMBEDDED_SAMPLE: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/sample.session.jsonl"
));

/// The bundled sample's file in the source tree.
fn bundled_sample_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/sample.session.jsonl"
    ))
}

/// True when `path` is the bundled sample's file in the source tree (under any spelling).
pub fn is_bundled_sample(path: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    canonical(path).is_some_and(|p| Some(p) == canonical(&bundled_sample_path()))
}

/// The bundled sample: the file in `assets/` next to the crate when it exists at run time
/// (so edits show without a rebuild), else the copy compiled into the binary.
pub fn sample_source() -> Option<Source> {
    let path = bundled_sample_path();
    // The crate lives in `crates/ui`: name the file by its plain path, not through `..`.
    if let Ok(path) = std::fs::canonicalize(&path)
        && path.is_file()
    {
        return Some(Source::Path(path));
    }
    Some(Source::Embedded {
        name: "sample.session.jsonl (built in)",
        bytes: EMBEDDED_SAMPLE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: Duration = Duration::from_secs(60);

    fn sample_job() -> LoadJob {
        let source = Source::Embedded {
            name: "sample",
            bytes: EMBEDDED_SAMPLE,
        };
        LoadJob::spawn(source, None, None, false)
    }

    #[test]
    fn a_message_waited_for_is_the_next_poll_and_only_that() {
        let mut job = sample_job();
        assert!(job.wait(LONG), "the sample loads");
        assert!(matches!(job.poll(), Some(LoadEvent::Loaded(_))));
        // The analysis waits for the first frame: nothing more until it is let go.
        assert!(job.poll().is_none());
        job.start_analysis();
        assert!(job.wait(LONG));
        assert!(
            job.wait(LONG),
            "a kept message is not replaced by waiting again"
        );
        assert!(matches!(job.poll(), Some(LoadEvent::Analysed(_))));
    }

    #[test]
    fn a_wait_that_times_out_keeps_nothing() {
        let (tx, rx) = channel();
        let mut job = LoadJob {
            source: Source::Path("quiet.jsonl".into()),
            progress: Arc::default(),
            waker: Arc::default(),
            rx,
            early: None,
            go: None,
        };
        assert!(!job.wait(Duration::from_millis(5)));
        assert!(job.poll().is_none());
        tx.send(LoadEvent::Failed("gone".into())).unwrap();
        drop(tx);
        assert!(job.wait(LONG));
        assert!(matches!(job.poll(), Some(LoadEvent::Failed(m)) if m == "gone"));
        // A loader that stopped without a word is a failure, not a wait forever.
        assert!(job.wait(LONG));
        assert!(matches!(job.poll(), Some(LoadEvent::Failed(m)) if m.contains("stopped")));
    }

    #[test]
    fn a_waker_given_its_window_later_wakes_that_window() {
        let waker = RepaintWaker::default();
        waker.wake();
        let ctx = egui::Context::default();
        let asked = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&asked);
        ctx.set_request_repaint_callback(move |_| {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        waker.set(ctx);
        assert_eq!(asked.load(Ordering::Relaxed), 0, "setting is not waking");
        waker.wake();
        assert_eq!(asked.load(Ordering::Relaxed), 1);
    }
}
