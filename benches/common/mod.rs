//! Helpers shared by the benchmarks: generated logs, and the settings for million-event groups.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};
use surface_synth::{SynthConfig, generate};

/// The JSONL bytes of a generated log of about `events` events (packed chunk rows or not).
pub fn log_bytes(events: u64, pack: bool) -> Vec<u8> {
    let config = SynthConfig {
        pack,
        ..SynthConfig::with_events(events)
    };
    let mut out = Vec::new();
    generate(&config, &mut out).expect("writing to a Vec cannot fail");
    out
}

/// Few, flat samples for groups whose one iteration takes tens of milliseconds or more.
pub fn configure_large(group: &mut BenchmarkGroup<'_, WallTime>, measurement_secs: u64) {
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(measurement_secs));
}
