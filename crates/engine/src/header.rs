//! The session header line (`{"type":"session",...}`) or the SQLite `sessions` row.

use serde::Serialize;

/// What a log says about its session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SessionHeader {
    /// Session id.
    pub id: String,
    /// Session-format version (1 at the ADR, 0 later); `None` when not an integer.
    pub version: Option<i64>,
    /// Creation time, epoch milliseconds.
    pub created_at: Option<i64>,
    /// Working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Parent session of a fork.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
    /// Number of leading events a fork inherited from its parent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_length: Option<u64>,
    /// `origin` (`"subagent"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Delegation depth (0 for top level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation_depth: Option<i64>,
    /// Agent preset name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_preset: Option<String>,
}

impl SessionHeader {
    /// True when the header is one of the versions seen in the wild (0 and 1).
    pub fn version_is_known(&self) -> bool {
        matches!(self.version, Some(0) | Some(1))
    }
}
