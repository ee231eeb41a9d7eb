//! Saving a copy of a log with one more event line appended, in the log's own format — JSONL:
//! the line newline-terminated after the log's bytes (a missing final newline added first);
//! Zstandard: one more frame holding the line — written atomically as a new file
//! ([`crate::write_file_safely`]'s rule: never over the log or its session, never over a session
//! log, an existing file only when told, the user's default mode).
//! The log is streamed into the new file, never held whole in memory. And the same log as it
//! would read back, in memory ([`log_with_line`]): what `check` is run on before saving.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::Path;

use surface_engine::{EventLog, EventText, NewEvent, SurfaceOp};

use crate::Format;
use crate::envelope::{
    Envelope, parse_integer, parse_non_negative, parse_sources, parse_surface_op,
};
use crate::envelope_scan::scan_envelope;
use crate::write_safely::{WriteError, WriteTarget, write_error, write_safely_with};

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

/// Why an event line cannot be appended to a log in memory.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LineError {
    /// The line spans several lines.
    #[error("the event line holds a line break")]
    NotOneLine,
    /// The line is not one JSON event (the reader's words).
    #[error("the event line is not a JSON event: {0}")]
    NotAnEvent(String),
    /// The line has no non-negative integer `seq`.
    #[error("the event line has no non-negative integer seq")]
    NoSeq,
    /// `sourceEventSeqs` is not a list of seqs.
    #[error("the event line's sourceEventSeqs: {0}")]
    BadSources(String),
}

/// `log` as it reads once `line` is appended to its file: a copy of the log (its text shared,
/// not copied, when it is mapped) with the event appended, read as the JSONL reader reads a
/// line (envelope, seq, time, `surfaceOp`, `sourceEventSeqs`), on the line after the log's
/// last event.
pub fn log_with_line(log: &EventLog, line: &str) -> Result<EventLog, LineError> {
    if line.contains(['\n', '\r']) {
        return Err(LineError::NotOneLine);
    }
    let env = match scan_envelope(line) {
        Some(env) => env,
        None => Envelope::from_json(line).map_err(|e| LineError::NotAnEvent(e.to_string()))?,
    };
    let seq = env
        .seq
        .and_then(parse_non_negative)
        .ok_or(LineError::NoSeq)?;
    let mut sources = Vec::new();
    let has_sources = match env.sources {
        Some(text) => parse_sources(text, &mut sources).map_err(LineError::BadSources)?,
        None => false,
    };
    let line_number = log
        .indices()
        .next_back()
        .map_or(1, |last| log.event(last).line.saturating_add(1));
    let mut copy = log.clone();
    copy.push_synthesized(
        NewEvent {
            seq,
            time: env.time.and_then(parse_integer),
            type_name: &env.type_name,
            op: env.surface_op.map_or(SurfaceOp::None, parse_surface_op),
            sources: has_sources.then_some(sources.as_slice()),
            line: line_number,
            // Set by `push_synthesized`: the text is the line itself, held beside the log's.
            text: EventText::Synthesized(0),
            plain: env.plain,
        },
        line.to_string(),
    );
    Ok(copy)
}

