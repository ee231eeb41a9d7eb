//! Fuzz target: the envelope scanner against serde_json on one line. Whenever the scanner
//! accepts the input, serde_json must accept it with the same `type` and the same envelope
//! slices at the same offsets, and a line it calls plain must need no care from a `Value`
//! parse (`store::compare_with_serde`); a scanner that gives up is fine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_store::compare_with_serde;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(disagreement) = compare_with_serde(text) {
        panic!("{disagreement}");
    }
});
