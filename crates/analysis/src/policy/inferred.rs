//! The settings a log's decisions bracket (docs/policy.md): what inference answers.

use serde::Serialize;

/// The settings every decision of the log is consistent with; `None` where the log says
/// nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Inferred {
    /// `[lo, hi)`: checks that did not fire give T ≥ (total + 1) / W, checks that fired
    /// T < (total + 1) / W.
    pub threshold_ratio: Option<[f64; 2]>,
    /// `[lo, hi]` of the retain budget in tokens, from each pressure summary's range.
    pub retain_tokens: Option<[u64; 2]>,
    /// `true` when the log pruned; `null` when it cannot tell.
    pub pruner: Option<bool>,
    /// `[lo, hi]` of the pruner's `threshold_chars`, from the results it pruned and left.
    pub threshold_chars: Option<[u64; 2]>,
    /// Why an interval came out empty (decisions no single setting explains), one phrase each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
}