/// Writes to `target` a copy of `log` (in `format`) with `line` appended as one more event,
/// atomically, under [`WriteTarget::check`]'s rule (the log file under any spelling of its
/// path, a session log, an existing file unless `replace`).
pub fn write_log_with_line(
    target: &Path,
    replace: bool,
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
    let rule = WriteTarget::new(target, log_path).replacing(replace);
    write_safely_with(&rule, |out| {
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
    use surface_engine::{Surface, check};

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
            write_log_with_line(&out, true, LogBytes::File(&log), Format::Jsonl, LINE).unwrap();
            let written = std::fs::read_to_string(&out).unwrap();
            assert_eq!(written, format!("{after}{LINE}\n"));
            assert_eq!(
                std::fs::read_to_string(&log).unwrap(),
                before,
                "the log is untouched"
            );
        }
        let out = dir.path().join("mem.jsonl");
        write_log_with_line(&out, false, LogBytes::Memory(b"m"), Format::Jsonl, LINE).unwrap();
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
        write_log_with_line(&out, false, LogBytes::File(&log), Format::Zstd, LINE).unwrap();
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
        let err = write_log_with_line(&log, false, LogBytes::File(&log), Format::Jsonl, LINE);
        assert!(matches!(
            err,
            Err(SaveLogError::Write(WriteError::IsTheLog(_)))
        ));
        let out = dir.path().join("out");
        let err = write_log_with_line(&out, false, LogBytes::File(&log), Format::Sqlite, LINE);
        assert!(matches!(err, Err(SaveLogError::Unsupported)));
        let err = write_log_with_line(&out, false, LogBytes::File(&log), Format::Jsonl, "{}\n{}");
        assert!(matches!(err, Err(SaveLogError::NotOneLine)));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a\n");
        assert!(!out.exists());
    }

    #[test]
    fn a_log_that_cannot_be_read_is_named_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("gone.jsonl");
        let out = dir.path().join("out.jsonl");
        let err = write_log_with_line(&out, false, LogBytes::File(&log), Format::Jsonl, LINE)
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

    #[test]
    fn the_log_in_memory_reads_the_line_as_the_file_would() {
        let text = concat!(
            r#"{"type":"session","version":0,"id":"t","createdAt":1}"#,
            "\n",
            r#"{"type":"user/message","seq":0,"time":5,"data":{"content":[{"type":"text","text":"a"}]},"surfaceOp":"append"}"#,
            "\n",
            r#"{"type":"user/message","seq":1,"time":6,"data":{"content":[{"type":"text","text":"b"}]},"surfaceOp":"append"}"#,
            "\n",
        );
        let log = crate::read_jsonl(text.as_bytes().to_vec(), None).unwrap();
        let line = r#"{"type":"compaction/summary","seq":2,"time":7,"data":{"summary":"s"},"surfaceOp":{"op":"replace","start":0,"end":1},"sourceEventSeqs":[0,1]}"#;
        let copy = log_with_line(&log, line).unwrap();
        assert_eq!(log.len(), 2, "the log itself is unchanged");
        // The file the line would make, read back from its bytes.
        let file = crate::read_jsonl(format!("{text}{line}\n").into_bytes(), None).unwrap();
        assert_eq!(copy.len(), file.len());
        let last = copy.indices().next_back().unwrap();
        let read = file.indices().next_back().unwrap();
        assert_eq!(copy.event(last).seq, file.event(read).seq);
        assert_eq!(copy.event(last).line, file.event(read).line);
        assert_eq!(copy.op(last), file.op(read));
        assert_eq!(copy.sources(last), file.sources(read));
        assert_eq!(copy.event_json(last), file.event_json(read));
        // And check says the same about both.
        let findings = |l: &EventLog| check(l, &Surface::at_end(l));
        assert_eq!(findings(&copy), findings(&file));
    }

    #[test]
    fn a_line_that_is_no_event_is_refused() {
        let log = EventLog::default();
        assert_eq!(
            log_with_line(&log, "{}\n{}").unwrap_err(),
            LineError::NotOneLine
        );
        assert!(matches!(
            log_with_line(&log, "nope"),
            Err(LineError::NotAnEvent(_))
        ));
        assert_eq!(
            log_with_line(&log, r#"{"type":"x"}"#).unwrap_err(),
            LineError::NoSeq
        );
        assert!(matches!(
            log_with_line(&log, r#"{"type":"x","seq":1,"sourceEventSeqs":"a"}"#),
            Err(LineError::BadSources(_))
        ));
        assert_eq!(
            log_with_line(&log, r#"{"type":"x","seq":1}"#)
                .unwrap()
                .len(),
            1
        );
    }
}
