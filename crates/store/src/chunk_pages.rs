//! The pages of a parsed piece of a JSONL file that hold nothing but streamed-chunk lines —
//! what `check` lets go of behind its reader ([`crate::MapFor`]'s `Check`): its passes after
//! the read look at every other event's text, never a chunk's, and on the harness's logs
//! chunk lines are some 85 % of the events and about 40 % of the file's pages are theirs alone.
//!
//! A page is let go only when no line the passes read starts, ends or lies on it, so a page
//! shared with the piece before or after (whose lines this piece does not see) is never let
//! go: offsets are those of a mapping that starts on a page, so a page here is a page of memory.

use std::ops::Range;

use surface_engine::{EventBatch, EventText, EventType};

/// The page size the ranges are cut on.
const PAGE: usize = 4096;

/// Every run of whole pages within `piece` (byte offsets, `batch` parsed from exactly those
/// bytes) that holds no line but a streamed chunk's (`assistant/chunk`, or a packed row of
/// them, whose members are read from the row): the lines of every other event keep their
/// pages. (A line that was not read into an event is reported from what the reader saw, and
/// not read again.) Most runs are one or two pages: chunk lines come in short runs between
/// the lines of the events they stream, so the caller lets them go many at a time.
pub fn chunk_only_pages(batch: &EventBatch, piece: Range<usize>) -> Vec<Range<usize>> {
    let chunk = batch.types.id_of(EventType::AssistantChunk);
    let mut runs = Vec::new();
    // Where the bytes not yet known to be kept start.
    let mut from = piece.start;
    let mut kept = |start: usize, end: usize, runs: &mut Vec<Range<usize>>| {
        let first = from.next_multiple_of(PAGE);
        let last = start / PAGE * PAGE;
        if last > first {
            runs.push(first..last);
        }
        from = from.max(end);
    };
    for record in &batch.events {
        if let EventText::Line { start, len } = record.text()
            && Some(record.kind) != chunk
        {
            kept(start as usize, start as usize + len as usize, &mut runs);
        }
    }
    kept(piece.end, piece.end, &mut runs);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::{NewEvent, SurfaceOp};

    /// A batch of lines at `(start, len, type)`.
    fn batch(lines: &[(usize, u32, &str)]) -> EventBatch {
        let mut b = EventBatch::default();
        for (k, &(start, len, type_name)) in lines.iter().enumerate() {
            b.push(NewEvent {
                seq: k as u64 + 1,
                time: None,
                type_name,
                op: SurfaceOp::None,
                sources: None,
                line: k as u32 + 1,
                text: EventText::Line {
                    start: start as u64,
                    len,
                },
                plain: true,
            });
        }
        b
    }

    const CHUNK: &str = "assistant/chunk";

    #[test]
    fn whole_pages_between_kept_lines_are_let_go() {
        // A message line, 200 chunk lines of 200 bytes, a message line.
        let mut lines = vec![(0, 99, "turn/start")];
        lines.extend((0..200).map(|k| (100 + k * 200, 199, CHUNK)));
        lines.push((40_100, 99, "assistant/message"));
        let runs = chunk_only_pages(&batch(&lines), 0..40_200);
        // Page 0 holds the first line, page 9 (36,864–40,959) the last.
        assert_eq!(runs, vec![PAGE..9 * PAGE]);
    }

    #[test]
    fn pages_shared_with_the_next_piece_or_a_kept_line_stay() {
        let lines: Vec<_> = (0..200).map(|k| (k * 300, 299, CHUNK)).collect();
        // The piece starts and ends off a page: only the pages wholly inside it go.
        let runs = chunk_only_pages(&batch(&lines), 10..60_000 - 10);
        assert_eq!(runs, vec![PAGE..14 * PAGE]);
        // A kept line in the middle keeps the pages it touches; a run may be one page.
        let mut lines = lines;
        lines[100] = (30_000, 299, "tool/result");
        let runs = chunk_only_pages(&batch(&lines), 0..60_000);
        assert_eq!(runs, vec![0..7 * PAGE, 8 * PAGE..14 * PAGE]);
        let short: Vec<_> = [(0, 99, "a"), (100, 99, CHUNK), (2 * PAGE, 10, "b")].to_vec();
        assert_eq!(
            chunk_only_pages(&batch(&short), 0..3 * PAGE),
            vec![PAGE..2 * PAGE]
        );
        let none: Vec<_> = [(0, 99, "a"), (100, 99, CHUNK), (PAGE + 5, 10, "b")].to_vec();
        assert_eq!(chunk_only_pages(&batch(&none), 0..2 * PAGE + 100), vec![]);
    }

    #[test]
    fn no_chunk_type_lets_nothing_go_and_no_lines_let_the_piece_go() {
        let lines: Vec<_> = (0..100).map(|k| (k * 300, 299, "tool/result")).collect();
        assert!(chunk_only_pages(&batch(&lines), 0..30_000).is_empty());
        assert_eq!(
            chunk_only_pages(&EventBatch::default(), 0..8 * PAGE),
            vec![0..8 * PAGE]
        );
    }
}
