//! A whole file mapped read-only into memory (Linux): its bytes become the log's text arena
//! with no copy and no fresh memory to fault in.
//!
//! Reading a 220 MB log into a fresh buffer costs the kernel zeroing 220 MB of new pages and
//! copying from the page cache, and then the machine holds the file twice. A mapping
//! (`PROT_READ`, `MAP_PRIVATE`) shares the page cache's pages. The mapping is read-only: the
//! viewer never writes to the file. Two uses ([`MapFor`]):
//!
//! - **the command line** (`store::open_mapped`) keeps every page until it exits; the pages
//!   are faulted in by the reader's workers as they parse (the kernel maps a few pages around
//!   each fault), in parallel — `MAP_POPULATE` filled the page tables on the opening thread
//!   first, and two files opened at once (`compare`) populated at half speed each; when it is
//!   dropped, a large mapping lets go of its pages on every core before the unmap (which
//!   would clear them on one);
//! - **the desktop viewer** (`store::open_for_viewer`) maps lazily and lets go of pages it has
//!   read ([`MappedFile::release_resident`], `MADV_DONTNEED`): they stay in the page cache and
//!   come back on the next read, so the window's own memory holds the log's index and the
//!   pages it shows, not a second copy of the file.
//!
//! A file truncated by another program while mapped would raise SIGBUS on the next read past
//! its new end; every mapping is registered with the guard of [`super::map_guard`] first (no
//! guard installed, no mapping: the file is read): a command on one file then names the file
//! and exits 2; a command on a folder and the viewer have the mapping turn into zero pages,
//! marked lost — `check DIR` reports that file, the window reopens it.

use std::fs::File;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::io::AsRawFd as _;
use std::path::Path;
use std::ptr::NonNull;

use super::map_for::{MapFor, OnTruncate};
use super::map_guard::{Guard, OnShrink};

/// Called with the path of every file just mapped, before anything is read from it: a seam
/// for tests that must change a file under its mapping at a known moment (`check DIR` with a
/// file truncated mid-run). `None`, nothing, in every program.
static AFTER_MAP: std::sync::RwLock<Option<fn(&Path)>> = std::sync::RwLock::new(None);

/// Sets (or clears) the function called with each file's path right after it is mapped and
/// guarded, before it is read. For tests only: it lets one truncate a file under its mapping
/// at a known moment.
#[doc(hidden)]
pub fn set_after_map_hook(hook: Option<fn(&Path)>) {
    if let Ok(mut slot) = AFTER_MAP.write() {
        *slot = hook;
    }
}

/// A read-only, private mapping of a whole file, guarded against truncation; unmapped on drop.
#[derive(Debug)]
pub struct MappedFile {
    ptr: NonNull<u8>,
    len: usize,
    /// Who it is for: the plain command line's mapping never lets go of pages before the end.
    use_: MapFor,
    /// The guard's slot, released in `drop` before the unmap.
    guard: Option<Guard>,
    /// The path's bytes, named by the guard's message; freed after the guard is released.
    _path: Box<[u8]>,
}

