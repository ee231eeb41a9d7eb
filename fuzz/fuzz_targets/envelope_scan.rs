//! Fuzz target: the envelope scanner against serde_json on one line. Whenever the scanner
//! accepts the input, serde_json must accept it with the same `type` and the same envelope
//! slices at the same offsets, and a line it calls plain must need no care from a `Value`
//! parse (`store::compare_with_serde`); a scanner that gives up is fine. The line's `data`
//! (and the line itself, when it is JSON) then goes through the packed-row quick reader as
//! each kind of row: whenever it answers, serde's decoder must agree
//! (`engine::compare_quick_row`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_engine::{ChunkKind, compare_quick_row};
use surface_store::{compare_with_serde, scan_envelope};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(disagreement) = compare_with_serde(text) {
        panic!("{disagreement}");
    }
    // The quick reader is only given validated JSON: a `data` the scanner accepted.
    let wrapped = format!(r#"{{"type":"t","data":{text}}}"#);
    let rows = [scan_envelope(text), scan_envelope(&wrapped)]
        .into_iter()
        .flatten()
        .filter_map(|env| env.data);
    for row in rows {
        for kind in [ChunkKind::Text, ChunkKind::Reasoning, ChunkKind::ToolCall] {
            if let Err(disagreement) = compare_quick_row(kind, row, 1_786_000_000_000) {
                panic!("{disagreement}");
            }
        }
    }
});
