//! The read-only recursive walk under a folder: every regular file once (symlinks followed,
//! a folder or file reached twice — a symlink loop, a second link — walked once), unreadable
//! folders and special files (FIFOs, sockets, devices) skipped with a note. Nothing is opened
//! but folders. A bounded walk ([`walk_bounded`]) follows a link only when what it points to
//! lies inside one of the allowed folders: the MCP server's roots.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::{StoreError, special_file_kind};

/// A regular file found by the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its path (under the walked folder, symlinks not resolved).
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Last modification, epoch milliseconds.
    pub modified: Option<i64>,
}

/// What the walk found.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Every regular file, sorted by path.
    pub files: Vec<Candidate>,
    /// What was skipped and why (unreadable folders, symlink loops, special files).
    pub notes: Vec<String>,
    /// The special files skipped, each with its kind ("a FIFO (named pipe)", …), sorted by
    /// path.
    pub special: Vec<(PathBuf, &'static str)>,
}

/// Identity of a file or folder, to walk each once however many links lead to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct FileId(u64, u64);

fn file_id(path: &Path, metadata: &std::fs::Metadata) -> Option<FileId> {
    #[cfg(unix)]
    {
        let _ = path;
        use std::os::unix::fs::MetadataExt as _;
        Some(FileId(metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        // No inode numbers: the canonical path stands in for the identity.
        use std::hash::{Hash as _, Hasher as _};
        let canonical = std::fs::canonicalize(path).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        canonical.hash(&mut h);
        Some(FileId(0, h.finish()))
    }
}

/// Walks `root` (a folder). `Err` only when `root` itself cannot be read as a folder.
pub fn walk(root: &Path) -> Result<Walk, StoreError> {
    walk_bounded(root, None)
}

/// [`walk`], following a symbolic link only when its target (resolved without opening it)
/// lies inside one of `bounds` (canonical folders); a link that leads out is skipped with a
/// note. `None`: every link is followed.
pub fn walk_bounded(root: &Path, bounds: Option<&[PathBuf]>) -> Result<Walk, StoreError> {
    let metadata = std::fs::metadata(root).map_err(|e| StoreError::io(root, e))?;
    if !metadata.is_dir() {
        return Err(StoreError::Unreadable {
            path: root.to_path_buf(),
            message: "is not a folder".into(),
        });
    }
    std::fs::read_dir(root).map_err(|e| StoreError::io(root, e))?;
    let mut walker = Walker {
        bounds,
        ..Walker::default()
    };
    if let Some(id) = file_id(root, &metadata) {
        walker.seen.insert(id);
    }
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        walker.folder(&dir, &mut pending);
    }
    if walker.special > 0 {
        walker.out.notes.push(format!(
            "skipped {} special file(s) (FIFO, socket or device) without opening them",
            walker.special
        ));
    }
    walker.out.files.sort_by(|a, b| a.path.cmp(&b.path));
    walker.out.special.sort();
    Ok(walker.out)
}

#[derive(Default)]
struct Walker<'a> {
    out: Walk,
    seen: HashSet<FileId>,
    special: usize,
    bounds: Option<&'a [PathBuf]>,
}

