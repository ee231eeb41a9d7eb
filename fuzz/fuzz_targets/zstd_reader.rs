//! Fuzz target: arbitrary bytes behind a Zstandard frame magic through the Zstandard JSONL
//! reader. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_viewer::engine::{Surface, check};
use surface_viewer::store::read_zstd_jsonl;

fuzz_target!(|data: &[u8]| {
    let mut bytes = vec![0x28, 0xB5, 0x2F, 0xFD];
    bytes.extend_from_slice(data);
    for input in [data, &bytes[..]] {
        if let Some(log) = read_zstd_jsonl(input, None) {
            let _ = check(&log, &Surface::at_end(&log));
        }
    }
});
