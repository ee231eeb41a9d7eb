//! `messages`: the messages derived from the surface at a cursor, as a JSON array.

use super::load::load;
use super::{EXIT_OK, Input, print_json};
use surface_engine::derive_messages;

/// Runs `messages`.
pub fn run(input: &Input, at: Option<u64>, repair: bool) -> anyhow::Result<u8> {
    let loaded = load(input, repair)?;
    let surface = loaded.surface_at(at);
    print_json(&derive_messages(&loaded.log, &surface))?;
    Ok(EXIT_OK)
}
