//! Some lines of shared bytes copied into memory the process owns: the lines the passes after a
//! first read still need (a log's messages, calls and results — a quarter of a streamed log's
//! bytes), so that the shared bytes (a mapped file) can be let go for good and a later read of
//! those lines touches only the copy ([`crate::TextArena::keep`]). The copy is a few long runs
//! of neighbouring lines, found by a binary search.

use std::ops::Range;

/// Neighbouring ranges closer than this are copied as one run, with the bytes between them
/// (a newline, a short line nobody asked for).
const JOIN_GAP: usize = 64;

/// How far the copy goes between two reports of what it has gone past.
const COPIED_STEP: usize = 8 << 20;

/// The copied runs and their bytes.
#[derive(Debug, Default)]
pub struct KeptLines {
    /// Every run's bytes, one after the other.
    bytes: Vec<u8>,
    /// The runs by their start in the shared bytes, in order and disjoint.
    runs: Vec<Run>,
}

/// One run: `start..end` of the shared bytes, copied at `at` in [`KeptLines::bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    end: usize,
    at: usize,
}

/// One half of a copy, for the caller's `join` to run (on a thread of its own when it has one).
pub type CopyHalf<'a> = Box<dyn FnOnce() + Send + 'a>;

impl KeptLines {
    /// Copies `ranges` of `source` (in increasing order; ranges past its end are cut at it),
    /// joining neighbours closer than [`JOIN_GAP`]. `copied` is told each stretch of the source
    /// the copy has gone past, about every [`COPIED_STEP`] bytes and at the end — so that the
    /// caller can let go of what is behind the copy while it runs. The copy is made in two
    /// halves of about equal size that `join` runs: most of a long copy's time is the kernel
    /// handing out the fresh pages it writes to, which two threads do twice as fast. Each
    /// half tells `copied` of its own stretches, in order.
    pub fn copy(
        source: &[u8],
        ranges: impl IntoIterator<Item = Range<usize>>,
        copied: impl Fn(Range<usize>) + Sync,
        join: impl FnOnce(CopyHalf<'_>, CopyHalf<'_>),
    ) -> KeptLines {
        let (runs, len) = plan(source.len(), ranges);
        let mut bytes = vec![0; len];
        let middle = runs.partition_point(|run| run.at < len / 2);
        let (first, second) = runs.split_at(middle);
        let (split, from) = second
            .first()
            .map_or((len, source.len()), |run| (run.at, run.start));
        let (head, tail) = bytes.split_at_mut(split);
        let copied = &copied;
        join(
            Box::new(move || copy_runs(source, first, head, 0..from, copied)),
            Box::new(move || copy_runs(source, second, tail, from..source.len(), copied)),
        );
        KeptLines { bytes, runs }
    }

    /// The copied bytes of `range` of the source, when one run holds all of it.
    pub fn get(&self, range: Range<usize>) -> Option<&[u8]> {
        let after = self.runs.partition_point(|run| run.start <= range.start);
        let run = self.runs.get(after.checked_sub(1)?)?;
        if range.end > run.end || range.start > range.end {
            return None;
        }
        let from = run.at + (range.start - run.start);
        self.bytes.get(from..from + (range.end - range.start))
    }

