//! The copy of the lines a log's later passes read ([`surface_engine::EventLog::keep_lines`])
//! in its two halves side by side: most of its time is the kernel handing out the fresh pages
//! the copy writes to, which two cores do in half the time.

use surface_engine::{EventIdx, EventLog};

/// [`EventLog::keep_lines`] with its halves on two of rayon's threads. Returns the bytes copied.
pub fn keep_lines_of(log: &EventLog, keep: impl Fn(EventIdx) -> bool) -> usize {
    log.keep_lines(keep, |first, second| {
        rayon::join(first, second);
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::test_logs::synth_bytes;
    use surface_synth::SynthConfig;

    #[test]
    fn kept_lines_read_as_the_shared_text_on_two_threads() {
        let bytes = synth_bytes(&SynthConfig::with_events(20_000));
        let shared: surface_engine::SharedBytes = Arc::new(bytes.clone());
        let log =
            surface_store::read_jsonl(surface_engine::TextArena::shared(shared), None).unwrap();
        let before: Vec<Vec<u8>> = log
            .indices()
            .map(|i| log.event_bytes(i).into_owned())
            .collect();
        let copied = keep_lines_of(&log, |idx| idx.get() % 2 == 0);
        assert!(copied > 0 && copied < bytes.len());
        for (idx, line) in log.indices().zip(&before) {
            assert_eq!(&*log.event_bytes(idx), &line[..], "event {idx}");
        }
    }
}
