//! What a file is, cheaply: its device and inode, size, modification time and a hash of its
//! first and last 4 KiB. Two readings that differ mean another program replaced or rewrote
//! the file — what the desktop viewer watches for while it maps a log, since a mapping shows
//! the file's current bytes (a rewrite of the same size raises no SIGBUS).

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
    edges: u64,
}

impl FileIdentity {
    /// Reads the identity of the file at `path`; `None` when it cannot be read (gone, or not
    /// readable — itself a change a caller should notice).
    pub fn of(path: &Path) -> Option<FileIdentity> {
        let mut file = std::fs::File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        let len = meta.len();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let mut buf = vec![0u8; EDGE.min(len) as usize];
        file.read_exact(&mut buf).ok()?;
        buf.hash(&mut hasher);
        if len > EDGE {
            file.seek(SeekFrom::Start(len - EDGE.min(len - EDGE)))
                .ok()?;
            buf.resize(EDGE.min(len - EDGE) as usize, 0);
            file.read_exact(&mut buf).ok()?;
            buf.hash(&mut hasher);
        }
        let (device, inode) = device_and_inode(&meta);
        Some(FileIdentity {
            device,
            inode,
            len,
            modified: meta.modified().ok(),
            edges: hasher.finish(),
        })
    }
}

impl FileIdentity {
    /// True when this reading is of the same file as `before` (device and inode), now shorter:
    /// another program truncated it rather than replacing it.
    pub fn shrank_from(&self, before: &FileIdentity) -> bool {
        (self.device, self.inode) == (before.device, before.inode) && self.len < before.len
    }
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
        let cut = FileIdentity::of(&path).unwrap();
        assert!(cut.shrank_from(&first));
        assert!(!first.shrank_from(&cut), "longer is not shorter");
        // A shorter file put in its place (another inode) is a replacement, not a truncation.
        let other = dir.path().join("t.jsonl");
        std::fs::write(&other, vec![b'b'; 100]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = FileIdentity::of(&path).unwrap();
        assert!(!replaced.shrank_from(&first));
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
        assert_ne!(FileIdentity::of(&path).unwrap().edges, a.edges);
    }
}
