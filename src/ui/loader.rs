//! Background work that must never block the UI thread: loading a session file (with progress
//! and cancellation; its findings and token meter computed side by side) and the native file
//! and folder dialogs (the folder discovery itself is `browser_job.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::engine::{EventLog, Finding, Meter, Surface, check};
use crate::store::{self, Format, LoadProgress, SessionInfo};

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

/// Everything the loader thread computes, ready for the UI to own.
#[derive(Debug)]
pub struct Loaded {
    /// Where it came from.
    pub source: Source,
    /// Detected format.
    pub format: Format,
    /// The session that was read.
    pub info: SessionInfo,
    /// All sessions of the file (more than one only for SQLite).
    pub sessions: Vec<SessionInfo>,
    /// The log.
    pub log: EventLog,
    /// The live follower, when the log was opened with Follow on (JSONL, zstd or SQLite).
    pub follower: Option<store::Follower>,
    /// The surface, processed to the end (cursor at the end).
    pub surface: Surface,
    /// Findings of `check`.
    pub findings: Vec<Finding>,
    /// The harness's token meter after every event.
    pub meter: Meter,
}

/// Reads and analyses a source on the calling thread. `None` for `progress` means no
/// cancellation. Errors are one human sentence.
pub fn load_blocking(
    source: &Source,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    follow: bool,
) -> Result<Loaded, String> {
    let mut follower = None;
    let (format, info, sessions, log) = match source {
        Source::Path(path) if follow => {
            let (opened, f) = store::open_following(path, session).map_err(|e| e.to_string())?;
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
    super::ready_report::note("log read");
    let surface = Surface::at_end(&log);
    // The findings and the token meter read the log independently: side by side.
    let (findings, meter) = std::thread::scope(|scope| {
        let meter = scope.spawn(|| crate::cli::meter_of(&log, &surface));
        let findings = check(&log, &surface);
        let meter = meter
            .join()
            .unwrap_or_else(|_| Meter::build(&log, &surface));
        (findings, meter)
    });
    super::ready_report::note("findings and meter computed");
    if progress.is_some_and(LoadProgress::is_cancelled) {
        return Err(format!("loading {} was cancelled", source.label()));
    }
    Ok(Loaded {
        source: source.clone(),
        format,
        info,
        sessions,
        log,
        follower,
        surface,
        findings,
        meter,
    })
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
    let opened = store::open_with_progress(path, session, progress).map_err(|e| e.to_string())?;
    let sessions = if sessions.is_empty() {
        vec![opened.session.clone()]
    } else {
        sessions
    };
    Ok((opened.format, opened.session, sessions, opened.log))
}

/// A load running on a worker thread.
pub struct LoadJob {
    /// What is being loaded.
    pub source: Source,
    /// Shared progress and cancel flag.
    pub progress: Arc<LoadProgress>,
    rx: Receiver<Result<Loaded, String>>,
}

impl LoadJob {
    /// Starts loading on a new thread; `ctx` is asked to repaint when the result is ready.
    pub fn spawn(
        source: Source,
        session: Option<String>,
        ctx: Option<egui::Context>,
        follow: bool,
    ) -> Self {
        let progress = Arc::new(LoadProgress::default());
        let (tx, rx) = channel();
        let worker_progress = Arc::clone(&progress);
        let worker_source = source.clone();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-load".into())
            .spawn(move || {
                let result = load_blocking(
                    &worker_source,
                    session.as_deref(),
                    Some(&worker_progress),
                    follow,
                );
                // The receiver may be gone (a newer load replaced this one); that is fine.
                let _ = tx.send(result);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        if let Err(e) = spawned {
            let (tx, err_rx) = channel();
            let _ = tx.send(Err(format!("cannot start the loader thread: {e}")));
            return LoadJob {
                source,
                progress,
                rx: err_rx,
            };
        }
        LoadJob {
            source,
            progress,
            rx,
        }
    }

    /// The result, once the thread is done.
    pub fn poll(&self) -> Option<Result<Loaded, String>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                Some(Err("the loader thread stopped unexpectedly".into()))
            }
        }
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
                    DialogPurpose::Open => dialog
                        .add_filter("Session logs", &["jsonl", "zstd", "zst", "sqlite", "db"])
                        .add_filter("All files", &["*"])
                        .pick_file(),
                    DialogPurpose::Save | DialogPurpose::OpenFolder => dialog.save_file(),
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
    "/assets/sample.session.jsonl"
));

/// The bundled sample: the file in `assets/` next to the crate when it exists at run time
/// (so edits show without a rebuild), else the copy compiled into the binary.
pub fn sample_source() -> Option<Source> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/sample.session.jsonl"
    ));
    if path.is_file() {
        return Some(Source::Path(path));
    }
    Some(Source::Embedded {
        name: "sample.session.jsonl (built in)",
        bytes: EMBEDDED_SAMPLE,
    })
}
