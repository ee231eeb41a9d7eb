//! A whole file mapped read-only into memory (Linux), for the command line: its bytes become
//! the log's text arena with no copy and no fresh memory to fault in.
//!
//! Reading a 220 MB log into a fresh buffer costs the kernel zeroing 220 MB of new pages and
//! copying from the page cache; mapping it (`PROT_READ`, `MAP_PRIVATE | MAP_POPULATE`) shares
//! the page cache's pages and fills the page tables in one call. The mapping is read-only:
//! the viewer never writes to the file. A file truncated by another program while mapped would
//! raise SIGBUS on the next read past its new end; every mapping is registered with the guard
//! of [`super::map_guard`] first, which then names the file and exits 2 (no guard, no mapping).
//!
//! Only the CLI maps (`store::open_mapped`): its processes are short and never follow a file.
//! The desktop viewer keeps an owned copy ([`super::read_file`]), because it stays open for
//! hours, follows files as they grow and is shown logs that other programs may rewrite.

use std::fs::File;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::io::AsRawFd as _;
use std::path::Path;
use std::ptr::NonNull;

use super::map_guard::Guard;

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
    /// Maps the first `len` bytes of `file` (opened read-only from `path`). `None` when `len`
    /// is 0, the kernel refuses the mapping, or the guard cannot take it (then read instead).
    pub fn map(file: &File, len: usize, path: &Path) -> Option<MappedFile> {
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
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
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
        let Some(guard) = Guard::register(start..start + len, &path) else {
            // SAFETY: the mapping was just made with this address and length.
            unsafe { libc::munmap(addr, len) };
            return None;
        };
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

    #[test]
    fn mapped_bytes_equal_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i * 13 % 251) as u8).collect();
        std::fs::write(&path, &content).unwrap();
        let file = File::open(&path).unwrap();
        let mapped = MappedFile::map(&file, content.len(), &path).unwrap();
        drop(file);
        assert_eq!(
            mapped.as_ref(),
            &content[..],
            "the mapping outlives the descriptor"
        );
        let elsewhere = std::thread::spawn(move || mapped.as_ref()[99_999]);
        assert_eq!(elsewhere.join().unwrap(), content[99_999]);
    }

    #[test]
    fn an_empty_length_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        std::fs::write(&path, b"").unwrap();
        let file = File::open(&path).unwrap();
        assert!(MappedFile::map(&file, 0, &path).is_none());
    }
}
