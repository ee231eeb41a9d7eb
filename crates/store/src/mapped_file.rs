//! A whole file mapped read-only into memory (Linux): its bytes become the log's text arena
//! with no copy and no fresh memory to fault in.
//!
//! Reading a 220 MB log into a fresh buffer costs the kernel zeroing 220 MB of new pages and
//! copying from the page cache, and then the machine holds the file twice. A mapping
//! (`PROT_READ`, `MAP_PRIVATE`) shares the page cache's pages: they count in the process's
//! resident size but are not its private memory — clean file pages the kernel reclaims when
//! another program needs the memory, and faults back in on the next read. The pages are
//! faulted in by the reader's workers as they parse, in parallel (no `MAP_POPULATE`, which
//! fills the page tables on the opening thread first). The mapping is read-only: nothing
//! writes to the file.
//!
//! A file truncated by another program while mapped would raise SIGBUS on the next read past
//! its new end; every mapping is registered with the guard of [`super::map_guard`] first (no
//! guard installed, no mapping: the file is read). What happens then is the caller's
//! [`OnTruncate`]: a command on one file names the file and exits 2; `check DIR`, an export
//! and the viewer have the mapping turn into zero pages, marked lost — the command reports
//! that file, the window reopens it.

use std::fs::File;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::io::AsRawFd as _;
use std::path::Path;
use std::ptr::NonNull;

use super::map_guard::{Guard, OnShrink};
use super::options::OnTruncate;

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
    /// Maps the first `len` bytes of `file` (opened read-only from `path`); a truncation does
    /// what `on_truncate` says. `None` when `len` is 0, the kernel refuses the mapping, or the
    /// guard cannot take it (then read instead).
    pub fn map(
        file: &File,
        len: usize,
        path: &Path,
        on_truncate: OnTruncate,
    ) -> Option<MappedFile> {
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
                // No `MAP_POPULATE`: see the module's documentation.
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
        let on_shrink = match on_truncate {
            OnTruncate::Exit => OnShrink::Exit,
            OnTruncate::Report => OnShrink::ZeroAndMark,
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
        // SAFETY: the mapping made in `map`, unmapped once; no borrow of it outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::SharedText as _;

    /// `content` written to a new file and mapped whole (the descriptor closed again); the
    /// folder lives as long as the returned guard.
    fn map_new_file(
        content: &[u8],
        on_truncate: OnTruncate,
    ) -> (tempfile::TempDir, std::path::PathBuf, MappedFile) {
        assert!(crate::map_guard::install(), "the guard is in place");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, content).unwrap();
        let file = File::open(&path).unwrap();
        let mapped = MappedFile::map(&file, content.len(), &path, on_truncate).unwrap();
        (dir, path, mapped)
    }

    #[test]
    fn mapped_bytes_equal_the_file() {
        let content: Vec<u8> = (0..100_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let (_dir, _, mapped) = map_new_file(&content, OnTruncate::Exit);
        assert_eq!(
            mapped.as_ref(),
            &content[..],
            "the mapping outlives the descriptor"
        );
        let elsewhere = std::thread::spawn(move || mapped.as_ref()[99_999]);
        assert_eq!(elsewhere.join().unwrap(), content[99_999]);
    }

    #[test]
    fn a_reported_mapping_of_a_truncated_file_reads_zeros_and_is_lost() {
        let content = vec![b'y'; 16 * 4096];
        let (_dir, path, mapped) = map_new_file(&content, OnTruncate::Report);
        assert!(!mapped.lost());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        // Populated pages past the new end are unmapped by the truncation: this read faults,
        // the guard swaps in zero pages and the read goes on.
        let last = std::hint::black_box(mapped.as_ref())[content.len() - 1];
        assert_eq!(last, 0, "zeros instead of the end of the process");
        assert!(mapped.lost());
        assert!(
            mapped.as_ref().iter().all(|&b| b == 0),
            "the whole mapping is zeros"
        );
    }

    #[test]
    fn an_empty_length_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        std::fs::write(&path, b"").unwrap();
        let file = File::open(&path).unwrap();
        assert!(MappedFile::map(&file, 0, &path, OnTruncate::Report).is_none());
    }
}
