//! What a file is, cheaply: its device and inode, size, modification time and a hash of its
//! first and last 4 KiB. Two readings that differ mean another program changed the file —
//! what the desktop viewer watches for while it maps a log, since a mapping shows the file's
//! current bytes (a rewrite of the same size raises no SIGBUS). [`FileIdentity::change_at`]
//! tells the changes apart: an append leaves every mapped byte as it was, a truncation or a
//! rewrite does not.

use std::fs::File;
use std::hash::{Hash as _, Hasher as _};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

/// Bytes hashed at each end of the file: where an in-place rewrite that keeps the size and
/// the modification time (a `touch -d` after it) still shows.
const EDGE: u64 = 4096;

/// One reading of a file's identity; compare two with `==`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
    /// Hash of the first `EDGE` bytes (all of a shorter file).
    head: u64,
    /// Hash of the last `EDGE` bytes after the head (none for a file of `EDGE` bytes or fewer).
    tail: u64,
}

/// How a file differs from an earlier reading of its identity ([`FileIdentity::change_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileChange {
    /// As it was read.
    Unchanged,
    /// The same file, longer, with its first and last bytes of then where they were: another
    /// program appended to it. A mapping of the old length still shows the bytes read.
    Grew,
    /// The same file, now shorter: another program truncated it.
    Shrank,
    /// Replaced, rewritten in place, or gone.
    Rewritten,
}

impl FileIdentity {
    /// Reads the identity of the file at `path`; `None` when it cannot be read (gone, or not
    /// readable — itself a change a caller should notice).
    pub fn of(path: &Path) -> Option<FileIdentity> {
        let mut file = File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        let len = meta.len();
        let (head, tail) = edges_within(&mut file, len)?;
        let (device, inode) = device_and_inode(&meta);
        Some(FileIdentity {
            device,
            inode,
            len,
            modified: meta.modified().ok(),
            head,
            tail,
        })
    }

    /// How the file at `path` now differs from this reading of it. An append is told from a
    /// rewrite by reading the file's edges as they were at this reading's length: a file grown
    /// that way with its old edges unchanged grew; the same file shorter shrank; anything else
    /// that differs (another inode, other bytes at the edges, no file) was rewritten.
    pub fn change_at(&self, path: &Path) -> FileChange {
        let Some(now) = FileIdentity::of(path) else {
            return FileChange::Rewritten;
        };
        if now == *self {
            return FileChange::Unchanged;
        }
        let same_file = (now.device, now.inode) == (self.device, self.inode);
        if same_file && now.len < self.len {
            return FileChange::Shrank;
        }
        if same_file && now.len > self.len && self.edges_still_at(path) {
            return FileChange::Grew;
        }
        FileChange::Rewritten
    }

    /// Whether the file at `path` still holds this reading's edges within its first `len`
    /// bytes.
    fn edges_still_at(&self, path: &Path) -> bool {
        let Ok(mut file) = File::open(path) else {
            return false;
        };
        edges_within(&mut file, self.len) == Some((self.head, self.tail))
    }
}

/// The hashes of the first [`EDGE`] bytes of `file` and of the last [`EDGE`] bytes after them,
/// reading no further than `len` bytes.
fn edges_within(file: &mut File, len: u64) -> Option<(u64, u64)> {
    let hash_of = |buf: &[u8]| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        buf.hash(&mut hasher);
        hasher.finish()
    };
    let mut buf = vec![0u8; EDGE.min(len) as usize];
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_exact(&mut buf).ok()?;
    let head = hash_of(&buf);
    let mut tail = 0;
    if len > EDGE {
        let tail_len = EDGE.min(len - EDGE);
        file.seek(SeekFrom::Start(len - tail_len)).ok()?;
        buf.resize(tail_len as usize, 0);
        file.read_exact(&mut buf).ok()?;
        tail = hash_of(&buf);
    }
    Some((head, tail))
}

