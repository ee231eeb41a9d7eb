//! The compaction policy's settings (docs/policy.md): threshold, retain budget, retries and
//! the tool-result pruner, with the harness's defaults and the checks that refuse a setting
//! the harness could not have run with — passed, they give the [`ValidSettings`] a replay
//! takes.

use std::ops::Deref;

use serde::Serialize;
use thiserror::Error;

/// The marker a prune puts where it cut a tool result's text.
pub const PRUNE_MARKER: &str = "\n\n[... tool result middle pruned ...]\n\n";

/// Code points of [`PRUNE_MARKER`].
pub const PRUNE_MARKER_CHARS: u64 = 39;

/// The tool-result pruner's sizes, in code points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PrunerSettings {
    /// A tool result whose text holds more than this many code points is pruned.
    pub threshold_chars: u64,
    /// Code points kept from the start of the text.
    pub head_chars: u64,
    /// Code points kept from the end of the text.
    pub tail_chars: u64,
}

impl Default for PrunerSettings {
    fn default() -> Self {
        PrunerSettings {
            threshold_chars: 8192,
            head_chars: 4096,
            tail_chars: 1024,
        }
    }
}

/// How many tokens a summary keeps at the tail of the surface.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Retain {
    /// `⌊window × ratio⌋` (the harness's default, 0.16).
    Ratio(f64),
    /// A fixed number of tokens.
    Tokens(u64),
}

/// The settings of the harness's `compaction-basic` policy and its pruner.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PolicySettings {
    /// Pressure fires when the meter's total is at least `⌊window × threshold_ratio⌋`.
    pub threshold_ratio: f64,
    /// The retain budget of a pressure summary.
    pub retain: Retain,
    /// Up to `1 + compaction_retries` summaries per pressure check.
    pub compaction_retries: u32,
    /// Overflow recoveries in a row before the error stands.
    pub max_overflow_retries: u32,
    /// The tool-result pruner, or `None` when it is not loaded.
    pub pruner: Option<PrunerSettings>,
    /// The price of a hypothetical summary message in a what-if; `None`: the mean price of
    /// the log's own summaries, else 2 % of the window.
    pub summary_tokens: Option<u64>,
}

/// The harness's default threshold ratio.
pub const DEFAULT_POLICY_THRESHOLD: f64 = 0.8;
/// The harness's default retain ratio.
pub const DEFAULT_RETAIN_RATIO: f64 = 0.16;

impl Default for PolicySettings {
    fn default() -> Self {
        PolicySettings {
            threshold_ratio: DEFAULT_POLICY_THRESHOLD,
            retain: Retain::Ratio(DEFAULT_RETAIN_RATIO),
            compaction_retries: 1,
            max_overflow_retries: 1,
            pruner: Some(PrunerSettings::default()),
            summary_tokens: None,
        }
    }
}

/// A setting the harness could not have run with; the message names the command-line flag.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SettingsError {
    /// T ≤ 0, T > 1 or not a number.
    #[error("--threshold-ratio must be greater than 0 and at most 1 (got {0})")]
    ThresholdRatio(f64),
    /// R ≤ 0, R ≥ T or not a number.
    #[error(
        "--retain-ratio must be greater than 0 and below the threshold ratio {threshold} (got {got})"
    )]
    RetainRatio {
        /// The retain ratio given.
        got: f64,
        /// The threshold ratio in force.
        threshold: f64,
    },
    /// N ≥ the threshold in tokens.
    #[error("--retain-tokens must be below the threshold of {threshold} tokens (got {got})")]
    RetainTokens {
        /// The retain budget given.
        got: u64,
        /// `⌊window × T⌋`.
        threshold: u64,
    },
    /// head + marker + tail does not fit under the pruner's threshold.
    #[error(
        "--prune: head {head} + marker {marker} + tail {tail} code points exceed the threshold of {threshold}"
    )]
    PruneSizes {
        /// `threshold_chars`.
        threshold: u64,
        /// `head_chars`.
        head: u64,
        /// Code points of the marker.
        marker: u64,
        /// `tail_chars`.
        tail: u64,
    },
    /// `--summary-tokens 0`.
    #[error("--summary-tokens must be at least 1")]
    SummaryTokens,
}

/// Settings [`PolicySettings::validate`] accepted: the only settings
/// [`replay`](super::replay) takes. Read them through `Deref`; change them by validating new
/// ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidSettings(PolicySettings);

impl Deref for ValidSettings {
    type Target = PolicySettings;

