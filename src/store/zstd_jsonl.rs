//! Zstandard-compressed JSONL (`session.jsonl.zstd`): concatenated frames, decoded frame by
//! frame so that a corrupt or truncated frame costs only itself and what follows.

use super::jsonl::read_jsonl;
use super::progress::LoadProgress;
use crate::engine::{EventLog, LogProblem, ProblemKind};

/// Decodes the frames and reads the JSONL inside. Returns `None` only when cancelled.
pub fn read_zstd_jsonl(bytes: &[u8], progress: Option<&LoadProgress>) -> Option<EventLog> {
    let mut text = Vec::with_capacity(bytes.len() * 4);
    let mut problem = None;
    let mut decoder = match zstd::stream::read::Decoder::new(bytes) {
        Ok(d) => d,
        Err(e) => {
            problem = Some(format!("cannot start Zstandard decoding: {e}"));
            return Some(with_problem(text, problem, progress));
        }
    };
    if let Err(e) = std::io::copy(&mut decoder, &mut text) {
        problem = Some(format!("Zstandard data stops decoding: {e}"));
    }
    Some(with_problem(text, problem, progress))
}

fn with_problem(text: Vec<u8>, problem: Option<String>, progress: Option<&LoadProgress>) -> EventLog {
    let mut log = read_jsonl(text, progress).unwrap_or_default();
    if let Some(message) = problem {
        log.problems.push(LogProblem {
            kind: ProblemKind::CorruptFrame,
            line: None,
            seq: None,
            offset: None,
            message,
        });
    }
    log
}