impl Walker<'_> {
    /// Whether the link at `path` may be followed: always unbounded, else when its canonical
    /// target lies inside a bound (a note says why it is not).
    fn may_follow(&mut self, path: &Path) -> bool {
        let Some(bounds) = self.bounds else {
            return true;
        };
        let target = std::fs::canonicalize(path);
        if target.is_ok_and(|t| bounds.iter().any(|b| t.starts_with(b))) {
            return true;
        }
        self.out.notes.push(format!(
            "{} links outside the allowed folders; skipped without following it",
            path.display()
        ));
        false
    }

    fn folder(&mut self, dir: &Path, pending: &mut Vec<PathBuf>) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.out.notes.push(format!(
                    "cannot read folder {}: {e}; skipped",
                    dir.display()
                ));
                return;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.out.notes.push(format!(
                        "cannot list an entry of {}: {e}; skipped",
                        dir.display()
                    ));
                    continue;
                }
            };
            let path = entry.path();
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if is_link && !self.may_follow(&path) {
                continue;
            }
            // Follows symlinks: a link counts as what it points to.
            let metadata = match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    let what = if is_link {
                        "broken symbolic link"
                    } else {
                        "cannot read"
                    };
                    self.out
                        .notes
                        .push(format!("{what} {}: {e}; skipped", path.display()));
                    continue;
                }
            };
            let id = file_id(&path, &metadata);
            if metadata.is_dir() {
                if id.is_some_and(|id| !self.seen.insert(id)) {
                    if is_link {
                        self.out.notes.push(format!(
                            "{} links to a folder already walked (a symlink loop or a second link); skipped",
                            path.display()
                        ));
                    }
                    continue;
                }
                pending.push(path);
            } else if let Some(kind) = special_file_kind(&metadata) {
                self.special += 1;
                self.out.special.push((path, kind));
            } else if id.is_none_or(|id| self.seen.insert(id)) {
                let modified = metadata
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_millis() as i64);
                self.out.files.push(Candidate {
                    path,
                    size: metadata.len(),
                    modified,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_files_once_and_notes_a_symlink_loop() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/one.txt"), b"1").unwrap();
        std::fs::write(root.join("a/b/two.txt"), b"22").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("a"), root.join("a/b/loop")).unwrap();
            std::os::unix::fs::symlink(root.join("a/one.txt"), root.join("again.txt")).unwrap();
            std::os::unix::fs::symlink(root.join("nowhere"), root.join("broken")).unwrap();
        }
        let walk = walk(root).unwrap();
        let names: Vec<String> = walk
            .files
            .iter()
            .map(|c| c.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        #[cfg(unix)]
        {
            // "again.txt" and "a/one.txt" are one file: whichever comes first is kept.
            assert_eq!(names.len(), 2, "{names:?}");
            assert!(names.contains(&"a/b/two.txt".to_string()));
            assert!(
                walk.notes.iter().any(|n| n.contains("already walked")),
                "{:?}",
                walk.notes
            );
            assert!(
                walk.notes
                    .iter()
                    .any(|n| n.contains("broken symbolic link"))
            );
        }
        #[cfg(not(unix))]
        assert_eq!(names, ["a/b/two.txt", "a/one.txt"]);
        let two = walk.files.iter().find(|c| c.path.ends_with("two.txt"));
        assert_eq!(two.map(|c| c.size), Some(2));
    }

    #[cfg(unix)]
    #[test]
    fn a_bounded_walk_follows_no_link_out_of_its_bounds() {
        let inside = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = inside.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/kept.txt"), b"1").unwrap();
        std::fs::write(outside.path().join("secret.txt"), b"2").unwrap();
        let link = std::os::unix::fs::symlink;
        link(outside.path().join("secret.txt"), root.join("out-file")).unwrap();
        link(outside.path().to_path_buf(), root.join("out-folder")).unwrap();
        link(root.join("real"), root.join("in-folder")).unwrap();
        let bounds = [root.clone()];
        let walk = walk_bounded(&root, Some(&bounds)).unwrap();
        let names: Vec<_> = walk.files.iter().map(|c| c.path.clone()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].ends_with("kept.txt"));
        let out_notes = walk
            .notes
            .iter()
            .filter(|n| n.contains("outside the allowed"));
        assert_eq!(out_notes.count(), 2, "{:?}", walk.notes);
        // Unbounded, both links are followed.
        assert_eq!(walk_bounded(&root, None).unwrap().files.len(), 2);
    }

    #[test]
    fn a_file_is_not_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(walk(&file).is_err());
        assert!(walk(&dir.path().join("missing")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_skipped_without_opening_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !status.is_ok_and(|s| s.success()) {
            return; // no mkfifo on this machine: nothing to test
        }
        let walk = walk(dir.path()).unwrap();
        assert!(walk.files.is_empty());
        assert!(walk.notes.iter().any(|n| n.contains("1 special file")));
        assert_eq!(walk.special, [(fifo, "a FIFO (named pipe)")]);
    }
}