    fn deref(&self) -> &PolicySettings {
        &self.0
    }
}

impl ValidSettings {
    /// The settings.
    pub fn get(&self) -> &PolicySettings {
        &self.0
    }
}

impl PolicySettings {
    /// Checks the settings on their own and, when the window is known, against it (a retain
    /// budget in tokens must stay below the threshold; 0 is a legal budget), and hands them
    /// back as [`ValidSettings`].
    pub fn validate(&self, window: Option<u64>) -> Result<ValidSettings, SettingsError> {
        let t = self.threshold_ratio;
        if !(t > 0.0 && t <= 1.0) {
            return Err(SettingsError::ThresholdRatio(t));
        }
        match self.retain {
            Retain::Ratio(r) if !(r > 0.0 && r < t) => {
                return Err(SettingsError::RetainRatio {
                    got: r,
                    threshold: t,
                });
            }
            Retain::Tokens(n) => {
                if let Some(w) = window {
                    let threshold = self.threshold(w);
                    if n >= threshold {
                        return Err(SettingsError::RetainTokens { got: n, threshold });
                    }
                }
            }
            Retain::Ratio(_) => {}
        }
        if let Some(p) = self.pruner
            && p.head_chars + PRUNE_MARKER_CHARS + p.tail_chars > p.threshold_chars
        {
            return Err(SettingsError::PruneSizes {
                threshold: p.threshold_chars,
                head: p.head_chars,
                marker: PRUNE_MARKER_CHARS,
                tail: p.tail_chars,
            });
        }
        if self.summary_tokens == Some(0) {
            return Err(SettingsError::SummaryTokens);
        }
        Ok(ValidSettings(*self))
    }

    /// `⌊window × threshold_ratio⌋` (an f64 product, as the harness computes it).
    pub fn threshold(&self, window: u64) -> u64 {
        surface_engine::meter::threshold(window, self.threshold_ratio)
    }

    /// The retain budget of a pressure summary under `window`.
    pub fn retain_budget(&self, window: u64) -> u64 {
        match self.retain {
            Retain::Ratio(r) => (window as f64 * r).floor().max(0.0) as u64,
            Retain::Tokens(n) => n,
        }
    }

    /// The retain ratio, when the budget is one.
    pub fn retain_ratio(&self) -> Option<f64> {
        match self.retain {
            Retain::Ratio(r) => Some(r),
            Retain::Tokens(_) => None,
        }
    }

    /// The fixed retain budget, when the budget is one.
    pub fn retain_tokens(&self) -> Option<u64> {
        match self.retain {
            Retain::Tokens(n) => Some(n),
            Retain::Ratio(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_give_the_harness_figures() {
        let s = PolicySettings::default();
        assert_eq!(s.validate(Some(16_000)).map(|v| *v.get()), Ok(s));
        assert_eq!(s.threshold(16_000), 12_800);
        assert_eq!(s.retain_budget(16_000), 2_560);
    }

    #[test]
    fn invalid_settings_name_their_flag() {
        let bad = |s: PolicySettings| s.validate(Some(16_000)).unwrap_err().to_string();
        let base = PolicySettings::default();
        for t in [0.0, -0.1, 1.01, f64::NAN] {
            let e = bad(PolicySettings {
                threshold_ratio: t,
                ..base
            });
            assert!(e.starts_with("--threshold-ratio"), "{e}");
        }
        let e = bad(PolicySettings {
            retain: Retain::Ratio(0.8),
            ..base
        });
        assert!(e.starts_with("--retain-ratio"), "{e}");
        let e = bad(PolicySettings {
            retain: Retain::Tokens(12_800),
            ..base
        });
        assert!(e.starts_with("--retain-tokens"), "{e}");
        let e = bad(PolicySettings {
            pruner: Some(PrunerSettings {
                threshold_chars: 5158,
                head_chars: 4096,
                tail_chars: 1024,
            }),
            ..base
        });
        assert!(e.starts_with("--prune"), "{e}");
        let ok = PolicySettings {
            pruner: Some(PrunerSettings {
                threshold_chars: 5159,
                head_chars: 4096,
                tail_chars: 1024,
            }),
            ..base
        };
        assert!(ok.validate(None).is_ok());
        // A retain budget of 0 tokens is legal (the summary keeps only the newest node).
        let zero = PolicySettings {
            retain: Retain::Tokens(0),
            ..base
        };
        assert!(zero.validate(Some(16_000)).is_ok());
        assert!(zero.validate(None).is_ok());
    }
}
