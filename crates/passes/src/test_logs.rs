//! Generated logs for the crate's tests: each pass is held to the engine's serial result on
//! one of these.

use surface_engine::EventLog;
use surface_synth::{SynthConfig, generate};

/// The JSONL text the generator writes for `config`.
pub(crate) fn synth_bytes(config: &SynthConfig) -> Vec<u8> {
    let mut bytes = Vec::new();
    generate(config, &mut bytes).expect("writing to a Vec cannot fail");
    bytes
}

/// A generated log of about `events` events, read.
pub(crate) fn synth_log(events: u64) -> EventLog {
    read(synth_bytes(&SynthConfig::with_events(events)))
}

/// `bytes` read as a JSONL log.
pub(crate) fn read(bytes: Vec<u8>) -> EventLog {
    surface_store::read_jsonl(bytes, None).expect("a generated log reads")
}
