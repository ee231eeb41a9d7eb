//! Why a document could not be built: each one sentence naming the file or the option.

use surface_store::StoreError;

/// A document that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The file could not be read as a session.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `request` found no model call at or before the cursor.
    #[error("{file}: no model request (step/start) {place}")]
    NoRequest {
        /// The file as named.
        file: String,
        /// `"at or before seq N"` or `"in the log"`.
        place: String,
    },
    /// A setting or an option that cannot be used.
    #[error("{0}")]
    Option(String),
    /// A folder that holds nothing to read.
    #[error("{0}")]
    Folder(String),
    /// A price file that cannot be read or parsed.
    #[error("{0}")]
    Prices(String),
    /// A document that does not serialize (never expected).
    #[error("cannot build the JSON document: {0}")]
    Json(#[from] serde_json::Error),
}
