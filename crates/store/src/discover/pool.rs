//! Work spread over the workers of a rayon pool with the results handed back, as each
//! finishes, on the calling thread (which prints them or forwards them to the GUI).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};

use rayon::{Scope, ThreadPool, ThreadPoolBuilder};

/// The number of worker threads to use by default: rayon's global pool, one per core (or
/// `RAYON_NUM_THREADS`).
pub fn default_threads() -> usize {
    rayon::current_num_threads()
}

/// Runs `work` on every item with `threads` workers (at least one), started in the order of
/// `items`, and calls `sink` on the calling thread with each result as soon as it is ready (so
/// in completion order). Items not yet started when `cancel` turns true are dropped.
/// [`default_threads`] workers are the current rayon pool's; another count gets a pool of its
/// own for the call.
pub fn for_each_parallel<T, R, W, S>(
    items: Vec<T>,
    threads: usize,
    cancel: &AtomicBool,
    work: W,
    sink: S,
) where
    T: Send,
    R: Send,
    W: Fn(T) -> R + Sync,
    S: FnMut(R),
{
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return run_here(items, cancel, work, sink);
    }
    if threads == rayon::current_num_threads() {
        return rayon::in_place_scope(|scope| feed(scope, items, threads, cancel, &work, sink));
    }
    match ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|n| format!("surface-viewer-worker-{n}"))
        .build()
    {
        Ok(pool) => for_each_parallel_in(&pool, items, cancel, work, sink),
        // No threads to be had: the work is done here.
        Err(_) => run_here(items, cancel, work, sink),
    }
}

/// [`for_each_parallel`] on the workers of `pool`.
pub fn for_each_parallel_in<T, R, W, S>(
    pool: &ThreadPool,
    items: Vec<T>,
    cancel: &AtomicBool,
    work: W,
    sink: S,
) where
    T: Send,
    R: Send,
    W: Fn(T) -> R + Sync,
    S: FnMut(R),
{
    let threads = pool.current_num_threads().clamp(1, items.len().max(1));
    if threads == 1 {
        return run_here(items, cancel, work, sink);
    }
    pool.in_place_scope(|scope| feed(scope, items, threads, cancel, &work, sink));
}

/// Every item in order on the calling thread.
fn run_here<T, R>(
    items: Vec<T>,
    cancel: &AtomicBool,
    work: impl Fn(T) -> R,
    mut sink: impl FnMut(R),
) {
    for item in items {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        sink(work(item));
    }
}

/// Spawns `threads` tasks on `scope` that take the items in order, and sinks their results
/// here as they come.
fn feed<'s, T, R, W>(
    scope: &Scope<'s>,
    items: Vec<T>,
    threads: usize,
    cancel: &'s AtomicBool,
    work: &'s W,
    mut sink: impl FnMut(R),
) where
    T: Send + 's,
    R: Send + 's,
    W: Fn(T) -> R + Sync,
{
    let queue: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let queue = std::sync::Arc::new((queue, AtomicUsize::new(0)));
    let (tx, rx) = channel();
    for _ in 0..threads {
        let (tx, queue): (Sender<R>, _) = (tx.clone(), queue.clone());
        scope.spawn(move |_| {
            let (queue, next) = &*queue;
            while !cancel.load(Ordering::Relaxed) {
                let Some(slot) = queue.get(next.fetch_add(1, Ordering::Relaxed)) else {
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
    }
    drop(tx);
    for result in rx {
        sink(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(workers: usize) -> ThreadPool {
        ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap()
    }

    #[test]
    fn every_item_once_on_1_2_and_8_workers() {
        for workers in [1, 2, 8] {
            let items: Vec<u64> = (0..500).collect();
            let mut seen = Vec::new();
            let cancel = AtomicBool::new(false);
            for_each_parallel_in(&pool(workers), items, &cancel, |x| x * 2, |r| seen.push(r));
            seen.sort_unstable();
            assert_eq!(
                seen,
                (0..500).map(|x| x * 2).collect::<Vec<_>>(),
                "{workers}"
            );
        }
    }

    #[test]
    fn a_thread_count_gets_that_many_workers() {
        for threads in [2, 3, default_threads()] {
            let names = Mutex::new(std::collections::HashSet::new());
            let cancel = AtomicBool::new(false);
            let mut results = 0;
            for_each_parallel(
                (0..64).collect::<Vec<u64>>(),
                threads,
                &cancel,
                |x| {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    names.lock().unwrap().insert(std::thread::current().id());
                    x
                },
                |_| results += 1,
            );
            assert_eq!(results, 64);
            let used = names.lock().unwrap().len();
            assert!(used <= threads.max(1), "{used} threads for {threads}");
        }
    }

    #[test]
    fn one_thread_keeps_the_order_and_cancel_stops() {
        let mut seen = Vec::new();
        let cancel = AtomicBool::new(false);
        for_each_parallel(vec![3, 1, 2], 1, &cancel, |x| x, |r| seen.push(r));
        assert_eq!(seen, [3, 1, 2]);
        for workers in [1, 2, 8] {
            let cancel = AtomicBool::new(true);
            let mut none = Vec::<i32>::new();
            for_each_parallel_in(&pool(workers), vec![1, 2], &cancel, |x| x, |r| none.push(r));
            assert!(none.is_empty(), "{workers}");
        }
    }
}
