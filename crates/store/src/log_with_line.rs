//! Saving a copy of a log with one more event line appended, in the log's own format — JSONL:
//! the line newline-terminated after the log's bytes (a missing final newline added first);
//! Zstandard: one more frame holding the line — written atomically as a new file
//! ([`crate::write_new_file`]'s rules: never over the log itself, the user's default mode).
//! The log is streamed into the new file, never held whole in memory.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::Path;

use crate::Format;
use crate::write_new::{WriteError, write_error, write_new_with};

/// The log to copy: a file, or bytes in memory (the bundled sample).
#[derive(Clone, Copy, Debug)]
pub enum LogBytes<'a> {
    /// A log file (never written: the copy is refused over it).
    File(&'a Path),
    /// A log held in memory.
    Memory(&'a [u8]),
}

/// Why a copy of a log with one more line was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveLogError {
    /// A SQLite store is not copied with an appended line.
    #[error(
        "saving a copy with one more event is supported for JSONL and Zstandard logs, not SQLite session stores"
    )]
    Unsupported,
    /// The line to append spans several lines.
    #[error("the event line to append holds a line break")]
    NotOneLine,
    /// Reading the log or writing the copy failed.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Writes to `target` a copy of `log` (in `format`) with `line` appended as one more event,
/// atomically. Refuses `target` when it is the log file, under any spelling of its path; an
/// existing `target` is replaced (asking first is the caller's part).
pub fn write_log_with_line(
    target: &Path,
    log: LogBytes<'_>,
    format: Format,
    line: &str,
) -> Result<(), SaveLogError> {
    if line.contains(['\n', '\r']) {
        return Err(SaveLogError::NotOneLine);
    }
    let tail = match format {
        Format::Jsonl => format!("{line}\n").into_bytes(),
        Format::Zstd => zstd::encode_all(format!("{line}\n").as_bytes(), 3)
            .map_err(|e| write_error(target, e))?,
        Format::Sqlite => return Err(SaveLogError::Unsupported),
    };
    let log_path = match log {
        LogBytes::File(path) => Some(path),
        LogBytes::Memory(_) => None,
    };
    write_new_with(target, log_path, |out| {
        let last = copy_log(log, out, target)?;
        if format == Format::Jsonl && last.is_some_and(|b| b != b'\n') {
            out.write_all(b"\n").map_err(|e| write_error(target, e))?;
        }
        out.write_all(&tail).map_err(|e| write_error(target, e))
    })?;
    Ok(())
}

/// Copies the log's bytes into `out`; returns its last byte (`None`: empty).
fn copy_log(log: LogBytes<'_>, out: &mut File, target: &Path) -> Result<Option<u8>, WriteError> {
    match log {
        LogBytes::Memory(bytes) => {
            out.write_all(bytes).map_err(|e| write_error(target, e))?;
            Ok(bytes.last().copied())
        }
        LogBytes::File(path) => {
            let read_error = |source| WriteError::Read {
                path: path.to_path_buf(),
                source,
            };
            let mut input = File::open(path).map_err(read_error)?;
            let mut buf = vec![0u8; 1 << 16];
            let mut last = None;
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) => return Ok(last),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(read_error(e)),
                };
                last = Some(buf[n - 1]);
                out.write_all(&buf[..n])
                    .map_err(|e| write_error(target, e))?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"type":"x","seq":9}"#;

    #[test]
    fn jsonl_gets_the_line_newline_terminated() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        for (before, after) in [
            ("a\nb\n", "a\nb\n"),
            // A log without its final newline gets one before the new line.
            ("a\nb", "a\nb\n"),
            ("", ""),
        ] {
            std::fs::write(&log, before).unwrap();
            let out = dir.path().join("out.jsonl");
            write_log_with_line(&out, LogBytes::File(&log), Format::Jsonl, LINE).unwrap();
            let written = std::fs::read_to_string(&out).unwrap();
            assert_eq!(written, format!("{after}{LINE}\n"));
            assert_eq!(
                std::fs::read_to_string(&log).unwrap(),
                before,
                "the log is untouched"
            );
        }
        let out = dir.path().join("mem.jsonl");
        write_log_with_line(&out, LogBytes::Memory(b"m"), Format::Jsonl, LINE).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            format!("m\n{LINE}\n")
        );
    }

    #[test]
    fn zstandard_gets_one_more_frame() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl.zstd");
        let first = zstd::encode_all(&b"a\nb\n"[..], 3).unwrap();
        std::fs::write(&log, &first).unwrap();
        let out = dir.path().join("out.jsonl.zstd");
        write_log_with_line(&out, LogBytes::File(&log), Format::Zstd, LINE).unwrap();
        let written = std::fs::read(&out).unwrap();
        assert_eq!(
            &written[..first.len()],
            &first[..],
            "the log's frames, byte for byte"
        );
        let frame = zstd::decode_all(&written[first.len()..]).unwrap();
        assert_eq!(
            frame,
            format!("{LINE}\n").into_bytes(),
            "one frame, the line"
        );
        let whole = zstd::decode_all(&written[..]).unwrap();
        assert_eq!(whole, format!("a\nb\n{LINE}\n").into_bytes());
    }

    #[test]
    fn refuses_the_log_sqlite_and_a_broken_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        std::fs::write(&log, "a\n").unwrap();
        let err = write_log_with_line(&log, LogBytes::File(&log), Format::Jsonl, LINE);
        assert!(matches!(
            err,
            Err(SaveLogError::Write(WriteError::IsTheLog(_)))
        ));
        let out = dir.path().join("out");
        let err = write_log_with_line(&out, LogBytes::File(&log), Format::Sqlite, LINE);
        assert!(matches!(err, Err(SaveLogError::Unsupported)));
        let err = write_log_with_line(&out, LogBytes::File(&log), Format::Jsonl, "{}\n{}");
        assert!(matches!(err, Err(SaveLogError::NotOneLine)));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a\n");
        assert!(!out.exists());
    }

    #[test]
    fn a_log_that_cannot_be_read_is_named_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("gone.jsonl");
        let out = dir.path().join("out.jsonl");
        let err = write_log_with_line(&out, LogBytes::File(&log), Format::Jsonl, LINE)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cannot read") && err.contains("gone.jsonl"),
            "{err}"
        );
        assert!(!out.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temporary file left"
        );
    }
}
