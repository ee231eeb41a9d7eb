//! Full-text search over every event's JSON (shadowed content included) on a worker thread, so
//! a large log never freezes the window. Hits arrive in log order while the worker runs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use surface_engine::{EventIdx, EventLog, EventText};

/// Events scanned between progress updates and cancellation checks.
const CHUNK: usize = 4096;

/// Shared between the UI and one search worker.
#[derive(Debug, Default)]
struct Shared {
    cancelled: AtomicBool,
    scanned: AtomicUsize,
    found: Mutex<Vec<EventIdx>>,
}

/// Search query, progress and hits.
#[derive(Debug, Default)]
pub struct SearchState {
    /// The text in the search box.
    pub query: String,
    /// The query being searched (lowercase); empty when idle.
    active: String,
    /// Matching events so far, in log order.
    pub hits: Vec<EventIdx>,
    /// Index into `hits` of the selected hit.
    pub current: Option<usize>,
    /// Whether the search box should take focus this frame.
    pub focus_request: bool,
    job: Option<Arc<Shared>>,
    total: usize,
}

impl SearchState {
    /// Starts a new search when the query changed. `blocking` searches on this thread (tests).
    pub fn sync_query(&mut self, log: &Arc<EventLog>, ctx: Option<&egui::Context>, blocking: bool) {
        let lower = self.query.trim().to_lowercase();
        if lower != self.active {
            self.active = lower;
            self.restart(log, ctx, blocking);
        }
    }

    /// Searches the current query again from the start (a new log was loaded).
    pub fn restart(&mut self, log: &Arc<EventLog>, ctx: Option<&egui::Context>, blocking: bool) {
        if let Some(job) = self.job.take() {
            job.cancelled.store(true, Ordering::Relaxed);
        }
        self.hits.clear();
        self.current = None;
        self.total = log.len();
        if self.active.is_empty() {
            return;
        }
        let shared = Arc::new(Shared::default());
        self.job = Some(Arc::clone(&shared));
        let needle = self.active.clone();
        if blocking {
            scan(log, &needle, &shared);
            return;
        }
        let log = Arc::clone(log);
        let ctx = ctx.cloned();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-search".into())
            .spawn(move || {
                scan(&log, &needle, &shared);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        if spawned.is_err() {
            self.job = None;
        }
    }

    /// Takes the hits found since the last call. Returns true while the worker runs.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &self.job else { return false };
        if let Ok(mut found) = job.found.lock() {
            self.hits.append(&mut found);
        }
        self.running()
    }

    /// True while a query is being searched.
    pub fn running(&self) -> bool {
        self.job
            .as_ref()
            .is_some_and(|j| j.scanned.load(Ordering::Relaxed) < self.total)
    }

    /// True when a non-empty query is set.
    pub fn has_query(&self) -> bool {
        !self.active.is_empty()
    }

    /// Fraction of the log searched.
    pub fn fraction(&self) -> f32 {
        let scanned = self
            .job
            .as_ref()
            .map_or(0, |j| j.scanned.load(Ordering::Relaxed));
        if self.total == 0 {
            1.0
        } else {
            scanned as f32 / self.total as f32
        }
    }

    /// Whether `idx` is a hit.
    pub fn is_hit(&self, idx: EventIdx) -> bool {
        self.hits.binary_search(&idx).is_ok()
    }

    /// Selects the first hit after `from` (wrapping) and returns it.
    pub fn next_hit(&mut self, from: Option<EventIdx>) -> Option<EventIdx> {
        if self.hits.is_empty() {
            return None;
        }
        let i = match from {
            Some(f) => self.hits.partition_point(|h| *h <= f),
            None => 0,
        };
        let i = if i >= self.hits.len() { 0 } else { i };
        self.current = Some(i);
        self.hits.get(i).copied()
    }

    /// Selects the last hit before `from` (wrapping) and returns it.
    pub fn prev_hit(&mut self, from: Option<EventIdx>) -> Option<EventIdx> {
        if self.hits.is_empty() {
            return None;
        }
        let i = match from {
            Some(f) => self.hits.partition_point(|h| *h < f),
            None => self.hits.len(),
        };
        let i = i.checked_sub(1).unwrap_or(self.hits.len() - 1);
        self.current = Some(i);
        self.hits.get(i).copied()
    }
}

/// Scans every event for `needle` (lowercase), publishing hits per chunk. Members of a packed
/// chunk row are only rebuilt when the row's own text contains the needle, so a miss costs one
/// scan of the row, not one JSON rebuild per member.
fn scan(log: &EventLog, needle: &str, shared: &Shared) {
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut matcher = Matcher {
        finder,
        ascii_needle: needle.is_ascii(),
        lowered: Vec::new(),
    };
    let mut batch = Vec::new();
    let mut row_hit: Option<(u32, bool)> = None;
    let mut start = 0;
    while start < log.len() {
        if shared.cancelled.load(Ordering::Relaxed) {
            return;
        }
        let end = (start + CHUNK).min(log.len());
        for i in start..end {
            let idx = EventIdx(i as u32);
            if let EventText::PackedMember { row, .. } = log.event(idx).text() {
                let hit = match row_hit {
                    Some((r, hit)) if r == row => hit,
                    _ => {
                        // A private copy when the row's bytes may change (a mapped file).
                        let hit = log
                            .packed_row_bytes(row)
                            .is_some_and(|t| matcher.contains(&String::from_utf8_lossy(&t)));
                        row_hit = Some((row, hit));
                        hit
                    }
                };
                if !hit {
                    continue;
                }
            }
            if matcher.contains(&log.event_json(idx)) {
                batch.push(idx);
            }
        }
        if !batch.is_empty()
            && let Ok(mut found) = shared.found.lock()
        {
            found.append(&mut batch);
        }
        shared.scanned.store(end, Ordering::Relaxed);
        start = end;
    }
}

/// Case-insensitive substring search without an allocation per event for ASCII needles.
struct Matcher<'n> {
    finder: memchr::memmem::Finder<'n>,
    ascii_needle: bool,
    lowered: Vec<u8>,
}

impl Matcher<'_> {
    fn contains(&mut self, text: &str) -> bool {
        if self.ascii_needle {
            self.lowered.clear();
            self.lowered
                .extend(text.bytes().map(|b| b.to_ascii_lowercase()));
            return self.finder.find(&self.lowered).is_some();
        }
        self.finder.find(text.to_lowercase().as_bytes()).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_hits() {
        let mut s = SearchState {
            hits: vec![EventIdx(2), EventIdx(5), EventIdx(9)],
            ..Default::default()
        };
        assert_eq!(s.next_hit(Some(EventIdx(5))), Some(EventIdx(9)));
        assert_eq!(s.next_hit(Some(EventIdx(9))), Some(EventIdx(2)));
        assert_eq!(s.prev_hit(Some(EventIdx(2))), Some(EventIdx(9)));
        assert_eq!(s.prev_hit(None), Some(EventIdx(9)));
        assert_eq!(s.current, Some(2));
    }

    #[test]
    fn case_insensitive() {
        let mut m = Matcher {
            finder: memchr::memmem::Finder::new(b"alpha"),
            ascii_needle: true,
            lowered: Vec::new(),
        };
        assert!(m.contains("xx ALPHA yy"));
        assert!(!m.contains("beta"));
        let mut u = Matcher {
            finder: memchr::memmem::Finder::new("é".as_bytes()),
            ascii_needle: false,
            lowered: Vec::new(),
        };
        assert!(u.contains("CAFÉ"));
    }
}
