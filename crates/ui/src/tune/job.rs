//! A Tune view's sweep on a worker thread (std::thread + mpsc, like the Policy tab's
//! replays): the open log's settings weighed, or a folder's sessions, then summed by
//! surface-reports into the [`Sweep`] the command line prints. Progress is read from the
//! worker's counters every frame (settings for a log, sessions for a folder); Cancel asks the
//! worker to start no further setting and the result is dropped. Tests may hold a job before
//! it starts (to cancel it deterministically) and wait for it on the UI thread.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};

use surface_analysis::cost::PriceTable;
use surface_analysis::policy::tune::{Constraints, Grid, Objective};
use surface_engine::EventLog;
use surface_passes::{TuneWatch, tune_session_watched};
use surface_reports::tune::{Plan, SessionLine, Sweep, Weighed, sum};

use crate::tune::folder::{FolderProgress, weigh_folder};

/// What a sweep weighs.
pub enum TuneSource {
    /// The open log, named by its file.
    Log {
        /// The log.
        log: Arc<EventLog>,
        /// Its file (the session line's).
        file: PathBuf,
    },
    /// Every session under a folder.
    Folder(PathBuf),
}

/// A sweep to run: what, over which grid, ranked how, priced by what.
pub struct TuneRequest {
    /// The log or the folder.
    pub source: TuneSource,
    /// The grid.
    pub grid: Grid,
    /// The objective.
    pub objective: Objective,
    /// The recommendation's constraints.
    pub constraints: Constraints,
    /// The price table (`None`: tokens only).
    pub prices: Option<Arc<PriceTable>>,
}

/// How far a running sweep is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Units done.
    pub done: usize,
    /// Units in all (`None`: a folder still being walked).
    pub total: Option<usize>,
    /// "settings" or "sessions".
    pub unit: &'static str,
}

/// A sweep running on its worker.
pub struct TuneJob {
    watch: Arc<TuneWatch>,
    folder: Option<Arc<FolderProgress>>,
    settings: usize,
    rx: Receiver<Result<Sweep, String>>,
    gate: Option<Sender<()>>,
}

impl TuneJob {
    /// Starts `request` on a worker (`held`: it waits for [`TuneJob::release`] or a cancel
    /// before it starts); `ctx` is woken when it ends. `Err`: no thread could be started.
    pub fn spawn(
        request: TuneRequest,
        ctx: Option<egui::Context>,
        held: bool,
    ) -> Result<TuneJob, String> {
        let watch = Arc::new(TuneWatch::default());
        let folder = matches!(request.source, TuneSource::Folder(_))
            .then(|| Arc::new(FolderProgress::default()));
        let settings = request.grid.expand().settings.len();
        let (tx, rx) = channel();
        let (gate, gate_rx) = if held {
            let (g, r) = channel::<()>();
            (Some(g), Some(r))
        } else {
            (None, None)
        };
        let (worker_watch, worker_folder) = (Arc::clone(&watch), folder.clone());
        std::thread::Builder::new()
            .name("surface-viewer-tune".into())
            .spawn(move || {
                if let Some(gate) = gate_rx {
                    // A release, or the job dropped or cancelled.
                    let _ = gate.recv();
                }
                let swept = run(&request, &worker_watch, worker_folder.as_deref());
                let _ = tx.send(swept);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            })
            .map_err(|e| format!("cannot start the tune thread: {e}"))?;
        Ok(TuneJob {
            watch,
            folder,
            settings,
            rx,
            gate,
        })
    }

    /// How far it is.
    pub fn progress(&self) -> Progress {
        match &self.folder {
            Some(f) => Progress {
                done: f.done.load(Ordering::Relaxed),
                total: f
                    .listed
                    .load(Ordering::Relaxed)
                    .then(|| f.total.load(Ordering::Relaxed)),
                unit: "sessions",
            },
            None => Progress {
                done: self.watch.done(),
                total: Some(self.settings),
                unit: "settings",
            },
        }
    }

    /// Asks the worker to stop (and lets a held job go, to stop at once).
    pub fn cancel(&mut self) {
        self.watch.cancel();
        self.gate = None;
    }

    /// True once cancelled.
    pub fn cancelled(&self) -> bool {
        self.watch.cancelled()
    }

    /// Lets a held job start.
    pub fn release(&mut self) {
        if let Some(gate) = self.gate.take() {
            let _ = gate.send(());
        }
    }

    /// The result once the worker ended (`wait`: block for it, unless the job is held).
    pub fn poll(&self, wait: bool) -> Option<Result<Sweep, String>> {
        if wait && self.gate.is_none() {
            return match self.rx.recv_timeout(std::time::Duration::from_secs(600)) {
                Ok(r) => Some(r),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Err(ended_early())),
            };
        }
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(ended_early())),
        }
    }
}

impl Drop for TuneJob {
    fn drop(&mut self) {
        self.cancel();
    }
}

fn ended_early() -> String {
    "the tune thread ended without a result".to_string()
}

/// The sweep of `request` (what the worker runs).
fn run(
    request: &TuneRequest,
    watch: &TuneWatch,
    folder: Option<&FolderProgress>,
) -> Result<Sweep, String> {
    let settings = request.grid.expand().settings;
    let prices = request.prices.as_deref();
    let weighed = match (&request.source, folder) {
        (TuneSource::Log { log, file }, _) => vec![Weighed {
            line: SessionLine {
                file: file.clone(),
                session: None,
                error: None,
                skipped: surface_engine::skipped(log),
            },
            tuned: Some(tune_session_watched(log, &settings, prices, watch)),
            skipped: false,
        }],
        (TuneSource::Folder(root), Some(progress)) => {
            weigh_folder(root, &settings, prices, (watch, progress))?
        }
        (TuneSource::Folder(_), None) => return Err(ended_early()),
    };
    let plan = Plan {
        grid: &request.grid,
        objective: request.objective,
        constraints: &request.constraints,
        currency: request.prices.as_ref().map(|p| p.currency.clone()),
    };
    Ok(sum(&plan, &weighed))
}
