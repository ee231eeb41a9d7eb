//! Keeping a mapped log within the export's memory budget while its passes read it: the log is
//! mapped with every page kept through the read (`store::open_staged`), and while a session is
//! analysed and written a thread looks at the process's resident memory every [`LOOK_EVERY`]
//! and, once it passes the [`Budget`] (1.45× the log, 1.2× with `--payload`, never below 64
//! MiB; after a release, a quarter of the log more than just after it), lets go of the log's
//! resident pages (`MADV_DONTNEED`: they stay in the page cache and come back on the next read
//! as a minor fault). `export/session.rs` lets them go itself once the meter is done, behind
//! the copy of the lines the later passes read (`EventLog::keep_lines`): so the watcher acts
//! only when the read, `check` and the meter together pass the budget (a log of many small
//! events), and the peak stays below 1.5× the file (docs/performance.md, rounds fifteen and
//! seventeen). Where the resident memory cannot be read (no `/proc`), the pages are let go
//! every [`RELEASE_EVERY`] instead.

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use surface_engine::EventLog;

/// How often the resident memory is looked at: the passes fault a log's pages back in at up to
/// 6 MB a millisecond on two cores, so the memory grows by a few MB between two looks.
pub const LOOK_EVERY: Duration = Duration::from_millis(2);

/// How often the pages are let go when the resident memory cannot be read.
pub const RELEASE_EVERY: Duration = Duration::from_millis(10);

/// The resident memory past which a log's pages are let go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// In KiB, as `/proc/self/status` counts.
    pub kib: u64,
    /// How much of the log must have come back since the last release, in KiB.
    pub regrow_kib: u64,
}

impl Budget {
    /// Never below this, in KiB: a small log is not worth re-reading.
    const FLOOR_KIB: u64 = 64 * 1024;

    /// The budget of an export reading a log of `text_len` bytes: 1.45× the log, under §13's
    /// 1.5× by what the passes fault in or allocate between two looks — or 1.2× when the passes
    /// after the meter read `every_line` (`--payload`): they fault every page back and hold
    /// their own copies of the lines, so the pages are let go sooner.
    pub fn for_log(text_len: usize, every_line: bool) -> Budget {
        let log_kib = text_len as u64 / 1024;
        let percent = if every_line { 120 } else { 145 };
        Budget {
            kib: (log_kib.saturating_mul(percent) / 100).max(Self::FLOOR_KIB),
            regrow_kib: log_kib / 4,
        }
    }

    /// The resident memory past which the pages are let go, `after_release` KiB resident just
    /// after they last were: past the budget, and past that by a quarter of the log — so an
    /// export whose own structures outgrow the budget (a packed log, many events in few bytes)
    /// lets go only of pages that came back, not at every look.
    pub fn past(&self, after_release: u64) -> u64 {
        self.kib.max(after_release.saturating_add(self.regrow_kib))
    }
}

/// Runs `work` while a thread keeps `log`'s resident pages within the [`Budget`], then lets them
/// go once more. An owned log (Zstandard, SQLite, a small file) has nothing to let go: `work`
/// just runs.
/// `every_line`: the passes read every line of the log ([`Budget::for_log`]).
pub fn releasing<T>(log: &EventLog, every_line: bool, work: impl FnOnce() -> T) -> T {
    if !log.text_is_shared() {
        return work();
    }
    let release = || log.release_resident(0..log.text_len());
    let budget = Budget::for_log(log.text_len(), every_line);
    std::thread::scope(|scope| {
        let (stop, stopped) = channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-pages".into())
            .spawn_scoped(scope, move || {
                // The budget holds from the start; the regrowth rule only after a release.
                let mut past = resident_kib().map(|_| budget.kib);
                let every = if past.is_some() {
                    LOOK_EVERY
                } else {
                    RELEASE_EVERY
                };
                while stopped.recv_timeout(every) == Err(RecvTimeoutError::Timeout) {
                    let now = resident_kib();
                    if let (Some(limit), Some(kib)) = (past, now)
                        && kib <= limit
                    {
                        continue;
                    }
                    release();
                    past = resident_kib().map(|kib| budget.past(kib));
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

/// The process's resident memory in KiB (`VmRSS` of `/proc/self/status`), where there is one.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    vm_rss_kib(&status)
}

/// The `VmRSS:` figure of a `/proc/<pid>/status` text, in KiB.
fn vm_rss_kib(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    line.trim().strip_suffix("kB")?.trim().parse().ok()
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
        assert_eq!(releasing(&log, false, || log.len()), 1);
    }

    #[test]
    fn the_budget_is_past_the_log_and_never_tiny() {
        let budget = Budget::for_log(1000 * 1024 * 1024, false);
        assert_eq!(budget.kib, 1450 * 1024);
        // Structures of 500 MiB after a release: the budget rules.
        assert_eq!(budget.past(500 * 1024), 1450 * 1024);
        // Structures past the budget: a quarter of the log must come back first.
        assert_eq!(budget.past(1400 * 1024), 1650 * 1024);
        assert_eq!(Budget::for_log(1000 * 1024 * 1024, true).kib, 1200 * 1024);
        let tiny = Budget::for_log(10, false);
        assert_eq!((tiny.kib, tiny.regrow_kib), (64 * 1024, 0));
    }

    #[test]
    fn the_resident_memory_is_read_from_the_status_text() {
        let status = "Name:\tsv\nVmHWM:\t  474108 kB\nVmRSS:\t  401000 kB\nThreads:\t3\n";
        assert_eq!(vm_rss_kib(status), Some(401_000));
        assert_eq!(vm_rss_kib("Name:\tsv\n"), None);
        assert_eq!(vm_rss_kib("VmRSS:\t12 MB\n"), None);
        if cfg!(target_os = "linux") {
            assert!(resident_kib().is_some_and(|kib| kib > 0));
        }
    }
}
