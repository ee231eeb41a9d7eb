//! A folder's sweep on the worker, as `tune DIR` makes it: the sessions found under it (the
//! walk every folder report shares), each read once and weighed under every setting, largest
//! first on every core; the files that could not be read and the special files skipped get
//! their line, and the lines are sorted by file and session. Progress counts the sessions; the
//! watch's cancel stops both the sessions not started and the settings not started.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use surface_analysis::cost::PriceTable;
use surface_analysis::policy::PolicySettings;
use surface_passes::{TuneWatch, tune_session_watched};
use surface_reports::tune::{SessionLine, Weighed};
use surface_store::{Options, ReadLimits, SessionEntry, UnreadableFile, for_each_parallel, open};

/// How far a folder's sweep is: sessions found (once listed) and weighed.
#[derive(Debug, Default)]
pub struct FolderProgress {
    /// The walk is over and `total` is known.
    pub listed: AtomicBool,
    /// Sessions to weigh.
    pub total: AtomicUsize,
    /// Sessions weighed (or that could not be read).
    pub done: AtomicUsize,
}

/// Every session under `root` weighed under `settings`; `Err` when the folder cannot be read
/// or holds no session file.
pub fn weigh_folder(
    root: &Path,
    settings: &[PolicySettings],
    prices: Option<&PriceTable>,
    (watch, progress): (&TuneWatch, &FolderProgress),
) -> Result<Vec<Weighed>, String> {
    let threads = surface_store::default_threads();
    let found =
        surface_reports::folder::discover(root, None, &ReadLimits::default(), threads, None)
            .map_err(|e| e.to_string())?;
    progress
        .total
        .store(found.sessions.len(), Ordering::Relaxed);
    progress.listed.store(true, Ordering::Relaxed);
    let not_read = |u: &UnreadableFile, skipped: bool| Weighed {
        line: SessionLine {
            file: u.file.clone(),
            session: None,
            error: Some(u.error.clone()),
            skipped: Vec::new(),
        },
        tuned: None,
        skipped,
    };
    let mut weighed: Vec<Weighed> = found
        .unreadable
        .iter()
        .map(|u| not_read(u, false))
        .chain(found.special.iter().map(|u| not_read(u, true)))
        .collect();
    // The long sessions start early and the workers finish together (as `tune DIR`).
    let mut jobs = found.sessions.clone();
    jobs.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.file.cmp(&b.file)));
    for_each_parallel(
        jobs,
        threads,
        watch.cancel_flag(),
        |entry| weigh_entry(&entry, settings, prices, watch),
        |w| {
            weighed.push(w);
            progress.done.fetch_add(1, Ordering::Relaxed);
        },
    );
    weighed.sort_by(|a, b| (&a.line.file, &a.line.session).cmp(&(&b.line.file, &b.line.session)));
    Ok(weighed)
}

/// One session read and weighed, or the error that kept it from being read.
fn weigh_entry(
    entry: &SessionEntry,
    settings: &[PolicySettings],
    prices: Option<&PriceTable>,
    watch: &TuneWatch,
) -> Weighed {
    let options = Options {
        session: entry.session_arg(),
        ..Options::default()
    };
    let line = |error: Option<String>, skipped| SessionLine {
        file: entry.file.clone(),
        session: entry.session_arg().map(str::to_string),
        error,
        skipped,
    };
    match open(&entry.file, &options) {
        Ok(opened) => Weighed {
            line: line(None, surface_engine::skipped(&opened.log)),
            tuned: Some(tune_session_watched(&opened.log, settings, prices, watch)),
            skipped: false,
        },
        Err(e) => Weighed {
            line: line(Some(e.to_string()), Vec::new()),
            tuned: None,
            skipped: false,
        },
    }
}