// SAFETY: the mapping is read-only and stays valid until `drop`; any thread may read it.
unsafe impl Send for MappedFile {}
// SAFETY: as above: shared access only reads.
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps the first `len` bytes of `file` (opened read-only from `path`) for `use_`. `None`
    /// when `len` is 0, the kernel refuses the mapping, or the guard cannot take it (then read
    /// instead).
    pub fn map(file: &File, len: usize, path: &Path, use_: MapFor) -> Option<MappedFile> {
        if len == 0 {
            return None;
        }
        // SAFETY: a fresh mapping chosen by the kernel (no fixed address), read-only and
        // private, of a descriptor we hold open for the call.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                // Both uses map alike (no `MAP_POPULATE`: see the module's documentation).
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return None;
        }
        let ptr = NonNull::new(addr.cast::<u8>())?;
        let path: Box<[u8]> = path.as_os_str().as_bytes().into();
        let start = ptr.as_ptr() as usize;
        let on_shrink = match use_ {
            MapFor::CommandLine(OnTruncate::Exit)
            | MapFor::Staged(OnTruncate::Exit)
            | MapFor::Check(OnTruncate::Exit) => OnShrink::Exit,
            MapFor::CommandLine(OnTruncate::Report)
            | MapFor::Staged(OnTruncate::Report)
            | MapFor::Check(OnTruncate::Report)
            | MapFor::Viewer => OnShrink::ZeroAndMark,
        };
        let Some(guard) = Guard::register(start..start + len, &path, on_shrink) else {
            // SAFETY: the mapping was just made with this address and length.
            unsafe { libc::munmap(addr, len) };
            return None;
        };
        if let Ok(hook) = AFTER_MAP.read()
            && let Some(hook) = *hook
        {
            hook(Path::new(std::ffi::OsStr::from_bytes(&path)));
        }
        Some(MappedFile {
            ptr,
            len,
            use_,
            guard: Some(guard),
            _path: path,
        })
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes until `drop`. Another program may change the
        // file's content under a shared mapping (the harness only appends past `len`); a
        // truncation is caught by the guard.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl surface_engine::SharedText for MappedFile {
    /// For the viewer's mapping, a staged command's and `check`'s, `MADV_DONTNEED` over the
    /// pages holding `range`: the process stops holding them; a later read faults them back in
    /// from the page cache (or the file), unchanged. The command line's mapping keeps its pages (a short
    /// process would only fault them in again).
    fn release_resident(&self, range: std::ops::Range<usize>) {
        if let Some(pages) = self.pages_of(range) {
            // SAFETY: whole pages of our own read-only private mapping (the mapping starts on
            // a page and its last page is ours to the page's end); for such a mapping
            // MADV_DONTNEED only drops page-table entries and never changes what a read sees.
            unsafe {
                libc::madvise(
                    pages.start as *mut libc::c_void,
                    pages.len(),
                    libc::MADV_DONTNEED,
                )
            };
        }
    }

    /// Many runs at once (`check` lets go of thousands of one- and two-page runs): one
    /// `process_madvise(2)` on the process's own pages per [`RUNS_PER_CALL`] runs, which
    /// flushes the TLB once per call where a `madvise` per run would interrupt the other cores
    /// once per run — on two cores of a virtual machine, a `madvise` per page cost `check` half
    /// its time again. A kernel that refuses (`process_madvise` on one's own pages with this
    /// advice came with Linux 6.13) keeps the pages, as the plain command line's mapping does.
    fn release_resident_runs(&self, runs: &[std::ops::Range<usize>]) {
        // Refused: the pages stay, as the plain command line's do.
        let _ = self.let_go_runs(runs);
    }

    fn lost(&self) -> bool {
        self.guard.as_ref().is_some_and(Guard::shrank)
    }

    /// Always: a `MAP_PRIVATE` page nobody wrote shows the file's current bytes, so another
    /// program writing the file changes what the next read sees.
    fn may_change(&self) -> bool {
        true
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if let Some(guard) = self.guard.take() {
            guard.release();
        }
        self.let_go_in_parallel();
        // SAFETY: the mapping made in `map`, unmapped once; no borrow of it outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// Runs of pages named in one `process_madvise` call: the kernel's `UIO_MAXIOV`.
const RUNS_PER_CALL: usize = 1024;

/// A pidfd of this process, opened once (`pidfd_open(2)`, Linux 5.3), for `process_madvise` on
/// its own pages; `None` where the kernel has none, and in a forked child (the descriptor
/// names the parent). Kept open (close-on-exec) until the process exits.
fn own_pidfd() -> Option<libc::c_long> {
    static PIDFD: std::sync::OnceLock<Option<(libc::pid_t, libc::c_long)>> =
        std::sync::OnceLock::new();
    // SAFETY: `getpid` only reads the caller's process id.
    let pid = unsafe { libc::getpid() };
    let (opener, fd) = (*PIDFD.get_or_init(|| {
        // SAFETY: `pidfd_open` of our own pid with no flags only creates a descriptor.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        (fd >= 0).then_some((pid, fd))
    }))?;
    (opener == pid).then_some(fd)
}

/// True when this kernel lets a process drop its own pages many runs a call
/// (`process_madvise` with `MADV_DONTNEED` on itself, Linux 6.13): where it does not, `check`
/// keeps its chunks' pages (tests skip what they would measure).
#[doc(hidden)]
pub fn page_runs_can_be_let_go() -> bool {
    let Some(pidfd) = own_pidfd() else {
        return false;
    };
    // SAFETY: no iovec at all: the kernel checks the advice against the process and returns.
    let done = unsafe {
        libc::syscall(
            libc::SYS_process_madvise,
            pidfd,
            std::ptr::null::<libc::iovec>(),
            0usize,
            libc::MADV_DONTNEED,
            0,
        )
    };
    done == 0
}

impl MappedFile {
    /// [`surface_engine::SharedText::release_resident_runs`], saying when the kernel refused.
    fn let_go_runs(&self, runs: &[std::ops::Range<usize>]) -> std::io::Result<()> {
        let pidfd = own_pidfd().ok_or_else(std::io::Error::last_os_error)?;
        let pages: Vec<libc::iovec> = runs
            .iter()
            .filter_map(|r| self.pages_of(r.clone()))
            .map(|p| libc::iovec {
                iov_base: p.start as *mut libc::c_void,
                iov_len: p.len(),
            })
            .collect();
        for calls in pages.chunks(RUNS_PER_CALL) {
            // SAFETY: each iovec is whole pages of our own read-only private mapping (as in
            // `release_resident`), named to the kernel by address and length only; the pidfd
            // is this process's. The kernel reads the iovec array and nothing else of ours.
            let done = unsafe {
                libc::syscall(
                    libc::SYS_process_madvise,
                    pidfd,
                    calls.as_ptr(),
                    calls.len(),
                    libc::MADV_DONTNEED,
                    0,
                )
            };
            if done < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// The whole pages holding `range` (clamped to the mapping), as addresses, for the uses that
    /// let pages go before the end (not the plain command line's); `None` when there are none.
    fn pages_of(&self, range: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
        const PAGE: usize = 4096;
        if matches!(self.use_, MapFor::CommandLine(_)) {
            return None;
        }
        let base = self.ptr.as_ptr() as usize;
        let start = (base + range.start.min(self.len)) / PAGE * PAGE;
        let end = (base + range.end.min(self.len)).next_multiple_of(PAGE);
        (end > start).then_some(start..end)
    }

    /// Mappings at least this long let go of their pages on every core before the unmap.
    const PARALLEL_UNMAP_BYTES: usize = 32 << 20;

    /// Drops the page-table entries of a large command-line mapping on every core of the
    /// reader's pool (`MADV_DONTNEED`, which holds the process's memory map shared), so that
    /// the unmap that follows (which holds it alone, and would clear them on one core) has none
    /// left to clear — a command's last step gives back a 220 MB log on both cores. The
    /// viewer's mapping keeps few pages (it lets them go as it reads), and its window must not
    /// wait on a pool busy with other work: it unmaps at once.
    fn let_go_in_parallel(&self) {
        const PAGE: usize = 4096;
        if self.len < Self::PARALLEL_UNMAP_BYTES || self.use_ == MapFor::Viewer {
            return;
        }
        let base = self.ptr.as_ptr() as usize;
        let pieces = rayon::current_num_threads().max(1);
        let piece = self.len.div_ceil(pieces).next_multiple_of(PAGE);
        let end = (base + self.len).next_multiple_of(PAGE);
        rayon::scope(|s| {
            for k in 0..pieces {
                let start = base + k * piece;
                let stop = (start + piece).min(end);
                if start < stop {
                    s.spawn(move |_| {
                        // SAFETY: whole pages of our own read-only private mapping, which
                        // nothing reads any more (it is being dropped); MADV_DONTNEED only
                        // drops page-table entries of such a mapping.
                        unsafe {
                            libc::madvise(
                                start as *mut libc::c_void,
                                stop - start,
                                libc::MADV_DONTNEED,
                            )
                        };
                    });
                }
            }
        });
    }
}

#[cfg(test)]
/// The resident size, in KiB, of the mapping that holds address `at` (`/proc/self/smaps`).
pub(crate) fn mapping_resident_kib(at: usize) -> usize {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
        if let Some((from, to)) = range
            && let (Ok(from), Ok(to)) = (
                usize::from_str_radix(from, 16),
                usize::from_str_radix(to, 16),
            )
        {
            inside = (from..to).contains(&at);
        } else if inside && let Some(kib) = line.strip_prefix("Rss:") {
            return kib.trim().trim_end_matches(" kB").trim().parse().unwrap();
        }
    }
    panic!("no mapping holds {at:#x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::SharedText as _;

    /// `content` written to a new file and mapped whole for `use_` (the descriptor closed
    /// again); the folder lives as long as the returned guard.
    fn map_new_file(
        content: &[u8],
        use_: MapFor,
    ) -> (tempfile::TempDir, std::path::PathBuf, MappedFile) {
        assert!(crate::map_guard::install(), "the guard is in place");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, content).unwrap();
        let file = File::open(&path).unwrap();
        let mapped = MappedFile::map(&file, content.len(), &path, use_).unwrap();
        (dir, path, mapped)
    }

    #[test]
    fn thousands_of_runs_are_let_go_at_once_and_read_the_same() {
        const PAGES: usize = 3_000;
        let content: Vec<u8> = (0..PAGES * 4096).map(|i| (i % 253) as u8).collect();
        let (_dir, _, mapped) = map_new_file(&content, MapFor::Check(OnTruncate::Report));
        let touched: usize = mapped
            .as_ref()
            .iter()
            .step_by(4096)
            .map(|&b| b as usize)
            .sum();
        assert_eq!(touched, (0..PAGES).map(|p| p * 4096 % 253).sum::<usize>());
        let at = mapped.ptr.as_ptr() as usize;
        assert_eq!(mapping_resident_kib(at), PAGES * 4);
        // Every other page, by a byte in it: 1,500 runs, two calls.
        let runs: Vec<_> = (0..PAGES)
            .step_by(2)
            .map(|p| p * 4096 + 7..p * 4096 + 8)
            .collect();
        // At most the pages not named stay (a kernel that keeps the file in large folios may
        // unmap more of each than the page named; what is read is the same).
        match mapped.let_go_runs(&runs) {
            Ok(()) => assert!(
                mapping_resident_kib(at) <= PAGES * 2,
                "{} KiB",
                mapping_resident_kib(at)
            ),
            Err(e) => eprintln!("skipped: this kernel keeps the pages ({e})"),
        }
        assert_eq!(mapped.as_ref(), &content[..], "reads the same");
        // The plain command line's mapping keeps its pages.
        let (_dir, _, kept) = map_new_file(&content, MapFor::CommandLine(OnTruncate::Report));
        let _ = kept
            .as_ref()
            .iter()
            .step_by(4096)
            .map(|&b| b as usize)
            .sum::<usize>();
        kept.release_resident_runs(&runs);
        assert_eq!(mapping_resident_kib(kept.ptr.as_ptr() as usize), PAGES * 4);
    }

    #[test]
    fn mapped_bytes_equal_the_file() {
        let content: Vec<u8> = (0..100_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let (_dir, _, mapped) = map_new_file(&content, MapFor::CommandLine(OnTruncate::Exit));
        assert_eq!(
            mapped.as_ref(),
            &content[..],
            "the mapping outlives the descriptor"
        );
        let elsewhere = std::thread::spawn(move || mapped.as_ref()[99_999]);
        assert_eq!(elsewhere.join().unwrap(), content[99_999]);
    }

    #[test]
    fn a_large_mapping_read_to_its_end_is_given_back_on_every_core() {
        // Past the size whose pages are let go in parallel before the unmap, and not a whole
        // number of pages.
        let len = MappedFile::PARALLEL_UNMAP_BYTES + 12_345;
        let content: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let use_ = MapFor::CommandLine(OnTruncate::Report);
        let (_dir, path, mapped) = map_new_file(&content, use_);
        assert_eq!(mapped.as_ref(), &content[..]);
        // Let go on every core (as `drop` does first): what a read sees is unchanged.
        mapped.let_go_in_parallel();
        assert_eq!(mapped.as_ref(), &content[..]);
        drop(mapped);
        // The file is as it was, and maps again.
        let again = MappedFile::map(&File::open(&path).unwrap(), len, &path, use_).unwrap();
        assert_eq!(again.as_ref(), &content[..]);
    }

    #[test]
    fn released_pages_read_the_same() {
        let content: Vec<u8> = (0..300_000u32).map(|i| (i * 31 % 253) as u8).collect();
        let (_dir, _, mapped) = map_new_file(&content, MapFor::Viewer);
        assert_eq!(mapped.as_ref(), &content[..]);
        // Unaligned, empty, past-the-end and whole ranges.
        for range in [5..70_001, 9..9, 290_000..900_000, 0..content.len()] {
            mapped.release_resident(range);
            assert_eq!(mapped.as_ref(), &content[..]);
        }
        assert!(!mapped.lost());
    }

    #[test]
    fn a_viewer_mapping_of_a_truncated_file_reads_zeros_and_is_lost() {
        let content = vec![b'x'; 64 * 4096];
        let (_dir, path, mapped) = map_new_file(&content, MapFor::Viewer);
        mapped.release_resident(0..content.len());
        // Another program truncates the file: the next read past its end faults, the guard
        // swaps in zero pages and the read goes on.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        let far = std::hint::black_box(mapped.as_ref())[40 * 4096];
        assert_eq!(far, 0, "past the new end the mapping reads zeros");
        assert!(mapped.lost());
        assert!(
            mapped.as_ref().iter().all(|&b| b == 0),
            "the whole mapping is zeros"
        );
        drop(mapped);
    }

    #[test]
    fn a_reported_command_line_mapping_of_a_truncated_file_reads_zeros_and_is_lost() {
        let content = vec![b'y'; 16 * 4096];
        let use_ = MapFor::CommandLine(OnTruncate::Report);
        let (_dir, path, mapped) = map_new_file(&content, use_);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        // Populated pages past the new end are unmapped by the truncation: this read faults.
        let last = std::hint::black_box(mapped.as_ref())[content.len() - 1];
        assert_eq!(last, 0, "zeros instead of the end of the process");
        assert!(mapped.lost());
    }

    #[test]
    fn an_empty_length_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        std::fs::write(&path, b"").unwrap();
        let file = File::open(&path).unwrap();
        assert!(MappedFile::map(&file, 0, &path, MapFor::Viewer).is_none());
    }
}
