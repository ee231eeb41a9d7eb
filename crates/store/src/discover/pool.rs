//! Work spread over worker threads with the results handed back, as each finishes, on the
//! calling thread (which prints them or forwards them to the GUI).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;

/// The number of worker threads to use by default: one per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Runs `work` on every item with `threads` workers (at least one), in the order of `items`,
/// and calls `sink` on the calling thread with each result as soon as it is ready (so in
/// completion order). Items not yet started when `cancel` turns true are dropped.
pub fn for_each_parallel<T, R, W, S>(
    items: Vec<T>,
    threads: usize,
    cancel: &AtomicBool,
    work: W,
    mut sink: S,
) where
    T: Send,
    R: Send,
    W: Fn(T) -> R + Sync,
    S: FnMut(R),
{
    let total = items.len();
    if total == 0 {
        return;
    }
    let threads = threads.clamp(1, total);
    if threads == 1 {
        for item in items {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            sink(work(item));
        }
        return;
    }
    let queue: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let (tx, rx) = channel();
    std::thread::scope(|scope| {
        for n in 0..threads {
            let tx = tx.clone();
            let (queue, next, work) = (&queue, &next, &work);
            let spawned = std::thread::Builder::new()
                .name(format!("surface-viewer-worker-{n}"))
                .spawn_scoped(scope, move || {
                    loop {
                        if cancel.load(Ordering::Relaxed) {
                            return;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = queue.get(i) else {
                            return;
                        };
                        let item = slot.lock().map(|mut s| s.take()).ok().flatten();
                        if let Some(item) = item
                            && tx.send(work(item)).is_err()
                        {
                            return;
                        }
                    }
                });
            if spawned.is_err() {
                // No more threads: the ones already running (or this one, below) do the work.
                break;
            }
        }
        drop(tx);
        for result in rx {
            sink(result);
        }
    });
    // Every worker failed to start: do the work here.
    while let Some(slot) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        if let Some(item) = slot.lock().ok().and_then(|mut s| s.take()) {
            sink(work(item));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_once_on_several_threads() {
        let items: Vec<u64> = (0..500).collect();
        let mut seen = Vec::new();
        let cancel = AtomicBool::new(false);
        for_each_parallel(items, 3, &cancel, |x| x * 2, |r| seen.push(r));
        seen.sort_unstable();
        assert_eq!(seen, (0..500).map(|x| x * 2).collect::<Vec<_>>());
    }

    #[test]
    fn one_thread_keeps_the_order_and_cancel_stops() {
        let mut seen = Vec::new();
        let cancel = AtomicBool::new(false);
        for_each_parallel(vec![3, 1, 2], 1, &cancel, |x| x, |r| seen.push(r));
        assert_eq!(seen, [3, 1, 2]);
        let cancel = AtomicBool::new(true);
        let mut none = Vec::<i32>::new();
        for_each_parallel(vec![1, 2], 2, &cancel, |x| x, |r| none.push(r));
        assert!(none.is_empty());
    }
}
