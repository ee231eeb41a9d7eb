//! Fuzz target: the harness's token meter (docs/meter.md) over an arbitrary log read by the
//! JSONL reader. Must never panic, and holds two properties: built from prices read in two
//! ranges (as the CLI and the viewer read them on several threads) it gives the figures of the
//! one-pass build at every cursor, at the end its surface figure is the sum of the prices
//! of the surface's nodes, and every stream chunk's piece (read from the harness's literal
//! layout or by the scan) is the one the JSON tree gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_engine::meter::{Prices, chunk_piece, chunk_piece_reference};
use surface_engine::{EventType, Meter, Surface};
use surface_store::read_jsonl;

fuzz_target!(|data: &[u8]| {
    let Some(log) = read_jsonl(data.to_vec(), None) else {
        return;
    };
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let n = log.len();
    // Split where the input's length says: anywhere from the start to the end.
    let cut = data.len() % (n + 1);
    let split = Meter::build_priced(
        &log,
        &surface,
        [Prices::read(&log, 0..cut), Prices::read(&log, cut..n)],
    );
    assert_eq!(meter.len(), split.len());
    for cursor in 0..=n + 1 {
        assert_eq!(meter.at(cursor), split.at(cursor), "cursor {cursor}");
        let _ = meter.window_at(cursor);
        let _ = meter.threshold_at(cursor, 0.8);
        let _ = meter.header_price_at(cursor);
        let _ = meter.step_at(cursor);
    }
    if meter.len() == n {
        let priced: u64 = surface.nodes().map(|idx| meter.price(idx)).sum();
        if priced <= u64::from(u32::MAX) {
            assert_eq!(meter.at(n).surface, priced, "surface tokens at the end");
        }
    }
    for idx in log.indices() {
        if log.event_type(idx) == EventType::AssistantChunk {
            assert_eq!(
                chunk_piece(&log, idx),
                chunk_piece_reference(&log, idx),
                "chunk {idx}"
            );
        }
    }
    for anchor in meter.anchors() {
        let _ = anchor.baseline;
    }
});
