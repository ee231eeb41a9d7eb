//! Reading a whole log file into memory as fast as the machine allows: large files are read
//! in parts on the current rayon pool's threads (`pread`), into a buffer the kernel may back
//! with 2 MiB pages.
//!
//! Reading a 220 MB file with `std::fs::read` spends most of its time faulting in 4 KiB pages
//! of a fresh buffer one by one and copying from the page cache on one core. Asking for
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`, Linux) cuts the faults 512-fold, and the
//! threads share the copy. The buffer is an ordinary `Vec<u8>`: the log owns a copy, which
//! live follow appends to, Zstandard and SQLite decode into, and a file rewritten while it is
//! shown cannot change.
//!
//! A large plain JSONL file is mapped instead ([`map_or_read`], Linux), by the command line and
//! by the desktop viewer when it does not follow the file: no private copy, and fresh memory is
//! the dearest part of reading (the kernel zeroes every new page on first touch). Only once the
//! program has installed the SIGBUS guard (`map_guard.rs`), which catches a truncation while
//! mapped; until then files are read. See `mapped_file.rs`.
//!
//! The file is read up to the length it had when opened: bytes appended later are picked up by
//! live follow. A file that shrinks while read falls back to a plain read to its end. A file
//! longer than the caller's limit (the total of `ReadLimits`) is not read at all; one that
//! grows past it while read is read no further than one byte past the limit.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use rayon::prelude::*;

use super::options::OnTruncate;
use surface_engine::TextArena;

/// Files at least this large are read in parts on the pool with huge pages requested, or
/// mapped by [`map_or_read`].
pub(super) const PARALLEL_FROM: u64 = 8 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadFail {
    /// The operating system's error.
    Io(std::io::Error),
    /// The file holds more than the limit the caller gave.
    TooLarge,
}

impl From<std::io::Error> for ReadFail {
    fn from(e: std::io::Error) -> Self {
        ReadFail::Io(e)
    }
}

/// The whole content of `path` as a text arena, unless it is longer than `max` bytes: on Linux
/// a file of at least [`PARALLEL_FROM`] bytes is mapped read-only (see `mapped_file.rs`);
/// smaller and empty files, other platforms, and any mapping the kernel refuses or no
/// installed SIGBUS guard can take are read with [`read_whole`].
pub fn map_or_read(path: &Path, on_truncate: OnTruncate, max: u64) -> Result<TextArena, ReadFail> {
    #[cfg(target_os = "linux")]
    {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len > max {
            return Err(ReadFail::TooLarge);
        }
        if len >= PARALLEL_FROM
            && let Ok(len) = usize::try_from(len)
            && let Some(mapped) = super::mapped_file::MappedFile::map(&file, len, path, on_truncate)
        {
            return Ok(TextArena::shared(std::sync::Arc::new(mapped)));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on_truncate;
    read_whole(path, max).map(TextArena::from)
}

/// The whole content of `path`, unless it is longer than `max` bytes: then not read past
/// `max` + 1 bytes (a file that grows while it is read included).
pub fn read_whole(path: &Path, max: u64) -> Result<Vec<u8>, ReadFail> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(ReadFail::TooLarge);
    }
    let bytes = if len < PARALLEL_FROM || usize::try_from(len).is_err() {
        read_up_to(file, len, max)?
    } else {
        match read_parts(&file, len as usize) {
            Ok(bytes) => bytes,
            // Shorter than it said (truncated meanwhile), or not a file `pread` works on.
            Err(_) => read_up_to(File::open(path)?, len, max)?,
        }
    };
    if bytes.len() as u64 > max {
        return Err(ReadFail::TooLarge);
    }
    Ok(bytes)
}

/// At most `max` + 1 bytes of `file` (whose length was `len`), from where it stands.
fn read_up_to(file: File, len: u64, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(len.min(max)).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads `len` bytes from the start of `file`, a part per thread of the current pool.
fn read_parts(file: &File, len: usize) -> std::io::Result<Vec<u8>> {
    // Zeroed memory from the allocator is fresh pages the kernel zeroes when first touched, so
    // this costs no pass over the buffer.
    let mut bytes = vec![0u8; len];
    advise_huge_pages(&mut bytes);
    let part = len.div_ceil(rayon::current_num_threads().max(1)).max(1);
    bytes
        .par_chunks_mut(part)
        .enumerate()
        .try_for_each(|(k, buf)| read_at(file, buf, (k * part) as u64))?;
    Ok(bytes)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(not(any(unix, windows)))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Asks Linux to back the 2 MiB-aligned part of `buf` with huge pages (advice only: nothing
/// changes when the kernel has none to give).
#[cfg(target_os = "linux")]
fn advise_huge_pages(buf: &mut [u8]) {
    const HUGE: usize = 2 << 20;
    let start = buf.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + buf.len()) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: the range lies inside `buf`, which we own mutably; MADV_HUGEPAGE changes
        // only how the kernel backs the pages, never their content or validity.
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &mut [u8]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_and_small_files_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0usize, 1, 4096, (PARALLEL_FROM as usize) + 12_345] {
            let content: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}"));
            std::fs::write(&path, &content).unwrap();
            assert_eq!(
                read_whole(&path, u64::MAX).unwrap(),
                content,
                "length {len}"
            );
            if len > 0 {
                let short = len as u64 - 1;
                assert!(matches!(read_whole(&path, short), Err(ReadFail::TooLarge)));
                let mapped = map_or_read(&path, OnTruncate::Exit, short);
                assert!(matches!(mapped, Err(ReadFail::TooLarge)));
            }
        }
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_whole(&dir.path().join("none"), u64::MAX).is_err());
        assert!(map_or_read(&dir.path().join("none"), OnTruncate::Exit, u64::MAX).is_err());
    }

    #[test]
    fn small_and_empty_files_are_read_and_large_ones_mapped() {
        #[cfg(target_os = "linux")]
        crate::map_guard::install();
        let dir = tempfile::tempdir().unwrap();
        let large = PARALLEL_FROM as usize;
        for len in [0usize, 1, 4096, large - 1, large, large + 12_345] {
            let content: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}"));
            std::fs::write(&path, &content).unwrap();
            let arena = map_or_read(&path, OnTruncate::Exit, u64::MAX).unwrap();
            assert_eq!(&arena[..], &content[..], "length {len}");
            // Mapped only on Linux, and only while the guard has a free slot (other tests
            // of this process may hold some, never all 64).
            let mapped = cfg!(target_os = "linux") && len >= large;
            assert_eq!(arena.is_shared(), mapped, "length {len}");
        }
    }
}