    /// The bytes copied.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// The runs `ranges` join into, and the bytes they hold.
fn plan(source_len: usize, ranges: impl IntoIterator<Item = Range<usize>>) -> (Vec<Run>, usize) {
    let mut runs: Vec<Run> = Vec::new();
    let mut len = 0;
    for r in ranges {
        let end = r.end.min(source_len);
        if r.start >= end {
            continue;
        }
        match runs.last_mut() {
            // In the last run or closer to its end than JOIN_GAP: the run grows over it.
            Some(last) if r.start >= last.start && r.start < last.end + JOIN_GAP => {
                if end > last.end {
                    len += end - last.end;
                    last.end = end;
                }
            }
            // Before the last run (out of order): not copied; it reads from the source.
            Some(last) if r.start < last.start => {}
            _ => {
                runs.push(Run {
                    start: r.start,
                    end,
                    at: len,
                });
                len += end - r.start;
            }
        }
    }
    (runs, len)
}

/// Copies `runs` into `into` (which begins at the first run's `at`), telling `copied` of the
/// stretches of `span` (the source the runs lie in) behind the copy as it goes, and of the
/// rest of `span` at the end.
fn copy_runs(
    source: &[u8],
    runs: &[Run],
    into: &mut [u8],
    span: Range<usize>,
    copied: &impl Fn(Range<usize>),
) {
    let base = runs.first().map_or(0, |run| run.at);
    let mut told = span.start;
    for run in runs {
        let at = run.at - base;
        into[at..at + (run.end - run.start)].copy_from_slice(&source[run.start..run.end]);
        if run.end - told >= COPIED_STEP {
            copied(told..run.end);
            told = run.end;
        }
    }
    copied(told..span.end);
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &[u8] = b"line0\nline1\nline2\n0123456789012345678901234567890123456789012345678901234567890123456789\nline4\n";

    #[test]
    fn a_kept_range_reads_as_the_source_and_others_are_not_kept() {
        // line0 and line1 join (one newline apart); line4 is past the long line: a run of its own.
        let kept = KeptLines::copy(SOURCE, [0..5, 6..11, 89..94], |_| {}, in_turn);
        assert_eq!(kept.runs.len(), 2);
        assert_eq!(kept.len(), 11 + 5);
        for r in [0..5, 6..11, 2..9, 89..94, 90..92, 0..0] {
            assert_eq!(kept.get(r.clone()), Some(&SOURCE[r.clone()]), "{r:?}");
        }
        // line2, the long line, and ranges running out of a run are not in the copy.
        for r in [12..17, 18..88, 9..13, 88..90, 93..200] {
            assert_eq!(kept.get(r.clone()), None, "{r:?}");
        }
    }

    #[test]
    fn ranges_past_the_end_or_out_of_order_never_panic() {
        let kept = KeptLines::copy(
            SOURCE,
            [6..11, 0..5, 90..500, 400..410, 5..5],
            |_| {},
            in_turn,
        );
        assert_eq!(kept.get(6..11), Some(&b"line1"[..]));
        assert_eq!(kept.get(0..5), None, "before the run it came after");
        assert_eq!(kept.get(90..SOURCE.len()), Some(&SOURCE[90..]));
        let (from, to) = (11, 6);
        assert_eq!(
            kept.get(from..to),
            None,
            "a range that ends before it starts"
        );
        assert_eq!(KeptLines::copy(SOURCE, [], |_| {}, in_turn).len(), 0);
        assert_eq!(KeptLines::default().get(0..1), None);
    }

    /// The halves one after the other, on this thread.
    fn in_turn(first: CopyHalf<'_>, second: CopyHalf<'_>) {
        first();
        second();
    }

    /// The halves on two threads.
    fn on_two_threads(first: CopyHalf<'_>, second: CopyHalf<'_>) {
        std::thread::scope(|scope| {
            scope.spawn(second);
            first();
        });
    }

    #[test]
    fn what_the_copy_went_past_is_told_in_order_to_the_end() {
        let source = vec![b'x'; 3 * COPIED_STEP + 10];
        let lines = || (0..source.len()).step_by(4096).map(|s| s..s + 100);
        let told = std::sync::Mutex::new(Vec::new());
        let tell = |r| told.lock().unwrap().push(r);
        let kept = KeptLines::copy(&source, lines(), tell, in_turn);
        let told = told.into_inner().unwrap();
        assert_eq!(told.first().map(|r| r.start), Some(0));
        assert_eq!(told.last().map(|r| r.end), Some(source.len()));
        assert!(told.windows(2).all(|w| w[0].end == w[1].start));
        assert!(told.len() >= 3, "{told:?}");
        assert_eq!(kept.get(4096..4196), Some(&source[4096..4196]));
        // On two threads the halves tell their stretches in any order, but together they
        // cover the source once, and the copy is the same.
        let told = std::sync::Mutex::new(Vec::new());
        let tell = |r| told.lock().unwrap().push(r);
        let threaded = KeptLines::copy(&source, lines(), tell, on_two_threads);
        let mut told = told.into_inner().unwrap();
        told.sort_by_key(|r| r.start);
        assert_eq!(told.first().map(|r| r.start), Some(0));
        assert_eq!(told.last().map(|r| r.end), Some(source.len()));
        assert!(told.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(threaded.bytes, kept.bytes);
        assert_eq!(threaded.runs, kept.runs);
    }

    #[test]
    fn both_halves_copy_their_own_runs() {
        let source: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let lines = || (0..source.len()).step_by(97).map(|s| s..s + 30);
        let kept = KeptLines::copy(&source, lines(), |_| {}, on_two_threads);
        assert!(kept.runs.len() > 100);
        for r in lines() {
            let r = r.start..r.end.min(source.len());
            assert_eq!(kept.get(r.clone()), Some(&source[r.clone()]), "{r:?}");
        }
    }
}
