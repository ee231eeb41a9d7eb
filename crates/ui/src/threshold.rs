//! The one compaction threshold the window judges by: the strip's dashed line, the Compactions
//! tab's header, its counts and its policy verdicts, and the Policy tab's replay all use the
//! same ratio T, and say where it came from — the one remembered from the last run, the log's
//! inferred settings, the Policy tab's field (its what-if), or the strip's menu — whichever set
//! it last.

/// Where the threshold ratio in force was last set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThresholdSource {
    /// The ratio the window opened with (the default, or the one remembered from last time).
    #[default]
    Remembered,
    /// "Use inferred settings": the interval the log's own compactions imply.
    Inferred,
    /// The Policy tab's threshold field (what its verify and what-if replays use).
    PolicyTab,
    /// The context strip's threshold menu.
    Strip,
}

impl ThresholdSource {
    /// "T 0.7, the Policy tab's": the ratio and who set it, for a header.
    pub fn named(self, ratio: f64) -> String {
        let who = match self {
            ThresholdSource::Remembered => "as opened",
            ThresholdSource::Inferred => "the log's inferred",
            ThresholdSource::PolicyTab => "the Policy tab's",
            ThresholdSource::Strip => "the strip's",
        };
        format!("T {ratio}, {who}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_names_itself_beside_the_ratio() {
        assert_eq!(
            ThresholdSource::PolicyTab.named(0.7),
            "T 0.7, the Policy tab's"
        );
        assert_eq!(ThresholdSource::Strip.named(0.95), "T 0.95, the strip's");
        assert_eq!(
            ThresholdSource::Inferred.named(0.7),
            "T 0.7, the log's inferred"
        );
        assert_eq!(ThresholdSource::default().named(0.8), "T 0.8, as opened");
    }
}
