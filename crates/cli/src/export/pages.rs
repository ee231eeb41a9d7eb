//! Keeping a mapped log out of the export's resident memory while its passes read it: the log
//! is mapped as the desktop viewer maps it (pages faulted in as read, `store::open_for_viewer`),
//! and while a session is analysed and written a thread lets go of its resident pages every
//! [`RELEASE_EVERY`] (`MADV_DONTNEED`: they stay in the page cache and come back on the next
//! read as a minor fault). So the export holds only the pages it is reading now beside its own
//! structures, instead of the whole file: on the 1M-event log (220 MB) its peak resident memory
//! goes from 1.6× the file to below `check`'s 1.3× (docs/export.md).

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use surface_engine::EventLog;

/// How often the pages are let go: at the pace the passes read (about 1 GB/s), some 10 MB
/// come back in between.
pub const RELEASE_EVERY: Duration = Duration::from_millis(10);

/// Runs `work` while a thread releases `log`'s resident pages at a steady pace, then once
/// more. An owned log (Zstandard, SQLite, a small file) has nothing to let go: `work` just runs.
pub fn releasing<T>(log: &EventLog, work: impl FnOnce() -> T) -> T {
    if !log.text_is_shared() {
        return work();
    }
    let release = || log.release_resident(0..log.text_len());
    std::thread::scope(|scope| {
        let (stop, stopped) = channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-pages".into())
            .spawn_scoped(scope, move || {
                while stopped.recv_timeout(RELEASE_EVERY) == Err(RecvTimeoutError::Timeout) {
                    release();
                }
            });
        let out = work();
        drop(stop);
        if let Ok(thread) = spawned {
            let _ = thread.join();
        }
        release();
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_log_just_runs_the_work() {
        let log = surface_store::read_jsonl(
            b"{\"type\":\"user/message\",\"seq\":1,\"time\":1,\"data\":{}}\n".to_vec(),
            None,
        )
        .unwrap();
        assert!(!log.text_is_shared());
        assert_eq!(releasing(&log, || log.len()), 1);
    }
}
