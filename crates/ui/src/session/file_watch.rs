//! The shown log's file (JSONL or Zstandard, not followed), watched from a thread: every
//! [`LOOK_EVERY`] its identity (a `stat` and two 4 KiB reads, `store::FileIdentity`) is compared
//! with the one read at load, and a change wakes the window — so a window nobody touches still
//! reopens a file another program truncated or rewrote within half a second, instead of at its
//! next input. (A mapped log must be reopened: its bytes are the file's. A copy could stay as it
//! was, but would then show what the file no longer holds.) A file that only grew keeps being
//! watched (it may be cut or rewritten later); the window says once that it grew, and reads the
//! new events only when asked (Follow).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::Duration;

use surface_store::{FileChange, FileIdentity};

/// How often the file is compared with its identity.
pub const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The watch of one shown file; the thread ends when this is dropped (at its next look).
pub struct FileWatch {
    /// The last change found, as [`code`] writes it.
    found: Arc<AtomicU8>,
    /// Dropped with the watch: the thread's `recv_timeout` then ends it.
    _stop: Sender<()>,
}

impl FileWatch {
    /// Starts watching `path`, read when its identity was `identity`; `wake` is called when
    /// the change found is new (the window's repaint). `None` when no thread could start: the
    /// caller then looks itself ([`FileIdentity::change_at`]).
    pub fn spawn(
        path: PathBuf,
        identity: FileIdentity,
        every: Duration,
        wake: impl Fn() + Send + 'static,
    ) -> Option<FileWatch> {
        let found = Arc::new(AtomicU8::new(code(FileChange::Unchanged)));
        let (stop, stopped) = channel::<()>();
        let slot = Arc::clone(&found);
        std::thread::Builder::new()
            .name("surface-viewer-file-watch".into())
            .spawn(move || {
                let mut last = FileChange::Unchanged;
                while stopped.recv_timeout(every) == Err(RecvTimeoutError::Timeout) {
                    let change = identity.change_at(&path);
                    if change == last {
                        continue;
                    }
                    last = change;
                    slot.store(code(change), Ordering::Release);
                    wake();
                    if matches!(change, FileChange::Shrank | FileChange::Rewritten) {
                        // The window reopens the file, with a watch of its own.
                        return;
                    }
                }
            })
            .ok()?;
        Some(FileWatch { found, _stop: stop })
    }

    /// The last change the thread found (`Unchanged` until it finds one).
    pub fn change(&self) -> FileChange {
        change_of(self.found.load(Ordering::Acquire))
    }
}

/// A change as the atomic holds it.
fn code(change: FileChange) -> u8 {
    match change {
        FileChange::Unchanged => 0,
        FileChange::Grew => 1,
        FileChange::Shrank => 2,
        FileChange::Rewritten => 3,
    }
}

/// The inverse of [`code`].
fn change_of(code: u8) -> FileChange {
    match code {
        1 => FileChange::Grew,
        2 => FileChange::Shrank,
        3 => FileChange::Rewritten,
        _ => FileChange::Unchanged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// What `watch` reports once it reports `want`, or after two seconds of waiting for it.
    fn waited_for(watch: &FileWatch, want: FileChange) -> FileChange {
        for _ in 0..200 {
            if watch.change() == want {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        watch.change()
    }

    #[test]
    fn a_change_is_found_without_anyone_asking_and_wakes_the_window_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, vec![b'a'; 10_000]).unwrap();
        let identity = FileIdentity::of(&path).unwrap();
        let wakes = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&wakes);
        let every = Duration::from_millis(5);
        let watch = FileWatch::spawn(path.clone(), identity.clone(), every, move || {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        std::thread::sleep(every * 6);
        assert_eq!(watch.change(), FileChange::Unchanged);
        assert_eq!(
            wakes.load(Ordering::SeqCst),
            0,
            "nothing changed, nobody woken"
        );
        {
            use std::io::Write as _;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            file.write_all(b"more\n").unwrap();
        }
        assert_eq!(waited_for(&watch, FileChange::Grew), FileChange::Grew);
        std::thread::sleep(every * 6);
        assert_eq!(wakes.load(Ordering::SeqCst), 1, "a growth wakes once");
        // Still watched after growing: a truncation is found too.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(5_000)
            .unwrap();
        assert_eq!(waited_for(&watch, FileChange::Shrank), FileChange::Shrank);
        assert_eq!(wakes.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_rewrite_is_found_and_every_code_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, vec![b'a'; 10_000]).unwrap();
        let identity = FileIdentity::of(&path).unwrap();
        let watch =
            FileWatch::spawn(path.clone(), identity, Duration::from_millis(5), || {}).unwrap();
        std::fs::write(&path, vec![b'b'; 10_000]).unwrap();
        assert_eq!(
            waited_for(&watch, FileChange::Rewritten),
            FileChange::Rewritten
        );
        for change in [
            FileChange::Unchanged,
            FileChange::Grew,
            FileChange::Shrank,
            FileChange::Rewritten,
        ] {
            assert_eq!(change_of(code(change)), change);
        }
    }
}
