//! The one rule for every file either shell writes (an audit report, a log saved from the
//! replace preview, an export's folder): [`WriteTarget::check`] refuses the log being read and
//! every file of its session (a SQLite database's `-wal`, `-shm`, `-journal`), any file that
//! session discovery recognises as a session log (even when told to replace), and an existing
//! file unless the user said to replace it (`--force`, a confirmation). [`write_file_safely`]
//! then writes atomically: `tempfile` creates an unpredictable temporary file in the target's
//! folder (`O_EXCL`, so no symlink is followed), the bytes are flushed to disk, and the file is
//! renamed over the target, so a reader never sees half a file. The new file gets the user's
//! default mode (0666 less the umask, as any program's new file), not the temporary file's
//! 0600. Errors name the user's path, never the temporary one.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The files beside a SQLite database that belong to it.
const SESSION_FILE_SUFFIXES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The target is the log being read.
    #[error(
        "{} is the log being read; surface-viewer never writes to it (choose another file)",
        .0.display()
    )]
    IsTheLog(PathBuf),
    /// The target is a file of the log's session (a SQLite `-wal`, `-shm`, `-journal`).
    #[error(
        "{} belongs to the session log {} (SQLite keeps it beside the database); refusing",
        .target.display(), .log.display()
    )]
    OfASession {
        /// The target the user named.
        target: PathBuf,
        /// The session log it belongs to.
        log: PathBuf,
    },
    /// The target is a session log (another session's, or the same one's copy).
    #[error("{} is a session log; refusing", .0.display())]
    IsASessionLog(PathBuf),
    /// The target exists and replacing it was not asked for.
    #[error(
        "{} already exists; refusing to replace it unless told to (--force, or confirm in the viewer)",
        .0.display()
    )]
    Exists(PathBuf),
    /// The target names no file (a path ending in `..` or a root).
    #[error("{} has no file name", .0.display())]
    NoFileName(PathBuf),
    /// The target is an existing folder.
    #[error("cannot write {}: it is a folder (name a file in it)", .0.display())]
    IsAFolder(PathBuf),
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

/// A file about to be written, with what it must not replace.
#[derive(Clone, Copy, Debug)]
pub struct WriteTarget<'a> {
    /// The path the user named.
    pub path: &'a Path,
    /// The log being read, when it is a file: neither it nor its session's files are written.
    pub log: Option<&'a Path>,
    /// The user said an existing file may be replaced (`--force`, a confirmation); a session
    /// log is refused all the same.
    pub replace: bool,
}

impl<'a> WriteTarget<'a> {
    /// A target that may not replace an existing file.
    pub fn new(path: &'a Path, log: Option<&'a Path>) -> Self {
        WriteTarget {
            path,
            log,
            replace: false,
        }
    }

    /// The same target, replacing an existing file when `replace` (never a session log).
    pub fn replacing(self, replace: bool) -> Self {
        WriteTarget { replace, ..self }
    }

    /// `Err` when the rule forbids writing the target: the log or a file of its session, a
    /// session log, or an existing file without `replace`.
    pub fn check(&self) -> Result<(), WriteError> {
        let target = self.path;
        if let Some(log) = self.log {
            if same_file(target, log) {
                return Err(WriteError::IsTheLog(target.to_path_buf()));
            }
            if let Some(log) = session_file_of(target, |base| same_file(base, log)) {
                return Err(WriteError::OfASession {
                    target: target.to_path_buf(),
                    log,
                });
            }
        }
        let Ok(meta) = std::fs::symlink_metadata(target) else {
            return Ok(());
        };
        if crate::discover::is_session_log(target) {
            return Err(WriteError::IsASessionLog(target.to_path_buf()));
        }
        if let Some(log) = session_file_of(target, crate::discover::is_session_log) {
            return Err(WriteError::OfASession {
                target: target.to_path_buf(),
                log,
            });
        }
        if meta.is_dir() {
            return Err(WriteError::IsAFolder(target.to_path_buf()));
        }
        if !self.replace {
            return Err(WriteError::Exists(target.to_path_buf()));
        }
        Ok(())
    }
}

/// Fails when `target` is the log itself or a file of its session, under any spelling of its
/// path (what a typed path is told at once, before it exists or is confirmed).
pub fn refuse_the_log(target: &Path, log: &Path) -> Result<(), WriteError> {
    if same_file(target, log) {
        return Err(WriteError::IsTheLog(target.to_path_buf()));
    }
    match session_file_of(target, |base| same_file(base, log)) {
        Some(log) => Err(WriteError::OfASession {
            target: target.to_path_buf(),
            log,
        }),
        None => Ok(()),
    }
}

