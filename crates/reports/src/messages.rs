//! `messages`' document: the messages derived from the surface at a cursor.

use serde_json::Value;
use surface_engine::{Surface, derive_messages};

use crate::{ReportError, Source};

/// The messages after every event with seq ≤ `at` (the end without one), as a JSON array.
pub fn document(source: &Source<'_>, at: Option<u64>) -> Result<Value, ReportError> {
    let surface = Surface::at_seq(source.log, at);
    Ok(serde_json::to_value(derive_messages(source.log, &surface))?)
}
