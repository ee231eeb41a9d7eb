//! The Policy tab's settings as the text the user types: read back into [`PolicySettings`],
//! filled from settings, and a setting picked inside the intervals the log was inferred to obey.

use surface_analysis::policy::{Inferred, PolicySettings, PrunerSettings, Retain, four_digits};

/// One text field per setting (the tab's own widget state, like the search box's text).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyFields {
    /// T.
    pub threshold_ratio: String,
    /// The retain budget is N tokens (else the ratio R).
    pub retain_in_tokens: bool,
    /// R.
    pub retain_ratio: String,
    /// N.
    pub retain_tokens: String,
    /// Summaries per check beyond the first.
    pub compaction_retries: String,
    /// The tool-result pruner runs.
    pub pruner_on: bool,
    /// The pruner's threshold in code points.
    pub prune_threshold: String,
    /// The pruner's kept head.
    pub prune_head: String,
    /// The pruner's kept tail.
    pub prune_tail: String,
    /// A hypothetical summary's price; empty: the log's mean.
    pub summary_tokens: String,
}

impl PolicyFields {
    /// The text of `settings` (pruner sizes default when the pruner is off; ratios to four
    /// significant digits, as the command line prints them).
    pub fn of(settings: &PolicySettings) -> Self {
        let pruner = settings.pruner.unwrap_or_default();
        let (ratio, tokens) = match settings.retain {
            Retain::Ratio(r) => (r, None),
            Retain::Tokens(n) => (surface_analysis::policy::DEFAULT_RETAIN_RATIO, Some(n)),
        };
        PolicyFields {
            threshold_ratio: four_digits(settings.threshold_ratio).to_string(),
            retain_in_tokens: tokens.is_some(),
            retain_ratio: four_digits(ratio).to_string(),
            retain_tokens: tokens.map(|n| n.to_string()).unwrap_or_default(),
            compaction_retries: settings.compaction_retries.to_string(),
            pruner_on: settings.pruner.is_some(),
            prune_threshold: pruner.threshold_chars.to_string(),
            prune_head: pruner.head_chars.to_string(),
            prune_tail: pruner.tail_chars.to_string(),
            summary_tokens: settings
                .summary_tokens
                .map(|n| n.to_string())
                .unwrap_or_default(),
        }
    }

    /// The settings the fields spell, starting from `base` (its overflow retries are kept), or
    /// which field is not a number.
    pub fn parse(&self, base: &PolicySettings) -> Result<PolicySettings, String> {
        let threshold_ratio = number::<f64>(&self.threshold_ratio, "threshold ratio T")?;
        let retain = if self.retain_in_tokens {
            Retain::Tokens(number(&self.retain_tokens, "retain tokens N")?)
        } else {
            Retain::Ratio(number(&self.retain_ratio, "retain ratio R")?)
        };
        let pruner = if self.pruner_on {
            Some(PrunerSettings {
                threshold_chars: number(&self.prune_threshold, "prune threshold")?,
                head_chars: number(&self.prune_head, "prune head")?,
                tail_chars: number(&self.prune_tail, "prune tail")?,
            })
        } else {
            None
        };
        let summary_tokens = if self.summary_tokens.trim().is_empty() {
            None
        } else {
            Some(number(&self.summary_tokens, "summary tokens")?)
        };
        Ok(PolicySettings {
            threshold_ratio,
            retain,
            compaction_retries: number(&self.compaction_retries, "compaction retries")?,
            pruner,
            summary_tokens,
            ..*base
        })
    }
}

/// `text` as a finite number, or why not.
fn number<N: std::str::FromStr + Finite>(text: &str, name: &str) -> Result<N, String> {
    match text.trim().parse::<N>() {
        Ok(n) if n.finite() => Ok(n),
        _ => Err(format!("{name}: {:?} is not a number", text.trim())),
    }
}

/// Numbers that can be infinite or NaN.
trait Finite {
    fn finite(&self) -> bool;
}

impl Finite for f64 {
    fn finite(&self) -> bool {
        self.is_finite()
    }
}

impl Finite for u64 {
    fn finite(&self) -> bool {
        true
    }
}

impl Finite for u32 {
    fn finite(&self) -> bool {
        true
    }
}

/// `base` moved inside every interval `inferred` holds: T and the pruner's threshold at the
/// middle of theirs, the retain budget as N tokens in the middle of its interval, the pruner on
/// or off as the log showed. What the log says nothing about stays as in `base`.
pub fn inside_inferred(inferred: &Inferred, base: &PolicySettings) -> PolicySettings {
    let mut settings = *base;
    if let Some([lo, hi]) = inferred.threshold_ratio
        && lo.is_finite()
    {
        // [lo, hi) cut to the valid (0, 1]: its middle; when it lies wholly above 1 (the log
        // never came near its threshold), 1, the nearest valid ratio.
        let hi = if hi.is_finite() { hi.min(1.0) } else { 1.0 };
        let middle = if hi > lo {
            (lo + hi) / 2.0
        } else {
            lo.min(1.0)
        };
        // Four significant digits, as the field shows it, when that stays inside.
        let short = four_digits(middle);
        settings.threshold_ratio = if short >= lo && short < hi {
            short
        } else {
            middle
        };
    }
    if let Some([lo, hi]) = inferred.retain_tokens
        && lo <= hi
    {
        settings.retain = Retain::Tokens(lo + (hi - lo) / 2);
    }
    match inferred.pruner {
        Some(false) => settings.pruner = None,
        Some(true) => {
            let mut pruner = settings.pruner.unwrap_or_default();
            if let Some([lo, hi]) = inferred.threshold_chars
                && lo <= hi
            {
                pruner.threshold_chars = lo + (hi - lo) / 2;
            }
            settings.pruner = Some(pruner);
        }
        None => {}
    }
    settings
}

