//! The Policy tab's commands — applied by [`crate::policy::apply`].

use surface_analysis::policy::{PolicySettings, ReplayMode};

/// A command of the Policy tab.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyCommand {
    /// Replay the compaction policy with these settings.
    SetPolicySettings(PolicySettings),
    /// Verify the log's decisions or replay a what-if.
    SetPolicyMode(ReplayMode),
    /// Set the policy's settings inside the intervals inferred from the log.
    UseInferredSettings,
    /// Replay a what-if with these settings, the fields rewritten to show them (a setting
    /// picked in the Tune view).
    OpenWhatIf(PolicySettings),
}
