//! Writing a new file — an audit report, a log saved from the replace preview — never over the
//! log being read, and atomically (a temporary file in the same folder, then a rename), so a
//! reader never sees half a file. The one place either shell writes a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

/// Fails when `target` is the log itself (the viewer never writes to the log it shows).
pub fn refuse_the_log(target: &Path, log: &Path) -> anyhow::Result<()> {
    let same = match (std::fs::canonicalize(target), std::fs::canonicalize(log)) {
        (Ok(a), Ok(b)) => a == b,
        _ => target == log,
    };
    if same {
        bail!(
            "{} is the log being read; surface-viewer never writes to it (choose another file)",
            target.display()
        );
    }
    Ok(())
}

/// Writes `bytes` to `target` atomically, refusing to write over `log` (the log being read,
/// when it is a file).
pub fn write_new_file(target: &Path, bytes: &[u8], log: Option<&Path>) -> anyhow::Result<()> {
    if let Some(log) = log {
        refuse_the_log(target, log)?;
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .with_context(|| format!("{} has no file name", target.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> anyhow::Result<()> {
        let mut file = std::fs::File::create(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        file.write_all(bytes)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        file.sync_all()
            .with_context(|| format!("cannot flush {}", tmp.display()))?;
        std::fs::rename(&tmp, target)
            .with_context(|| format!("cannot rename into {}", target.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
        assert!(write_new_file(&dir.path().join("no/such/dir/r.html"), b"x", Some(&log)).is_err());
        // Without a log to protect (the built-in sample), any new file.
        write_new_file(&dir.path().join("n.jsonl"), b"y\n", None).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
