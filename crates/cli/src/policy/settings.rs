//! The policy's settings from the command line: the flags handed to surface-reports, which reads
//! each number, the exclusive pairs and the engine's own checks — every refusal one line
//! naming the flag.

use super::PolicySettingsArgs;
use surface_analysis::policy::ValidSettings;
use surface_reports::policy::{SettingsText, Spelling};

/// The settings `options` give (the harness's defaults for the rest), checked against
/// `window` when it is known; surface-reports reads them, naming each flag as spelled here.
pub fn settings_of(
    options: &PolicySettingsArgs,
    window: Option<u64>,
) -> anyhow::Result<ValidSettings> {
    Ok(surface_reports::policy::settings_of(
        &text_of(options),
        window,
        Spelling::Flag,
    )?)
}

/// The flags as the text surface-reports reads.
pub fn text_of(options: &PolicySettingsArgs) -> SettingsText {
    SettingsText {
        threshold_ratio: options.threshold_ratio.clone(),
        retain_ratio: options.retain_ratio.clone(),
        retain_tokens: options.retain_tokens.clone(),
        compaction_retries: options.compaction_retries.clone(),
        no_prune: options.no_prune,
        prune: options.prune.clone(),
        summary_tokens: options.summary_tokens.clone(),
        what_if: options.what_if,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(options: PolicySettingsArgs) -> String {
        settings_of(&options, Some(16_000)).unwrap_err().to_string()
    }

    /// The default arguments with `set` applied.
    fn with(set: impl FnOnce(&mut PolicySettingsArgs)) -> PolicySettingsArgs {
        let mut args = PolicySettingsArgs::default();
        set(&mut args);
        args
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    #[test]
    fn every_refusal_names_its_flag() {
        let cases = [
            (with(|a| a.threshold_ratio = some("0")), "--threshold-ratio"),
            (
                with(|a| a.threshold_ratio = some("1.5")),
                "--threshold-ratio",
            ),
            (with(|a| a.threshold_ratio = some("x")), "--threshold-ratio"),
            (with(|a| a.retain_ratio = some("0.8")), "--retain-ratio"),
            (
                with(|a| {
                    a.retain_ratio = some("0.1");
                    a.retain_tokens = some("100");
                }),
                "--retain-ratio and --retain-tokens",
            ),
            (with(|a| a.retain_tokens = some("12800")), "--retain-tokens"),
            (with(|a| a.prune = some("8192,4096")), "--prune"),
            (with(|a| a.prune = some("5000,4096,1024")), "--prune"),
            (
                with(|a| {
                    a.no_prune = true;
                    a.prune = some("1,1,1");
                }),
                "--no-prune and --prune",
            ),
            (with(|a| a.summary_tokens = some("-3")), "--summary-tokens"),
            (
                with(|a| a.compaction_retries = some("one")),
                "--compaction-retries",
            ),
        ];
        for (options, flag) in cases {
            let e = error(options);
            assert!(e.starts_with(flag), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn good_settings_are_taken() {
        let ok = with(|a| {
            a.threshold_ratio = some("0.7");
            a.retain_tokens = some("2000");
            a.prune = some("9000,4096,1024");
        });
        let s = settings_of(&ok, Some(16_000)).unwrap();
        assert_eq!(s.threshold(16_000), 11_200);
        assert_eq!(s.retain_budget(16_000), 2_000);
        // A retain budget of 0 tokens is legal.
        let s = settings_of(&with(|a| a.retain_tokens = some("0")), Some(16_000)).unwrap();
        assert_eq!(s.retain_tokens(), Some(0));
    }
}
