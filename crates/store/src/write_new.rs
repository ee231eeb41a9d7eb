//! Writing a new file — an audit report, a log saved from the replace preview — never over the
//! log being read, and atomically: `tempfile` creates an unpredictable temporary file in the
//! target's folder (`O_EXCL`, so no symlink is followed), the bytes are flushed to disk, and the
//! file is renamed over the target, so a reader never sees half a file. The new file gets the
//! user's default mode (0666 less the umask, as any program's new file), not the temporary
//! file's 0600. The one place either shell writes a file. Errors name the user's path, never
//! the temporary one.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why a new file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The target is the log being read.
    #[error(
        "{} is the log being read; surface-viewer never writes to it (choose another file)",
        .0.display()
    )]
    IsTheLog(PathBuf),
    /// The target names a folder, not a file.
    #[error("{} has no file name", .0.display())]
    NoFileName(PathBuf),
    /// The file system refused.
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        /// The target the user named.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// What the new file is made from could not be read (nothing was written).
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file being read.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Fails when `target` is the log itself (the viewer never writes to the log it shows), under
/// any spelling of its path.
pub fn refuse_the_log(target: &Path, log: &Path) -> Result<(), WriteError> {
    let same = match (std::fs::canonicalize(target), std::fs::canonicalize(log)) {
        (Ok(a), Ok(b)) => a == b,
        _ => target == log,
    };
    if same {
        return Err(WriteError::IsTheLog(target.to_path_buf()));
    }
    Ok(())
}

/// Writes `bytes` to `target` atomically, refusing to write over `log` (the log being read,
/// when it is a file). An existing `target` is replaced: asking first is the caller's part.
pub fn write_new_file(target: &Path, bytes: &[u8], log: Option<&Path>) -> Result<(), WriteError> {
    write_new_with(target, log, |file| {
        file.write_all(bytes).map_err(|e| write_error(target, e))
    })
}

/// [`write_new_file`] with the contents written by `fill` into the open temporary file (its
/// write errors made with [`write_error`]); the target appears only when `fill` succeeded.
pub(crate) fn write_new_with(
    target: &Path,
    log: Option<&Path>,
    fill: impl FnOnce(&mut File) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    if let Some(log) = log {
        refuse_the_log(target, log)?;
    }
    if target.file_name().is_none() {
        return Err(WriteError::NoFileName(target.to_path_buf()));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |source: std::io::Error| write_error(target, source);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".surface-viewer-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Created with 0666 less the umask, as any new file of the user's.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(&dir).map_err(io)?;
    fill(file.as_file_mut())?;
    file.as_file().sync_all().map_err(io)?;
    // On failure the temporary file is removed when `file` drops.
    file.persist(target).map_err(|e| io(e.error))?;
    Ok(())
}

/// A write error on `target`, without the temporary file's name.
pub(crate) fn write_error(target: &Path, source: std::io::Error) -> WriteError {
    WriteError::Io {
        path: target.to_path_buf(),
        source: without_temporary_path(source),
    }
}

/// `tempfile` names its temporary file in its errors (`… at path "…/.surface-viewer-XXXX"`);
/// the user never chose that name, so the error keeps only what the system said.
fn without_temporary_path(error: std::io::Error) -> std::io::Error {
    let text = error.to_string();
    match text.split_once(" at path \"") {
        Some((said, _)) => std::io::Error::new(error.kind(), said.to_string()),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_new_file_and_refuses_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        std::fs::write(&log, b"log\n").unwrap();
        let err = write_new_file(&log, b"<html>", Some(&log)).unwrap_err();
        assert!(err.to_string().contains("never writes"), "{err}");
        // Through another spelling of the same path, too.
        let other = dir.path().join(".").join("s.jsonl");
        assert!(write_new_file(&other, b"<html>", Some(&log)).is_err());
        assert_eq!(std::fs::read(&log).unwrap(), b"log\n");
        let out = dir.path().join("r.html");
        write_new_file(&out, b"<html>", Some(&log)).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"<html>");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // Without a log to protect (the built-in sample), any new file.
        write_new_file(&dir.path().join("n.jsonl"), b"y\n", None).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn an_unwritable_target_is_named_not_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("no/such/dir/r.html");
        let err = write_new_file(&target, b"x", None).unwrap_err().to_string();
        assert!(err.contains(&*target.to_string_lossy()), "{err}");
        assert!(!err.contains(".surface-viewer-"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn new_files_get_the_users_default_mode_not_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.html");
        write_new_file(&out, b"<html>", None).unwrap();
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        // The mode any program's new file gets: 0666 less the umask (0644 under the usual
        // 022), as a plain `File::create` beside it.
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let plain_mode = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, plain_mode, "{mode:o} beside {plain_mode:o}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_at_a_predictable_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        // The old scheme's temporary name, planted as a link to another file.
        let planted = dir
            .path()
            .join(format!(".r.html.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_new_file(&dir.path().join("r.html"), b"new", None).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.path().join("r.html")).unwrap(), b"new");
    }
}
