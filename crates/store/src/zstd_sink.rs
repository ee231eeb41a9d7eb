//! Where the Zstandard reader's decoded bytes go, held to the [`ReadLimits`] as they stream in:
//! [`Sink`] keeps a whole file's text — at most the total limit decoded, each line within the
//! per-event limit (a longer one is dropped as it streams by, its bytes never all in memory) —
//! and [`Tail`] keeps only the last bytes of one frame (the sessions browser's look at a
//! file's end). Neither is ever sized by what a frame declares.

use super::limits::{ReadLimits, ReadStop};
use surface_engine::LogProblem;

/// Output chunk size for streaming decoding (smaller when the per-event limit is).
pub(super) const CHUNK: usize = 1 << 17;

/// Where decoded bytes go.
pub(super) trait Output {
    /// Takes `chunk` (at most [`Output::chunk_len`] bytes), or says why decoding must stop.
    fn push(&mut self, chunk: &[u8]) -> Result<(), ReadStop>;

    /// The most bytes one [`Output::push`] takes.
    fn chunk_len(&self) -> usize {
        CHUNK
    }
}

/// The decoded text of a whole file, held to the limits as it streams in: at most the total
/// limit is decoded, and a line longer than the per-event limit is dropped as soon as it is
/// (its bytes never all in memory), leaving an empty line in its place and a problem.
pub(super) struct Sink {
    /// The text kept so far.
    pub(super) text: Vec<u8>,
    /// Where the last, unfinished line starts in `text`.
    line_start: usize,
    /// While a too-long line's rest is dropped: its line number and its length so far.
    skipping: Option<(u32, u64)>,
    /// Every byte decoded, kept or dropped.
    decoded: u64,
    total_limit: u64,
    /// The per-event limit; `None` keeps every line (live follow: its parser checks them).
    line_limit: Option<usize>,
    /// The `line.too-long` problems of dropped lines.
    too_long: Vec<LogProblem>,
}

/// What [`Sink::restore`] goes back to: the sink before a frame that then failed.
#[derive(Clone, Copy)]
pub(super) struct SinkMark {
    len: usize,
    line_start: usize,
    skipping: Option<(u32, u64)>,
    too_long: usize,
}

impl Sink {
    pub(super) fn new(limits: &ReadLimits, line_limit: Option<usize>) -> Self {
        Sink {
            text: Vec::new(),
            line_start: 0,
            skipping: None,
            decoded: 0,
            total_limit: limits.total_bytes(),
            line_limit,
            too_long: Vec::new(),
        }
    }

    pub(super) fn mark(&self) -> SinkMark {
        SinkMark {
            len: self.text.len(),
            line_start: self.line_start,
            skipping: self.skipping,
            too_long: self.too_long.len(),
        }
    }

    /// Forgets what was pushed since `mark` (a frame that did not decode).
    pub(super) fn restore(&mut self, mark: SinkMark) {
        self.text.truncate(mark.len);
        self.line_start = mark.line_start;
        self.skipping = mark.skipping;
        self.too_long.truncate(mark.too_long);
    }

    /// Ends the text with a line break, so that what follows starts a new line (a dropped
    /// line's problem is recorded then).
    pub(super) fn end_line(&mut self) {
        if let Some((line, len)) = self.skipping.take() {
            self.note_too_long(line, len);
            self.text.push(b'\n');
        } else if self.text.len() > self.line_start {
            self.text.push(b'\n');
        }
        self.line_start = self.text.len();
    }

    /// The text and the problems of the lines dropped from it (one still being dropped at the
    /// end included).
    pub(super) fn finish(mut self) -> (Vec<u8>, Vec<LogProblem>) {
        if let Some((line, len)) = self.skipping.take() {
            self.note_too_long(line, len);
        }
        (self.text, self.too_long)
    }

    fn note_too_long(&mut self, line: u32, len: u64) {
        let limit = self.line_limit.unwrap_or(usize::MAX) as u64;
        self.too_long
            .push(LogProblem::too_long_line(line, len, limit));
    }

    /// Starts dropping the unfinished line, `len` bytes long so far.
    fn start_skipping(&mut self, len: u64) {
        let line = saturating_u32(
            memchr::memchr_iter(b'\n', &self.text[..self.line_start]).count() as u64 + 1,
        );
        self.text.truncate(self.line_start);
        self.skipping = Some((line, len));
    }
}

impl Output for Sink {
    fn chunk_len(&self) -> usize {
        self.line_limit.map_or(CHUNK, |l| l.clamp(1, CHUNK))
    }

