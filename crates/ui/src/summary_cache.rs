//! One-line event summaries kept between frames, so a panel summarizes each row it draws once
//! rather than every frame (a summary of a packed chunk parses its whole row).

use std::collections::HashMap;

use surface_engine::EventIdx;

/// Summaries kept before the cache is dropped and refilled.
const LIMIT: usize = 20_000;

/// Summaries by event, bounded by [`LIMIT`].
#[derive(Debug, Default)]
pub struct SummaryCache {
    by_event: HashMap<u32, String>,
}

impl SummaryCache {
    /// The summary of `idx`, made by `summarize` the first time it is asked for.
    pub fn get(&mut self, idx: EventIdx, summarize: impl FnOnce() -> String) -> &str {
        if self.by_event.len() >= LIMIT && !self.by_event.contains_key(&idx.0) {
            self.by_event.clear();
        }
        self.by_event.entry(idx.0).or_insert_with(summarize)
    }

    /// Forgets every summary (a new log was loaded).
    pub fn clear(&mut self) {
        self.by_event.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_made_once_and_the_cache_stays_bounded() {
        let mut cache = SummaryCache::default();
        let mut made = 0;
        for _ in 0..3 {
            let s = cache.get(EventIdx(7), || {
                made += 1;
                "seven".to_string()
            });
            assert_eq!(s, "seven");
        }
        assert_eq!(made, 1);
        for i in 0..(LIMIT as u32 + 10) {
            cache.get(EventIdx(i), || i.to_string());
        }
        assert!(cache.by_event.len() <= LIMIT);
        assert_eq!(
            cache.get(EventIdx(LIMIT as u32 + 9), String::new),
            (LIMIT + 9).to_string()
        );
    }
}
