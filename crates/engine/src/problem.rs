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
            message: message.into(),
        }
    }

    /// A bad SQLite row, identified by its seq.
    pub fn bad_row(seq: u64, message: impl Into<String>) -> Self {
        LogProblem {
            kind: ProblemKind::BadRecord,
            line: None,
            seq: Some(seq),
            offset: None,
            message: message.into(),
        }
    }
}
