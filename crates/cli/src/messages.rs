//! `messages`: the messages derived from the surface at a cursor, as a JSON array.

use super::load::load;
use super::{EXIT_OK, Input, print_json};

/// Runs `messages`.
pub fn run(input: &Input, at: Option<u64>, repair: bool) -> anyhow::Result<u8> {
    let loaded = load(input, repair)?;
    let file = input.file.display().to_string();
    print_json(&surface_reports::messages::document(
        &loaded.source(&file),
        at,
    )?)?;
    Ok(EXIT_OK)
}
