//! Problems met while reading a log, before they are classified into findings.

/// What kind of reading problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// The first line is not a session header.
    HeaderMissing,
    /// The header's version is neither 0 nor 1.
    HeaderVersion,
    /// A line (or SQLite row) that is not an event; torn tail or not is decided by position.
    BadRecord,
    /// A complete Zstandard frame that does not decode.
    CorruptFrame,
    /// A `sourceEventSeqs` that is not a list of non-negative integers (the event is kept
    /// without provenance).
    BadProvenance,
    /// A line (JSONL), packed row or SQLite row longer than the reader's per-event limit
    /// (512 MiB by default): skipped unread, the rest of the file is read.
    TooLong,
    /// A file of more lines than a `u32` numbers: the lines past `u32::MAX` are read, and the
    /// findings about them all say line `u32::MAX`.
    LineCountOverflow,
}

/// One reading problem, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogProblem {
    /// Kind.
    pub kind: ProblemKind,
    /// 1-based line (JSONL).
    pub line: Option<u32>,
    /// The seq the problem is about (SQLite rows), if known.
    pub seq: Option<u64>,
    /// Byte offset in the file (Zstandard frames), if meaningful.
    pub offset: Option<u64>,
    /// The record's length in bytes, when the reader measured it (a line or row past the
    /// per-event limit).
    pub bytes: Option<u64>,
    /// What went wrong, as a sentence.
    pub message: String,
}

impl LogProblem {
    /// A bad JSONL line.
    pub fn bad_line(line: u32, message: impl Into<String>) -> Self {
        LogProblem {
            kind: ProblemKind::BadRecord,
            line: Some(line),
            seq: None,
            offset: None,
            bytes: None,
            message: message.into(),
        }
    }

    /// A line of `len` bytes, longer than `limit`, skipped.
    pub fn too_long_line(line: u32, len: u64, limit: u64) -> Self {
        LogProblem {
            kind: ProblemKind::TooLong,
            line: Some(line),
            seq: None,
            offset: None,
            bytes: Some(len),
            message: too_long_message("line", Some(len), limit),
        }
    }

    /// A SQLite row of `len` bytes (`None`: not counted past the limit), longer than `limit`,
    /// identified by its seq, skipped.
    pub fn too_long_row(seq: u64, len: Option<u64>, limit: u64) -> Self {
        LogProblem {
            kind: ProblemKind::TooLong,
            line: None,
            seq: Some(seq),
            offset: None,
            bytes: len,
            message: too_long_message("row", len, limit),
        }
    }

    /// A bad SQLite row, identified by its seq.
    pub fn bad_row(seq: u64, message: impl Into<String>) -> Self {
        LogProblem {
            kind: ProblemKind::BadRecord,
            line: None,
            seq: Some(seq),
            offset: None,
            bytes: None,
            message: message.into(),
        }
    }
}

/// "line of N bytes is longer than the per-event limit of M bytes (…); skipped".
fn too_long_message(what: &str, len: Option<u64>, limit: u64) -> String {
    let what = match len {
        Some(len) => format!("{what} of {len} bytes"),
        None => what.to_string(),
    };
    let human = if limit >= 1 << 10 {
        format!(" ({})", human_bytes(limit))
    } else {
        String::new()
    };
    format!(
        "{what} is longer than the per-event limit of {limit} bytes{human}; skipped, the rest of the file is read"
    )
}

/// `512 MiB`, `16 GiB`, `1000 bytes`: a byte count in the largest binary unit it fills
/// exactly, else with one decimal.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if n >= 1 << shift {
            return if n.is_multiple_of(1 << shift) {
                format!("{} {unit}", n >> shift)
            } else {
                format!("{:.1} {unit}", n as f64 / (1u64 << shift) as f64)
            };
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_read_in_binary_units() {
        assert_eq!(human_bytes(512 << 20), "512 MiB");
        assert_eq!(human_bytes(16 << 30), "16 GiB");
        assert_eq!(human_bytes(1536 << 20), "1.5 GiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
        assert_eq!(human_bytes(3 << 40), "3 TiB");
    }

    #[test]
    fn a_too_long_line_names_its_line_and_the_limit() {
        let p = LogProblem::too_long_line(7, 600 << 20, 512 << 20);
        assert_eq!(p.kind, ProblemKind::TooLong);
        assert_eq!(p.line, Some(7));
        assert!(
            p.message.contains("line of 629145600 bytes"),
            "{}",
            p.message
        );
        assert!(
            p.message.contains("536870912 bytes (512 MiB)"),
            "{}",
            p.message
        );
    }
}
