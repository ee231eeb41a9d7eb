//! Fuzz target: arbitrary bytes through the JSONL reader (packed rows included), then the
//! surface, findings and messages. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_viewer::engine::{Surface, check, derive_messages};
use surface_viewer::store::read_jsonl;

fuzz_target!(|data: &[u8]| {
    if let Some(log) = read_jsonl(data.to_vec(), None) {
        let surface = Surface::at_end(&log);
        let _ = check(&log, &surface);
        let _ = derive_messages(&log, &surface);
        for idx in log.indices() {
            let _ = log.event_json(idx);
        }
    }
});
