//! The discovery behind the sessions browser, off the UI thread: walk and cheap pass first
//! (rows appear file by file), then the full figures of every session on all cores, smallest
//! sessions first so that most rows fill in early; each worker reads a session once for its
//! figures and its fleet figures (`fleet`: the policy verified, the ledger priced). Cancelled
//! when the browser goes away (another folder opened).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::cost::PriceTable;
use surface_engine::{Surface, check};
use surface_store::{
    Options, Probe, SessionEntry, SessionFigures, UnreadableFile, default_threads, figures_of,
    find_sessions, for_each_parallel, open,
};

use crate::browser::fleet::{FleetFigures, fleet_of};

/// What the discovery reports, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum DiscoveryMessage {
    /// Sessions of one file, from the cheap pass (rows are numbered in arrival order).
    Found(Vec<SessionEntry>),
    /// A session file that cannot be read.
    Unreadable(UnreadableFile),
    /// The cheap pass is over: what was skipped, how many files were looked at.
    Listed {
        /// Skipped folders, symlink loops, special files.
        notes: Vec<String>,
        /// Regular files looked at.
        files_seen: usize,
    },
    /// The full figures of row `row`.
    Figures {
        /// Row number (arrival order of [`DiscoveryMessage::Found`] entries).
        row: usize,
        /// The figures, or why the session could not be read.
        figures: Result<SessionFigures, String>,
        /// Its fleet figures (`None` when it could not be read); boxed, as the largest variant.
        fleet: Option<Box<FleetFigures>>,
    },
    /// Everything is read.
    Done,
    /// The folder itself cannot be read.
    Failed(String),
}

/// Runs a whole discovery on the calling thread, reporting through `send`.
pub fn run_discovery(
    root: &Path,
    prices: Option<&PriceTable>,
    threads: usize,
    cancel: &AtomicBool,
    send: &mut dyn FnMut(DiscoveryMessage),
) {
    let mut rows: Vec<SessionEntry> = Vec::new();
    let found = find_sessions(root, threads, cancel, |path, probe| match probe {
        Probe::Sessions(list) => {
            rows.extend(list.iter().cloned());
            send(DiscoveryMessage::Found(list.clone()));
        }
        Probe::Unreadable(error) => send(DiscoveryMessage::Unreadable(UnreadableFile {
            file: path.to_path_buf(),
            error: error.clone(),
        })),
        Probe::NotASession | Probe::Skipped(_) => {}
    });
    let found = match found {
        Ok(f) => f,
        Err(e) => {
            send(DiscoveryMessage::Failed(e.to_string()));
            return;
        }
    };
    send(DiscoveryMessage::Listed {
        notes: found.notes,
        files_seen: found.files_seen,
    });
    let mut jobs: Vec<(usize, SessionEntry)> = rows.into_iter().enumerate().collect();
    jobs.sort_by_key(|(i, e)| (e.size, *i));
    for_each_parallel(
        jobs,
        threads,
        cancel,
        |(row, entry)| {
            let (figures, fleet) = read_session(&entry, prices);
            (row, figures, fleet)
        },
        |(row, figures, fleet)| {
            send(DiscoveryMessage::Figures {
                row,
                figures,
                fleet: fleet.map(Box::new),
            })
        },
    );
    if !cancel.load(Ordering::Relaxed) {
        send(DiscoveryMessage::Done);
    }
}

/// Reads one session once: its figures (`check` included) and its fleet figures.
fn read_session(
    entry: &SessionEntry,
    prices: Option<&PriceTable>,
) -> (Result<SessionFigures, String>, Option<FleetFigures>) {
    let options = Options {
        session: entry.session_arg(),
        ..Options::default()
    };
    let opened = match open(&entry.file, &options) {
        Ok(o) => o,
        Err(e) => return (Err(e.to_string()), None),
    };
    let surface = Surface::at_end(&opened.log);
    let findings = check(&opened.log, &surface);
    let figures = figures_of(&opened.log, &surface, &findings);
    (Ok(figures), Some(fleet_of(&opened.log, prices)))
}

/// A discovery running on a background thread.
pub struct DiscoveryJob {
    cancel: Arc<AtomicBool>,
    rx: Receiver<DiscoveryMessage>,
}

impl DiscoveryJob {
    /// Starts discovering `root`; `ctx` is asked to repaint whenever there is news.
    /// `prices` price the cost column (`None`: tokens only).
    pub fn spawn(
        root: PathBuf,
        prices: Option<Arc<PriceTable>>,
        ctx: Option<egui::Context>,
    ) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let worker_cancel = Arc::clone(&cancel);
        let worker_root = root;
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-discover".into())
            .spawn(move || {
                let mut send = |m: DiscoveryMessage| {
                    if tx.send(m).is_err() {
                        // The browser is gone.
                        worker_cancel.store(true, Ordering::Relaxed);
                    }
                    if let Some(ctx) = &ctx {
                        ctx.request_repaint();
                    }
                };
                run_discovery(
                    &worker_root,
                    prices.as_deref(),
                    default_threads(),
                    &worker_cancel,
                    &mut send,
                );
            });
        if let Err(e) = spawned {
            let (tx, err_rx) = channel();
            let _ = tx.send(DiscoveryMessage::Failed(format!(
                "cannot start the discovery thread: {e}"
            )));
            return DiscoveryJob { cancel, rx: err_rx };
        }
        DiscoveryJob { cancel, rx }
    }

    /// Every message that arrived since the last call (at most `limit`, so that a frame stays
    /// short however much arrived), and whether the job is over.
    pub fn drain(&self, limit: usize) -> (Vec<DiscoveryMessage>, bool) {
        let mut out = Vec::new();
        while out.len() < limit {
            match self.rx.try_recv() {
                Ok(m) => out.push(m),
                Err(TryRecvError::Empty) => return (out, false),
                Err(TryRecvError::Disconnected) => return (out, true),
            }
        }
        (out, false)
    }

    /// Asks the workers to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for DiscoveryJob {
    fn drop(&mut self) {
        self.cancel();
    }
}
