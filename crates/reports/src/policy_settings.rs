//! The policy's settings as a shell gives them, as text: each number read, the exclusive
//! pairs, and the engine's own checks — every refusal one sentence naming the setting the way
//! that shell spells it (`--threshold-ratio` on the command line, `threshold_ratio` in a tool
//! call).

use surface_analysis::policy::{PolicySettings, PrunerSettings, Retain, ValidSettings};

use crate::ReportError;

/// The settings, each as the text given (none: the harness's default).
#[derive(Clone, Debug, Default)]
pub struct SettingsText {
    /// Threshold ratio T.
    pub threshold_ratio: Option<String>,
    /// Retain ratio R.
    pub retain_ratio: Option<String>,
    /// Retain budget in tokens.
    pub retain_tokens: Option<String>,
    /// Summaries per pressure check beyond the first.
    pub compaction_retries: Option<String>,
    /// Replay without the tool-result pruner.
    pub no_prune: bool,
    /// The pruner's sizes, `CHARS,HEAD,TAIL`.
    pub prune: Option<String>,
    /// Price of a hypothetical summary in a what-if.
    pub summary_tokens: Option<String>,
    /// Replay as a what-if.
    pub what_if: bool,
}

/// How refusals spell a setting's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// `--threshold-ratio`.
    Flag,
    /// `threshold_ratio`.
    Argument,
}

impl Spelling {
    fn name(self, snake: &str) -> String {
        match self {
            Spelling::Flag => format!("--{}", snake.replace('_', "-")),
            Spelling::Argument => snake.to_string(),
        }
    }
}

/// The settings `text` gives (the harness's defaults for the rest), checked against `window`
/// when it is known.
pub fn settings_of(
    text: &SettingsText,
    window: Option<u64>,
    spelling: Spelling,
) -> Result<ValidSettings, ReportError> {
    let n = |s: &str| spelling.name(s);
    let fail = |m: String| ReportError::Option(m);
    let mut s = PolicySettings::default();
    if let Some(t) = &text.threshold_ratio {
        s.threshold_ratio = ratio(&n("threshold_ratio"), t)?;
    }
    match (&text.retain_ratio, &text.retain_tokens) {
        (Some(_), Some(_)) => {
            return Err(fail(format!(
                "{} and {} exclude each other: give one",
                n("retain_ratio"),
                n("retain_tokens")
            )));
        }
        (Some(r), None) => s.retain = Retain::Ratio(ratio(&n("retain_ratio"), r)?),
        (None, Some(t)) => s.retain = Retain::Tokens(count(&n("retain_tokens"), t)?),
        (None, None) => {}
    }
    if let Some(k) = &text.compaction_retries {
        let flag = n("compaction_retries");
        s.compaction_retries = u32::try_from(count(&flag, k)?)
            .map_err(|_| fail(format!("{flag}: {k:?} is too large")))?;
    }
    match (text.no_prune, &text.prune) {
        (true, Some(_)) => {
            return Err(fail(format!(
                "{} and {} exclude each other: give one",
                n("no_prune"),
                n("prune")
            )));
        }
        (true, None) => s.pruner = None,
        (false, Some(t)) => s.pruner = Some(pruner(&n("prune"), t)?),
        (false, None) => {}
    }
    if let Some(t) = &text.summary_tokens {
        s.summary_tokens = Some(count(&n("summary_tokens"), t)?);
    }
    s.validate(window)
        .map_err(|e| fail(spelled(&e.to_string(), spelling)))
}

/// The engine's refusal, which names flags, with the names spelled as `spelling` says.
fn spelled(message: &str, spelling: Spelling) -> String {
    match spelling {
        Spelling::Flag => message.to_string(),
        Spelling::Argument => message
            .split(' ')
            .map(|w| match w.strip_prefix("--") {
                Some(flag) => flag.replace('-', "_"),
                None => w.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn ratio(flag: &str, text: &str) -> Result<f64, ReportError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite())
        .ok_or_else(|| ReportError::Option(format!("{flag}: {text:?} is not a number (e.g. 0.8)")))
}

fn count(flag: &str, text: &str) -> Result<u64, ReportError> {
    text.trim().parse::<u64>().map_err(|_| {
        ReportError::Option(format!(
            "{flag}: {text:?} is not a whole number of 0 or more"
        ))
    })
}

fn pruner(flag: &str, text: &str) -> Result<PrunerSettings, ReportError> {
    let parts: Vec<&str> = text.split(',').collect();
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| p.trim().parse::<u64>().ok()).collect();
    match numbers.as_deref() {
        Some(&[threshold_chars, head_chars, tail_chars]) => Ok(PrunerSettings {
            threshold_chars,
            head_chars,
            tail_chars,
        }),
        _ => Err(ReportError::Option(format!(
            "{flag}: {text:?} is not CHARS,HEAD,TAIL (three whole numbers, e.g. 8192,4096,1024)"
        ))),
    }
}