/// An interval as the tab shows it.
pub fn interval_text<T: std::fmt::Display>(interval: Option<[T; 2]>, open_end: bool) -> String {
    match interval {
        Some([lo, hi]) => format!("[{lo}, {hi}{}", if open_end { ")" } else { "]" }),
        None => "—".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_the_settings() {
        let settings = PolicySettings {
            threshold_ratio: 0.7,
            retain: Retain::Tokens(1200),
            compaction_retries: 3,
            pruner: None,
            summary_tokens: Some(500),
            ..PolicySettings::default()
        };
        let fields = PolicyFields::of(&settings);
        assert_eq!(fields.parse(&PolicySettings::default()), Ok(settings));
        let defaults = PolicySettings::default();
        assert_eq!(PolicyFields::of(&defaults).parse(&defaults), Ok(defaults));
    }

    #[test]
    fn a_field_that_is_not_a_number_is_named() {
        let mut fields = PolicyFields::of(&PolicySettings::default());
        fields.threshold_ratio = "0.8x".into();
        let err = fields.parse(&PolicySettings::default()).unwrap_err();
        assert!(err.starts_with("threshold ratio T"), "{err}");
        fields.threshold_ratio = "NaN".into();
        assert!(fields.parse(&PolicySettings::default()).is_err());
        fields.threshold_ratio = "0.5".into();
        fields.prune_head = "-1".into();
        assert!(fields.parse(&PolicySettings::default()).is_err());
        fields.pruner_on = false;
        assert!(fields.parse(&PolicySettings::default()).is_ok());
    }

    #[test]
    fn inferred_settings_fall_inside_the_intervals() {
        let inferred = Inferred {
            threshold_ratio: Some([0.6, 0.9]),
            retain_tokens: Some([100, 301]),
            pruner: Some(true),
            threshold_chars: Some([4000, 9000]),
            conflicts: Vec::new(),
        };
        let s = inside_inferred(&inferred, &PolicySettings::default());
        assert!((s.threshold_ratio - 0.75).abs() < 1e-9);
        assert_eq!(s.retain, Retain::Tokens(200));
        assert_eq!(s.pruner.unwrap().threshold_chars, 6500);
        let off = Inferred {
            pruner: Some(false),
            threshold_ratio: Some([0.5, f64::INFINITY]),
            ..Inferred::default()
        };
        let s = inside_inferred(&off, &PolicySettings::default());
        assert_eq!(s.pruner, None);
        assert!((s.threshold_ratio - 0.75).abs() < 1e-9);
        let above = Inferred {
            threshold_ratio: Some([1.01, f64::INFINITY]),
            ..Inferred::default()
        };
        assert_eq!(
            inside_inferred(&above, &PolicySettings::default()).threshold_ratio,
            1.0
        );
        let nothing = inside_inferred(&Inferred::default(), &PolicySettings::default());
        assert_eq!(nothing, PolicySettings::default());
    }

    #[test]
    fn ratios_read_to_four_significant_digits() {
        // The middle of [0.79114583, 0.8) is 0.795572916…: 0.7956 lies inside, and is set.
        let inferred = Inferred {
            threshold_ratio: Some([0.791_145_833_3, 0.8]),
            ..Inferred::default()
        };
        let s = inside_inferred(&inferred, &PolicySettings::default());
        assert_eq!(s.threshold_ratio, 0.7956);
        assert_eq!(PolicyFields::of(&s).threshold_ratio, "0.7956");
        // A field shows four digits of whatever the settings hold.
        let long = PolicySettings {
            threshold_ratio: 0.795_572_916,
            ..PolicySettings::default()
        };
        assert_eq!(PolicyFields::of(&long).threshold_ratio, "0.7956");
        // An interval too narrow for four digits keeps its middle.
        let narrow = Inferred {
            threshold_ratio: Some([0.795_61, 0.795_62]),
            ..Inferred::default()
        };
        let t = inside_inferred(&narrow, &PolicySettings::default()).threshold_ratio;
        assert!((0.795_61..0.795_62).contains(&t), "{t}");
    }

    #[test]
    fn intervals_read_as_intervals() {
        assert_eq!(interval_text(Some([0.5, 0.9]), true), "[0.5, 0.9)");
        assert_eq!(interval_text(Some([1u64, 2]), false), "[1, 2]");
        assert_eq!(interval_text::<u64>(None, false), "—");
    }
}
