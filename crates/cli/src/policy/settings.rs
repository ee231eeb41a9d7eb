//! Reading the policy's settings from the command line: each flag's number, the exclusive
//! pairs, and the engine's own checks — every refusal one line naming the flag.

use anyhow::{anyhow, bail};

use super::PolicySettingsArgs;
use surface_engine::policy::{PolicySettings, PrunerSettings, Retain, ValidSettings};

/// The settings `options` give (the harness's defaults for the rest), checked against
/// `window` when it is known.
pub fn settings_of(
    options: &PolicySettingsArgs,
    window: Option<u64>,
) -> anyhow::Result<ValidSettings> {
    let mut s = PolicySettings::default();
    if let Some(t) = &options.threshold_ratio {
        s.threshold_ratio = ratio("--threshold-ratio", t)?;
    }
    match (&options.retain_ratio, &options.retain_tokens) {
        (Some(_), Some(_)) => {
            bail!("--retain-ratio and --retain-tokens exclude each other: give one")
        }
        (Some(r), None) => s.retain = Retain::Ratio(ratio("--retain-ratio", r)?),
        (None, Some(n)) => s.retain = Retain::Tokens(count("--retain-tokens", n)?),
        (None, None) => {}
    }
    if let Some(k) = &options.compaction_retries {
        s.compaction_retries = u32::try_from(count("--compaction-retries", k)?)
            .map_err(|_| anyhow!("--compaction-retries: {k:?} is too large"))?;
    }
    match (options.no_prune, &options.prune) {
        (true, Some(_)) => bail!("--no-prune and --prune exclude each other: give one"),
        (true, None) => s.pruner = None,
        (false, Some(text)) => s.pruner = Some(pruner(text)?),
        (false, None) => {}
    }
    if let Some(text) = &options.summary_tokens {
        s.summary_tokens = Some(count("--summary-tokens", text)?);
    }
    Ok(s.validate(window)?)
}

fn ratio(flag: &str, text: &str) -> anyhow::Result<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite())
        .ok_or_else(|| anyhow!("{flag}: {text:?} is not a number (e.g. 0.8)"))
}

fn count(flag: &str, text: &str) -> anyhow::Result<u64> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| anyhow!("{flag}: {text:?} is not a whole number of 0 or more"))
}

fn pruner(text: &str) -> anyhow::Result<PrunerSettings> {
    let parts: Vec<&str> = text.split(',').collect();
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| p.trim().parse::<u64>().ok()).collect();
    match numbers.as_deref() {
        Some(&[threshold_chars, head_chars, tail_chars]) => Ok(PrunerSettings {
            threshold_chars,
            head_chars,
            tail_chars,
        }),
        _ => bail!(
            "--prune: {text:?} is not CHARS,HEAD,TAIL (three whole numbers, e.g. 8192,4096,1024)"
        ),
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
