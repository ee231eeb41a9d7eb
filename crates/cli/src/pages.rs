//! Keeping a mapped log within a command's memory budget while its passes read it
//! ([`ResidentBudget`]): a thread looks at the process's resident memory every [`LOOK_EVERY`]
//! and, once it passes the budget (after a release, a quarter of the log more than just after
//! it), lets go of the log's resident pages (`MADV_DONTNEED`: they stay in the page cache and
//! come back on the next read as a minor fault). Where the resident memory cannot be read (no
//! `/proc`), the pages are let go every [`RELEASE_EVERY`] instead.
//!
//! `export` keeps every page through the read and lets them go itself once the meter is done,
//! behind the copy of the lines its later passes read (`EventLog::keep_lines`): its watcher
//! acts only when the read, `check` and the meter together pass the budget (1.45× the log,
//! 1.2× with `--payload`; docs/performance.md, rounds fifteen and seventeen). `check`'s
//! reader lets go of what it has read once past `check`'s budget (1.05×: a packed log, or a
//! file the page cache holds in large folios), and the watcher holds its passes to the same
//! (round twenty-two).

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use surface_engine::EventLog;
use surface_store::{ResidentBudget, resident_kib};

/// How often the resident memory is looked at: the passes fault a log's pages back in at up to
/// 6 MB a millisecond on two cores, so the memory grows by a few MB between two looks.
pub const LOOK_EVERY: Duration = Duration::from_millis(2);

/// How often the pages are let go when the resident memory cannot be read.
pub const RELEASE_EVERY: Duration = Duration::from_millis(10);

/// Runs `work` while a thread keeps `log`'s resident pages within `budget`, then lets them go
/// once more. An owned log (Zstandard, SQLite, a file under the 8 MiB the store maps from: the
/// small sessions of `check DIR`) has nothing to let go: `work` just runs.
pub fn releasing<T>(log: &EventLog, budget: ResidentBudget, work: impl FnOnce() -> T) -> T {
    if !log.text_is_shared() {
        return work();
    }
    let release = || log.release_resident(0..log.text_len());
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

#[cfg(test)]
mod tests {
    use super::*;
    use surface_passes::check_report_of;

    #[test]
    fn an_owned_log_just_runs_the_work() {
        let log = surface_store::read_jsonl(
            b"{\"type\":\"user/message\",\"seq\":1,\"time\":1,\"data\":{}}\n".to_vec(),
            None,
        )
        .unwrap();
        assert!(!log.text_is_shared());
        let budget = ResidentBudget::for_check(log.text_len());
        assert_eq!(releasing(&log, budget, || log.len()), 1);
    }

    /// `check`'s passes read the same however often the pages go under them: a mapped log
    /// checked while the watcher lets go of every page at each look equals the check of a copy.
    #[cfg(target_os = "linux")]
    #[test]
    fn passes_read_the_same_while_their_pages_go() {
        use surface_store::{OnTruncate, ReadLimits};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut text =
            String::from("{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1}\n");
        let mut seq = 0;
        while text.len() < 9 << 20 {
            let op = if seq > 2 && seq % 500 == 0 {
                format!(
                    r#""surfaceOp":{{"op":"replace","start":{},"end":{}}}"#,
                    seq - 2,
                    seq - 1
                )
            } else {
                r#""surfaceOp":"append""#.to_string()
            };
            text.push_str(&format!(
                r#"{{"type":"user/message","seq":{seq},"time":{seq},"data":{{"content":"{}"}},{op}}}"#,
                "m".repeat(200)
            ));
            text.push('\n');
            seq += 1;
        }
        std::fs::write(&path, &text).unwrap();
        assert!(surface_store::install_map_guard(), "the guard is in place");
        let limits = ReadLimits::default();
        let mapped =
            surface_store::open_for_check(&path, None, &limits, OnTruncate::Report).unwrap();
        assert!(mapped.log.text_is_shared(), "mapped");
        let copied = surface_store::open(&path, None).unwrap();
        let always = ResidentBudget {
            kib: 0,
            regrow_kib: 0,
        };
        let (report, surface) = releasing(&mapped.log, always, || check_report_of(&mapped.log));
        let (expected, expected_surface) = check_report_of(&copied.log);
        assert_eq!(report.findings, expected.findings);
        // The replaces shadowed nodes: the passes had a surface to judge.
        assert!(surface.nodes().count() < mapped.log.len());
        assert_eq!(
            surface.nodes().collect::<Vec<_>>(),
            expected_surface.nodes().collect::<Vec<_>>()
        );
    }
}
