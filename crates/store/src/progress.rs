//! Shared load progress and cancellation, polled by the GUI while a reader thread works.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Bytes done out of a total, and a cancel flag. Shared between the loader and the UI.
#[derive(Debug, Default)]
pub struct LoadProgress {
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
}

impl LoadProgress {
    /// Sets the expected total (bytes).
    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    /// Adds work done.
    pub fn advance(&self, bytes: u64) {
        self.done.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Fraction done in `0.0..=1.0`.
    pub fn fraction(&self) -> f32 {
        let total = self.total.load(Ordering::Relaxed);
        if total == 0 {
            return 0.0;
        }
        (self.done.load(Ordering::Relaxed) as f64 / total as f64).min(1.0) as f32
    }

    /// Asks the loader to stop.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// True once [`LoadProgress::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}
