//! Joining the JSONL reader's chunk batches in file order: the tables are moved over on the
//! calling thread, and the records — the bulk, 40 bytes per event — are copied into their
//! final places and remapped on the current rayon pool, a share per thread, each freeing the
//! chunks it copied.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use surface_engine::{BatchRemap, EventBatch, EventRecord};

/// One chunk's records and how they change in the joined batch.
type Chunk = (Vec<EventRecord>, BatchRemap);

/// Where a chunk's records go, and the chunk.
type CopyJob<'a> = (&'a mut [MaybeUninit<EventRecord>], Chunk);

/// Joins chunk batches (each numbered from line 1, with its line count) in file order into the
/// first one; line numbers start at `first_line` (1-based; 0 reads as 1) and saturate at
/// `u32::MAX`.
pub fn merge_in_order(parts: Vec<(EventBatch, u32)>, first_line: u32) -> EventBatch {
    let events: usize = parts.iter().map(|(b, _)| b.events.len()).sum();
    let sources: usize = parts.iter().map(|(b, _)| b.sources.len()).sum();
    let mut parts = parts.into_iter();
    let Some((mut out, first_lines)) = parts.next() else {
        return EventBatch::default();
    };
    // Chunk 0 was numbered from 1 too.
    let shift = first_line.saturating_sub(1);
    if shift > 0 {
        for e in &mut out.events {
            e.line = e.line.saturating_add(shift);
        }
        for l in out.problems.iter_mut().filter_map(|p| p.line.as_mut()) {
            *l = l.saturating_add(shift);
        }
    }
    out.sources.reserve_exact(sources - out.sources.len());
    let mut line_base = shift.saturating_add(first_lines);
    let mut later: Vec<Chunk> = Vec::new();
    for (mut part, lines) in parts {
        let remap = out.append_tables(&mut part, line_base);
        line_base = line_base.saturating_add(lines);
        later.push((std::mem::take(&mut part.events), remap));
    }
    out.events.reserve_exact(events - out.events.len());
    let written = copy_in_parallel(out.events.spare_capacity_mut(), later);
    debug_assert_eq!(out.events.len() + written, events);
    // SAFETY: `copy_in_parallel` wrote the first `written` slots of the spare capacity (it
    // returns only after every share is copied; a panic in any propagates before this line).
    unsafe { out.events.set_len(out.events.len() + written) };
    out
}

/// Writes each chunk's records, remapped, one chunk after the other from the start of
/// `spare`: the chunks are shared out, in runs of about equal size, between the threads of the
/// current pool. Returns how many records were written.
fn copy_in_parallel(spare: &mut [MaybeUninit<EventRecord>], chunks: Vec<Chunk>) -> usize {
    let total: usize = chunks.iter().map(|(e, _)| e.len()).sum();
    let shares = rayon::current_num_threads().clamp(1, chunks.len().max(1));
    // Cut the destination at chunk boundaries into `shares` runs of about equal size: a chunk
    // goes to the share its middle falls in.
    let mut jobs: Vec<Vec<CopyJob<'_>>> = (0..shares).map(|_| Vec::new()).collect();
    let mut rest = &mut spare[..total];
    let mut done = 0;
    for chunk in chunks {
        let (dst, tail) = rest.split_at_mut(chunk.0.len());
        rest = tail;
        let share = ((done + chunk.0.len() / 2) * shares / total.max(1)).min(shares - 1);
        done += chunk.0.len();
        jobs[share].push((dst, chunk));
    }
    jobs.into_par_iter().for_each(|jobs| {
        for (dst, (records, remap)) in jobs {
            for (slot, &e) in dst.iter_mut().zip(&records) {
                slot.write(remap.record(e));
            }
            // Freed here, on the thread that copied it.
            drop(records);
        }
    });
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::{EventText, NewEvent, SurfaceOp};

    fn batch(types: &[&str], first_seq: u64, sources: bool) -> (EventBatch, u32) {
        let mut b = EventBatch::default();
        for (k, t) in types.iter().enumerate() {
            let list = [first_seq];
            b.push(NewEvent {
                seq: first_seq + k as u64,
                time: Some(k as i64),
                type_name: t,
                op: if k == 0 {
                    SurfaceOp::Replace { start: 1, end: 2 }
                } else {
                    SurfaceOp::Append
                },
                sources: sources.then_some(&list[..]),
                line: k as u32 + 1,
                text: EventText::Line {
                    start: first_seq * 100 + k as u64,
                    len: 3,
                },
                plain: k % 2 == 0,
            });
        }
        (b, types.len() as u32 + 1)
    }

    #[test]
    fn merging_equals_appending_in_order() {
        let parts: Vec<(EventBatch, u32)> = (0..7)
            .map(|k| {
                let types: Vec<&str> = ["a", "b", "c", "d"]
                    .iter()
                    .copied()
                    .cycle()
                    .skip(k)
                    .take(3 + k)
                    .collect();
                batch(&types, k as u64 * 10, k % 2 == 1)
            })
            .collect();
        let mut serial = EventBatch::default();
        let mut base = 1;
        for (part, lines) in parts.clone() {
            let mut part = part;
            for e in &mut part.events {
                e.line += base;
            }
            base += lines;
            serial.append(part);
        }
        let merged = merge_in_order(parts, 2);
        assert_eq!(merged.events, serial.events);
        assert_eq!(merged.sources, serial.sources);
        assert_eq!(merged.extras, serial.extras);
        assert_eq!(
            merged.types.iter().collect::<Vec<_>>(),
            serial.types.iter().collect::<Vec<_>>()
        );
        assert_eq!(merged.events[0].line, 2);
    }
}
