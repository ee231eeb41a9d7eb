//! What the reader left unread: the lines, rows and frames every command names when it skips
//! them (docs/check.md#what-a-command-did-not-read), so no output reads as the whole log when it
//! is not.

use serde::Serialize;

use crate::{EventLog, LogProblem, ProblemKind};

/// One record the reader skipped, as every command's `--json` lists it under `"skipped"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The 1-based line of a JSONL log (a decompressed line for Zstandard); `null` for rows.
    pub line: Option<u32>,
    /// The seq of a SQLite row, when the row had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The byte offset of a corrupt Zstandard frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The record's length, when the reader measured it (always for one past the limit).
    pub bytes: Option<u64>,
    /// Why: `too-long` (past the per-event limit), `not-an-event` (a line or row that does not
    /// read as an event: corrupt, or torn at the end of a file being written) or
    /// `corrupt-frame` (a Zstandard frame that does not decode).
    pub reason: &'static str,
    /// The reader's sentence, naming the limit where one was passed.
    pub message: String,
}

/// The records `log`'s reader skipped, in file order.
pub fn skipped(log: &EventLog) -> Vec<Skipped> {
    log.problems.iter().filter_map(skipped_of).collect()
}

fn skipped_of(p: &LogProblem) -> Option<Skipped> {
    let reason = match p.kind {
        ProblemKind::TooLong => "too-long",
        ProblemKind::BadRecord => "not-an-event",
        ProblemKind::CorruptFrame => "corrupt-frame",
        // The header's problems and a malformed provenance leave every event read.
        ProblemKind::HeaderMissing
        | ProblemKind::HeaderVersion
        | ProblemKind::BadProvenance
        | ProblemKind::LineCountOverflow => return None,
    };
    Some(Skipped {
        line: p.line,
        seq: p.seq,
        offset: p.offset,
        bytes: p.bytes,
        reason,
        message: p.message.clone(),
    })
}

/// The one warning line a command prints on stderr when its reader skipped something, naming
/// the file, the first record and its reason (with the limit), and how many in all. `None` when
/// nothing was skipped.
pub fn skipped_warning(file: &str, skipped: &[Skipped]) -> Option<String> {
    let first = skipped.first()?;
    let more = match skipped.len() {
        1 => String::new(),
        n => format!(" (and {} more; `check` lists them)", n - 1),
    };
    Some(format!(
        "{file}: {} not read; {} {}: {}{more}",
        records(skipped.len()),
        where_of(first),
        first.reason,
        first.message
    ))
}

fn records(n: usize) -> String {
    match n {
        1 => "1 record".to_string(),
        n => format!("{n} records"),
    }
}

fn where_of(s: &Skipped) -> String {
    match (s.line, s.seq, s.offset) {
        (Some(line), _, _) => format!("line {line}"),
        (None, Some(seq), _) => format!("the row of seq {seq}"),
        (None, None, Some(offset)) => format!("the frame at byte {offset}"),
        (None, None, None) => "a row".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(problems: Vec<LogProblem>) -> EventLog {
        let batch = crate::EventBatch {
            problems,
            ..Default::default()
        };
        EventLog::new(None, Vec::new(), batch)
    }

    #[test]
    fn a_line_past_the_limit_is_listed_with_its_length_and_the_limit() {
        let log = log_with(vec![LogProblem::too_long_line(2, 3_000_000_000, 512 << 20)]);
        let s = skipped(&log);
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].line, s[0].bytes, s[0].reason),
            (Some(2), Some(3_000_000_000), "too-long")
        );
        let warning = skipped_warning("big.jsonl.zst", &s).unwrap();
        assert!(
            warning.starts_with("big.jsonl.zst: 1 record not read; line 2 too-long:"),
            "{warning}"
        );
        assert!(warning.contains("512 MiB"), "{warning}");
    }

    #[test]
    fn header_and_provenance_problems_skip_nothing() {
        let mut header = LogProblem::bad_line(1, "no header");
        header.kind = ProblemKind::HeaderMissing;
        let log = log_with(vec![header]);
        assert!(skipped(&log).is_empty());
        assert_eq!(skipped_warning("a.jsonl", &[]), None);
    }

    #[test]
    fn several_are_counted_and_the_first_is_named() {
        let log = log_with(vec![
            LogProblem::bad_line(4, "not JSON"),
            LogProblem::bad_row(9, "no type"),
        ]);
        let warning = skipped_warning("a.db", &skipped(&log)).unwrap();
        assert_eq!(
            warning,
            "a.db: 2 records not read; line 4 not-an-event: not JSON (and 1 more; `check` lists them)"
        );
    }
}
