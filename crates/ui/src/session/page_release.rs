//! Keeping a mapped log out of the viewer's own memory while background work reads all of it.
//!
//! The viewer maps a large JSONL file instead of copying it (`store::open_for_viewer`). A pass
//! that reads every line — the findings, the meter, the compaction audit, a search — would
//! fault the whole file into the process's resident set, next to the index, and hold it there.
//! While such a pass runs, [`ReleaseWhileBusy`] tells the mapping every
//! [`RELEASE_EVERY`] to let go of its pages (`MADV_DONTNEED`): they stay in the page
//! cache and come back on the next read (a minor fault), so the pass reads the same bytes and
//! the window holds only what it is reading now. Owned logs (live follow, Zstandard, SQLite,
//! small files) have nothing to let go: no thread is started for them.
//!
//! Measured on the 1M-event log (220 MB) under Xvfb: the viewer's peak resident memory once
//! everything landed went from 2.2–2.4× the file (owned copy) to 1.35–1.44×, and the time
//! until everything is on screen did not grow (README, Performance). Without the releases
//! during the passes, the mapping alone peaked at 2.2–2.3×: the findings and the meter read
//! nearly every page.

use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};

use surface_engine::EventLog;

/// How often a busy mapping lets go of its pages: at the pace the passes read (about 1 GB/s
/// over both cores), 10 ms lets some 10 MB come back in between.
const RELEASE_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

/// While alive, releases the resident pages of a mapped log at a steady pace; on drop, once
/// more and stops.
#[derive(Debug)]
pub struct ReleaseWhileBusy {
    /// Dropping it ends the releasing thread.
    _stop: Option<Sender<()>>,
}

impl ReleaseWhileBusy {
    /// Starts releasing `log`'s pages, when its text is a mapping; otherwise does nothing.
    pub fn start(log: &Arc<EventLog>) -> Self {
        if !log.text_is_shared() {
            return ReleaseWhileBusy { _stop: None };
        }
        let (stop, stopped) = channel::<()>();
        let log = Arc::clone(log);
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-pages".into())
            .spawn(move || {
                loop {
                    let wait = stopped.recv_timeout(RELEASE_EVERY);
                    release_all(&log);
                    if wait != Err(RecvTimeoutError::Timeout) {
                        return;
                    }
                }
            });
        ReleaseWhileBusy {
            _stop: spawned.ok().map(|_| stop),
        }
    }
}

/// Lets go of every resident page of `log`'s text (nothing for owned text).
pub fn release_all(log: &EventLog) {
    log.release_resident(0..log.text_len());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_log_starts_no_thread_and_reads_the_same() {
        let log = Arc::new(
            surface_store::read_jsonl(
                b"{\"type\":\"user/message\",\"seq\":1,\"time\":1,\"data\":{}}\n".to_vec(),
                None,
            )
            .unwrap(),
        );
        let busy = ReleaseWhileBusy::start(&log);
        assert!(busy._stop.is_none());
        release_all(&log);
        assert_eq!(log.len(), 1);
    }
}
