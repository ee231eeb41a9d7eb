//! Work started beside the current thread on a scoped thread of its own — or, when the system
//! gives no thread, done on the current thread when its result is taken — and its result
//! taken when needed: how an export session runs its audit and the policy's replays beside
//! the `events` table (the replays wait for an input the current thread sends, which is why
//! work without a thread waits for the join instead of running at once).

use std::sync::{Arc, Mutex};
use std::thread::Scope;

use anyhow::anyhow;

/// Work beside this thread: on its own thread of the scope, or, when no thread could be had,
/// done when its result is taken.
pub struct Beside<'scope, T> {
    /// The thread's name, for the error when it panicked.
    name: String,
    how: How<'scope, T>,
}

enum How<'scope, T> {
    /// Running on a thread.
    Thread(std::thread::ScopedJoinHandle<'scope, Option<T>>),
    /// To be done here, at the join.
    Here(Option<Box<dyn FnOnce() -> T + Send + 'scope>>),
}

impl<T> Beside<'_, T> {
    /// Its result (`Err` when its thread panicked).
    pub fn join(self) -> anyhow::Result<T> {
        let done = match self.how {
            How::Thread(thread) => thread.join().ok().flatten(),
            How::Here(work) => work.map(|work| work()),
        };
        done.ok_or_else(|| anyhow!("{} stopped", self.name))
    }
}

/// Starts `work` on a thread of `scope` named `name`; when no thread can be had, it is done on
/// the thread that takes its result ([`Beside::join`]).
pub fn beside<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    work: F,
) -> Beside<'scope, T>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    let slot = Arc::new(Mutex::new(Some(work)));
    let theirs = Arc::clone(&slot);
    let take = |slot: &Mutex<Option<F>>| slot.lock().ok().and_then(|mut w| w.take());
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, move || take(&theirs).map(|work| work()));
    let how = match spawned {
        Ok(thread) => How::Thread(thread),
        Err(_) => How::Here(take(&slot).map(|work| Box::new(work) as Box<_>)),
    };
    Beside {
        name: name.to_string(),
        how,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_beside_gives_its_result_and_a_panic_is_an_error() {
        let mut written = Vec::new();
        let (sum, failed) = std::thread::scope(|scope| {
            let sum = beside(scope, "test-sum", || {
                written.push(1);
                (1..=10).sum::<u32>()
            });
            let failed = beside(scope, "test-panic", || -> u32 { panic!("stopped") });
            (sum.join(), failed.join())
        });
        assert_eq!(sum.unwrap(), 55);
        assert_eq!(written, [1]);
        let error = failed.unwrap_err().to_string();
        assert_eq!(error, "test-panic stopped");
    }
}
