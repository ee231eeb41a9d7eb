//! The overflow code (`audit::OVERFLOW_CODE`) searched for behind the line reader, a window of
//! lines at a time while their bytes are still in the core's cache: the passes that watch for
//! an overflow then start from the offsets found ([`surface_engine::EventLog::overflow_code_found`])
//! instead of sweeping the whole text again, a read of the file from memory (on a 210 MiB log
//! some 20 ms of one core).
//!
//! A window ends just after a newline (or where the range ends), and the code holds no
//! newline, so no occurrence straddles two windows: the windows together find every
//! occurrence one sweep of the range would.

use memchr::memmem;
use surface_engine::audit::OVERFLOW_CODE;

/// Bytes read before the lines behind them are searched: well within a core's L2 cache, so the
/// search reads what the parse has just brought in.
const WINDOW: usize = 128 << 10;

/// The search behind one reader's range of lines.
pub(crate) struct CodeSearch {
    finder: memmem::Finder<'static>,
    /// Where the bytes not yet searched start.
    searched_to: usize,
    /// Offsets found so far, ascending.
    found: Vec<u64>,
}

impl CodeSearch {
    /// A search of a range that starts at `from`.
    pub(crate) fn new(from: usize) -> Self {
        CodeSearch {
            finder: memmem::Finder::new(OVERFLOW_CODE.as_bytes()),
            searched_to: from,
            found: Vec::new(),
        }
    }

    /// The reader has read `bytes` up to `read_to` (just after a newline, or the range's end):
    /// the lines behind it are searched once a window of them has gathered.
    pub(crate) fn read_to(&mut self, bytes: &[u8], read_to: usize) {
        if read_to - self.searched_to >= WINDOW {
            self.search(bytes, read_to);
        }
    }

    /// The offsets of every occurrence in the range, which ends at `to`.
    pub(crate) fn finish(mut self, bytes: &[u8], to: usize) -> Vec<u64> {
        self.search(bytes, to);
        self.found
    }

    fn search(&mut self, bytes: &[u8], to: usize) {
        let from = self.searched_to;
        if let Some(window) = bytes.get(from..to) {
            self.found
                .extend(self.finder.find_iter(window).map(|at| (from + at) as u64));
        }
        self.searched_to = to.max(from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of filler, some holding the code, some more than a window apart.
    fn text() -> Vec<u8> {
        let mut text = Vec::new();
        for k in 0..40_000 {
            if k % 997 == 3 {
                text.extend_from_slice(
                    format!(r#"{{"code":"{OVERFLOW_CODE}","k":{k}}}"#).as_bytes(),
                );
            } else {
                text.extend_from_slice(
                    format!(r#"{{"filler":"CONTEXT_WINDOW","k":{k}}}"#).as_bytes(),
                );
            }
            text.push(b'\n');
        }
        text
    }

    /// Searching behind the lines, window by window, finds what one sweep of the range finds.
    #[test]
    fn the_windows_find_what_one_sweep_finds() {
        let text = text();
        for from in [0, text.len() / 3] {
            // `from` just after a newline, as a reader's range starts.
            let from = if from == 0 {
                0
            } else {
                from + memchr::memchr(b'\n', &text[from..]).unwrap() + 1
            };
            let mut search = CodeSearch::new(from);
            let mut at = from;
            while let Some(nl) = memchr::memchr(b'\n', &text[at..]) {
                at += nl + 1;
                search.read_to(&text, at);
            }
            let found = search.finish(&text, text.len());
            let swept: Vec<u64> = memmem::find_iter(&text[from..], OVERFLOW_CODE.as_bytes())
                .map(|at| (from + at) as u64)
                .collect();
            assert!(swept.len() > 10, "the text holds the code");
            assert_eq!(found, swept);
        }
    }
}
