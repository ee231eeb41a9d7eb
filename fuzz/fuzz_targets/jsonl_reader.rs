//! Fuzz target: arbitrary bytes through the JSONL reader (packed rows included), then the
//! surface, findings and messages. Must never panic. Every line also checks the reader's fast
//! path differentially: when the envelope scanner accepts a line, serde_json accepts it with
//! the same envelope slices (`store::compare_with_serde`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_engine::{Surface, check, derive_messages};
use surface_store::{compare_with_serde, read_jsonl};

fuzz_target!(|data: &[u8]| {
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Ok(text) = std::str::from_utf8(line)
            && let Err(disagreement) = compare_with_serde(text)
        {
            panic!("{disagreement}");
        }
    }
    if let Some(log) = read_jsonl(data.to_vec(), None) {
        let surface = Surface::at_end(&log);
        let _ = check(&log, &surface);
        let _ = derive_messages(&log, &surface);
        for idx in log.indices() {
            let _ = log.event_json(idx);
        }
    }
});