    /// A line lying wholly inside `chunk` is shorter than the chunk, hence within the limit
    /// ([`Output::chunk_len`]): only the line that runs on from earlier chunks and the one left
    /// unfinished at the end can pass it, so the bytes are searched for two line breaks at most.
    fn push(&mut self, chunk: &[u8]) -> Result<(), ReadStop> {
        self.decoded = self.decoded.saturating_add(chunk.len() as u64);
        if self.decoded > self.total_limit {
            return Err(ReadStop::TooLarge {
                limit: self.total_limit,
            });
        }
        let Some(limit) = self.line_limit else {
            self.text.extend_from_slice(chunk);
            return Ok(());
        };
        let mut rest = chunk;
        let open = (self.text.len() - self.line_start) as u64;
        match (self.skipping, memchr::memchr(b'\n', rest)) {
            (Some((line, len)), None) => {
                self.skipping = Some((line, len + rest.len() as u64));
                return Ok(());
            }
            (Some((line, len)), Some(i)) => {
                self.skipping = None;
                self.note_too_long(line, len + i as u64);
                self.text.push(b'\n');
                self.line_start = self.text.len();
                rest = &rest[i + 1..];
            }
            (None, Some(i)) if open + i as u64 > limit as u64 => {
                self.start_skipping(open + i as u64);
                self.end_line();
                rest = &rest[i + 1..];
            }
            (None, None) if open + rest.len() as u64 > limit as u64 => {
                self.start_skipping(open + rest.len() as u64);
                return Ok(());
            }
            (None, _) => {}
        }
        self.text.extend_from_slice(rest);
        if let Some(i) = memchr::memrchr(b'\n', rest) {
            self.line_start = self.text.len() - rest.len() + i + 1;
        }
        Ok(())
    }
}

/// The last `keep` bytes of a frame's text (a few chunks more held at times), and no more than
/// `limit` decoded.
pub(super) struct Tail {
    /// The last bytes decoded.
    pub(super) text: Vec<u8>,
    /// How many of them are wanted.
    pub(super) keep: usize,
    /// Every byte decoded so far.
    pub(super) decoded: u64,
    /// The most bytes that may be decoded.
    pub(super) limit: u64,
}

impl Output for Tail {
    fn push(&mut self, chunk: &[u8]) -> Result<(), ReadStop> {
        self.decoded = self.decoded.saturating_add(chunk.len() as u64);
        if self.decoded > self.limit {
            return Err(ReadStop::TooLarge { limit: self.limit });
        }
        self.text.extend_from_slice(chunk);
        if self.text.len() > 2 * self.keep.max(CHUNK) {
            let from = self.text.len() - self.keep;
            self.text.drain(..from);
        }
        Ok(())
    }
}

/// `n` as a line number: `u32::MAX` past it.
pub(super) fn saturating_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parts` streamed into a sink with a per-line limit of `limit`, a chunk per part.
    fn sunk(parts: &[&str], limit: usize) -> (String, Vec<(Option<u32>, String)>) {
        let mut sink = Sink::new(&ReadLimits::default(), Some(limit));
        for part in parts {
            for chunk in part.as_bytes().chunks(sink.chunk_len()) {
                sink.push(chunk).unwrap();
            }
        }
        let (text, problems) = sink.finish();
        let problems = problems.into_iter().map(|p| (p.line, p.message)).collect();
        (String::from_utf8(text).unwrap(), problems)
    }

    #[test]
    fn lines_past_the_limit_are_dropped_as_they_stream_and_keep_their_place() {
        // Limit 8: chunks of 8 bytes, lines cut anywhere.
        let (text, problems) = sunk(&["ab\n0123456789\ncd\n", "012345678", "9xyz\nef"], 8);
        assert_eq!(text, "ab\n\ncd\n\nef");
        assert_eq!(
            problems.iter().map(|p| p.0).collect::<Vec<_>>(),
            [Some(2), Some(4)]
        );
        assert!(
            problems[0].1.contains("line of 10 bytes"),
            "{}",
            problems[0].1
        );
        assert!(
            problems[1].1.contains("line of 13 bytes"),
            "{}",
            problems[1].1
        );
        // A line exactly at the limit stays; one byte more does not.
        let (text, problems) = sunk(&["12345678\n123456789\n"], 8);
        assert_eq!((text.as_str(), problems.len()), ("12345678\n\n", 1));
        // An unfinished last line past the limit is dropped, its problem recorded at the end.
        let (text, problems) = sunk(&["ok\n", "0123456789abcdef"], 8);
        assert_eq!(text, "ok\n");
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].1.contains("line of 16 bytes"),
            "{}",
            problems[0].1
        );
    }
}
