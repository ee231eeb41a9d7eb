//! The process's resident memory, and the budget a command keeps a mapped log's resident
//! pages within: past it, the pages are let go (`MADV_DONTNEED`; they stay in the page cache
//! and come back on the next read as a minor fault). `check`'s reader looks at it behind each
//! piece it parses ([`ResidentBudget::for_check`]); the command line's page watcher
//! (`surface-cli`'s `pages.rs`) looks at it while the passes after the read run.

/// The resident memory past which a log's pages are let go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidentBudget {
    /// In KiB, as [`resident_kib`] counts.
    pub kib: u64,
    /// How much of the log must have come back since the last release, in KiB.
    pub regrow_kib: u64,
}

impl ResidentBudget {
    /// Never below this, in KiB: a small log is not worth re-reading.
    const FLOOR_KIB: u64 = 64 * 1024;

    /// The budget of a log of `text_len` bytes: `percent` of the log (never below 64 MiB),
    /// and after a release a quarter of the log must come back before the next.
    pub fn for_log(text_len: usize, percent: u64) -> ResidentBudget {
        let log_kib = text_len as u64 / 1024;
        ResidentBudget {
            kib: (log_kib.saturating_mul(percent) / 100).max(Self::FLOOR_KIB),
            regrow_kib: log_kib / 4,
        }
    }

    /// `check`'s: 1.05× the log. Its passes read every line but the streamed chunks', so its
    /// peak is the file's pages they fault back plus its records (0.3× an unpacked log, 0.85×
    /// a packed one). Where the page cache holds the file in large folios (a file read back
    /// from disk: one fault maps 2 MiB), a pass that reads one line brings back every chunk
    /// page around it, and an unpacked log peaks at 1.24–1.28× the file without a budget; a
    /// packed log at 1.9× in any case. Past 1.05× the pages go, and the passes fault back
    /// only what they read next: 1.11–1.12× unpacked, 1.21–1.24× packed, for 2–3 % more time
    /// (docs/performance.md, round twenty-two). A log whose page cache came from writes (small
    /// folios) stays at 0.91× and never reaches it.
    pub fn for_check(text_len: usize) -> ResidentBudget {
        Self::for_log(text_len, 105)
    }

    /// The resident memory past which the pages are let go, `after_release` KiB resident just
    /// after they last were: past the budget, and past that by a quarter of the log — so a
    /// command whose own structures outgrow the budget lets go only of pages that came back,
    /// not at every look.
    pub fn past(&self, after_release: u64) -> u64 {
        self.kib.max(after_release.saturating_add(self.regrow_kib))
    }

    /// True when the process's resident memory is known and past the budget itself.
    pub fn is_passed(&self) -> bool {
        resident_kib().is_some_and(|kib| kib > self.kib)
    }
}

/// The process's resident memory in KiB, where it can be told: the second figure of
/// `/proc/self/statm` (pages), which the kernel reads from counters — `status`, which holds the
/// same figure as `VmRSS`, walks more of the process and costs a command that looks every 2 ms
/// about 2–3 % of its time (`check big.jsonl`, round twenty-two).
#[cfg(unix)]
pub fn resident_kib() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let page = super::limits::page_bytes()?;
    Some(resident_pages(&statm)?.checked_mul(page)? / 1024)
}

/// The process's resident memory: not told off Unix.
#[cfg(not(unix))]
pub fn resident_kib() -> Option<u64> {
    None
}

/// The resident page count of a `/proc/<pid>/statm` text (its second figure).
fn resident_pages(statm: &str) -> Option<u64> {
    statm.split_ascii_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_past_the_log_and_never_tiny() {
        let budget = ResidentBudget::for_log(1000 * 1024 * 1024, 145);
        assert_eq!(budget.kib, 1450 * 1024);
        // Structures of 500 MiB after a release: the budget rules.
        assert_eq!(budget.past(500 * 1024), 1450 * 1024);
        // Structures past the budget: a quarter of the log must come back first.
        assert_eq!(budget.past(1400 * 1024), 1650 * 1024);
        assert_eq!(
            ResidentBudget::for_check(1000 * 1024 * 1024).kib,
            1050 * 1024
        );
        let tiny = ResidentBudget::for_log(10, 145);
        assert_eq!((tiny.kib, tiny.regrow_kib), (64 * 1024, 0));
    }

    #[test]
    fn the_resident_memory_is_read_from_the_statm_text() {
        assert_eq!(
            resident_pages("11842 3275 1807 1224 0 1712 0\n"),
            Some(3275)
        );
        assert_eq!(resident_pages("11842\n"), None);
        assert_eq!(resident_pages("11842 x 1807\n"), None);
        if cfg!(target_os = "linux") {
            assert!(resident_kib().is_some_and(|kib| kib > 0));
            // No process of these tests holds a petabyte.
            assert!(!ResidentBudget::for_log(1 << 50, 100).is_passed());
        }
    }
}