#[cfg(unix)]
fn device_and_inode(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn device_and_inode(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_truncation_is_told_from_a_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, vec![b'a'; 20_000]).unwrap();
        let first = FileIdentity::of(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(7_000)
            .unwrap();
        assert_eq!(first.change_at(&path), FileChange::Shrank);
        let cut = FileIdentity::of(&path).unwrap();
        assert_eq!(cut.change_at(&path), FileChange::Unchanged);
        // A shorter file put in its place (another inode) is a replacement, not a truncation.
        let other = dir.path().join("t.jsonl");
        std::fs::write(&other, vec![b'b'; 100]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(first.change_at(&path), FileChange::Rewritten);
        assert_eq!(cut.change_at(&path), FileChange::Rewritten);
    }

    #[test]
    fn an_append_is_told_from_a_rewrite_that_also_grew() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        for size in [0usize, 100, 4096, 5000, 20_000] {
            let text: Vec<u8> = (0..size).map(|i| b'a' + (i % 26) as u8).collect();
            std::fs::write(&path, &text).unwrap();
            let first = FileIdentity::of(&path).unwrap();
            assert_eq!(first.len, size as u64);
            let append = |more: &[u8]| {
                use std::io::Write as _;
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(more).unwrap();
            };
            append(b"{\"seq\":1}\n");
            assert_eq!(first.change_at(&path), FileChange::Grew, "{size} bytes");
            append(&vec![b'z'; 9000]);
            assert_eq!(
                first.change_at(&path),
                FileChange::Grew,
                "{size} bytes, twice"
            );
            // Cut back below the length first read: shorter than then, a truncation.
            if size > 0 {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(size as u64 - 1)
                    .unwrap();
                assert_eq!(first.change_at(&path), FileChange::Shrank, "{size} bytes");
            }
            // Longer, but the bytes first read changed at an edge: a rewrite.
            let mut other = text.clone();
            if let Some(last) = other.last_mut() {
                *last = b'#';
            }
            other.extend_from_slice(b"more");
            std::fs::write(&path, &other).unwrap();
            let expected = if size == 0 {
                FileChange::Grew // nothing was read, so nothing could change
            } else {
                FileChange::Rewritten
            };
            assert_eq!(first.change_at(&path), expected, "{size} bytes");
        }
        let last = FileIdentity::of(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(last.change_at(&path), FileChange::Rewritten, "a file gone");
    }

    #[test]
    fn a_rewrite_a_replacement_and_a_removal_each_change_the_identity() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, vec![b'a'; 20_000]).unwrap();
        let first = FileIdentity::of(&path).unwrap();
        assert_eq!(
            FileIdentity::of(&path),
            Some(first.clone()),
            "stable while untouched"
        );

        // Same size, same modification time, other bytes at the end.
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.seek(SeekFrom::Start(19_999)).unwrap();
        file.write_all(b"b").unwrap();
        file.set_modified(modified).unwrap();
        drop(file);
        let rewritten = FileIdentity::of(&path).unwrap();
        assert_eq!(rewritten.len, first.len);
        assert_eq!(rewritten.modified, first.modified);
        assert_ne!(rewritten, first, "the content check sees it");

        // Another file moved over it (`cp` to a new name, then `mv`): a new inode.
        let other = dir.path().join("other");
        std::fs::write(&other, vec![b'a'; 20_000]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_ne!(FileIdentity::of(&path), Some(rewritten));

        std::fs::remove_file(&path).unwrap();
        assert_eq!(FileIdentity::of(&path), None);
    }

    #[test]
    fn small_files_hash_what_they_have() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny");
        std::fs::write(&path, b"{}\n").unwrap();
        let a = FileIdentity::of(&path).unwrap();
        std::fs::write(&path, b"[]\n").unwrap();
        assert_ne!(FileIdentity::of(&path).unwrap().head, a.head);
    }
}