/// The database `target` belongs to (`x.db` for `x.db-wal`) when its name ends in a SQLite
/// companion suffix and `is_log` holds for that database.
fn session_file_of(target: &Path, is_log: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let name = target.file_name()?.to_str()?;
    SESSION_FILE_SUFFIXES.iter().find_map(|suffix| {
        let base = target.with_file_name(name.strip_suffix(suffix).filter(|b| !b.is_empty())?);
        is_log(&base).then_some(base)
    })
}

/// True when `a` and `b` name the same file, under any spelling (a file not there yet by its
/// folder's real path and its name).
fn same_file(a: &Path, b: &Path) -> bool {
    match (real_path(a), real_path(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

fn real_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// Writes `bytes` to the target atomically, when [`WriteTarget::check`] allows it.
pub fn write_file_safely(target: &WriteTarget<'_>, bytes: &[u8]) -> Result<(), WriteError> {
    write_safely_with(target, |file| {
        file.write_all(bytes)
            .map_err(|e| write_error(target.path, e))
    })
}

/// [`write_file_safely`] with the contents written by `fill` into the open temporary file (its
/// write errors made with [`write_error`]); the target appears only when `fill` succeeded.
pub(crate) fn write_safely_with(
    rule: &WriteTarget<'_>,
    fill: impl FnOnce(&mut File) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    rule.check()?;
    let target = rule.path;
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

    fn write_unless_there(
        target: &Path,
        bytes: &[u8],
        log: Option<&Path>,
    ) -> Result<(), WriteError> {
        write_file_safely(&WriteTarget::new(target, log), bytes)
    }

    const HEADER: &str = r#"{"type":"session","version":0,"id":"s1","createdAt":1}"#;

    #[test]
    fn an_existing_file_is_replaced_only_when_told_and_a_session_log_never() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.html");
        std::fs::write(&out, b"mine").unwrap();
        let err = write_unless_there(&out, b"new", None).unwrap_err();
        assert!(matches!(err, WriteError::Exists(_)), "{err}");
        assert_eq!(std::fs::read(&out).unwrap(), b"mine");
        let told = WriteTarget::new(&out, None).replacing(true);
        write_file_safely(&told, b"new").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let other = dir.path().join("b.jsonl");
        std::fs::write(&other, format!("{HEADER}\n")).unwrap();
        let told = WriteTarget::new(&other, None).replacing(true);
        let err = write_file_safely(&told, b"new").unwrap_err().to_string();
        assert_eq!(
            err,
            format!("{} is a session log; refusing", other.display())
        );
        assert!(std::fs::read_to_string(&other).unwrap().starts_with(HEADER));
    }

    #[test]
    fn the_files_of_the_logs_session_are_refused_even_when_told() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("store.db");
        std::fs::write(&log, b"SQLite format 3\0").unwrap();
        for suffix in SESSION_FILE_SUFFIXES {
            let companion = dir.path().join(format!("store.db{suffix}"));
            // Whether or not it is there yet.
            let told = WriteTarget::new(&companion, Some(&log)).replacing(true);
            let err = write_file_safely(&told, b"x").unwrap_err();
            assert!(matches!(err, WriteError::OfASession { .. }), "{err}");
            std::fs::write(&companion, b"wal").unwrap();
            assert!(write_file_safely(&told, b"x").is_err());
            assert_eq!(std::fs::read(&companion).unwrap(), b"wal");
        }
    }

    #[test]
    fn writes_a_new_file_and_refuses_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        std::fs::write(&log, b"log\n").unwrap();
        let err = write_unless_there(&log, b"<html>", Some(&log)).unwrap_err();
        assert!(err.to_string().contains("never writes"), "{err}");
        // Through another spelling of the same path, too.
        let other = dir.path().join(".").join("s.jsonl");
        assert!(write_unless_there(&other, b"<html>", Some(&log)).is_err());
        assert_eq!(std::fs::read(&log).unwrap(), b"log\n");
        let out = dir.path().join("r.html");
        write_unless_there(&out, b"<html>", Some(&log)).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"<html>");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // Without a log to protect (the built-in sample), any new file.
        write_unless_there(&dir.path().join("n.jsonl"), b"y\n", None).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn an_unwritable_target_is_named_not_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("no/such/dir/r.html");
        let err = write_unless_there(&target, b"x", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&*target.to_string_lossy()), "{err}");
        assert!(!err.contains(".surface-viewer-"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn new_files_get_the_users_default_mode_not_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.html");
        write_unless_there(&out, b"<html>", None).unwrap();
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
        write_unless_there(&dir.path().join("r.html"), b"new", None).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.path().join("r.html")).unwrap(), b"new");
    }
}
