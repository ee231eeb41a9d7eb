//! Fuzz target: arbitrary bytes behind a Zstandard frame magic through the Zstandard JSONL
//! reader. Must never panic. The lines of the decoded text also check the envelope scanner
//! against serde_json (`store::compare_with_serde`), as the reader parses them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_engine::{Surface, check};
use surface_store::{ReadLimits, compare_with_serde, read_zstd_jsonl};

fuzz_target!(|data: &[u8]| {
    // A small total: a bomb ends the read with an error instead of filling the fuzzer's memory.
    let limits = ReadLimits::default().with_total_bytes(64 << 20);
    let mut bytes = vec![0x28, 0xB5, 0x2F, 0xFD];
    bytes.extend_from_slice(data);
    for input in [data, &bytes[..]] {
        if let Ok(log) = read_zstd_jsonl(input, None, &limits) {
            for line in log.stable_text().unwrap_or_default().split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if let Ok(text) = std::str::from_utf8(line)
                    && let Err(disagreement) = compare_with_serde(text)
                {
                    panic!("{disagreement}");
                }
            }
            let _ = check(&log, &Surface::at_end(&log));
        }
    }
});
