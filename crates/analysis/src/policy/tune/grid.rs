//! The grid `tune` sweeps: `NAME=VALUES` axes (a list, or an inclusive `FROM:TO:STEP` range at
//! four significant digits), the default grid when none is given, and its expansion into the
//! settings to replay — the combinations the policy forbids (a retain ratio at or above the
//! threshold ratio) left out and counted.

use serde::Serialize;
use thiserror::Error;

use super::super::report::four_digits;
use super::super::settings::{PRUNE_MARKER_CHARS, PolicySettings, PrunerSettings, Retain};

/// A grid axis the command line can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// T.
    ThresholdRatio,
    /// R.
    RetainRatio,
    /// N.
    RetainTokens,
    /// Summaries per check beyond the first.
    CompactionRetries,
    /// The pruner's sizes, or none.
    Pruner,
    /// A hypothetical summary's price.
    SummaryTokens,
}

impl Axis {
    const ALL: [(Axis, &'static str); 6] = [
        (Axis::ThresholdRatio, "threshold_ratio"),
        (Axis::RetainRatio, "retain_ratio"),
        (Axis::RetainTokens, "retain_tokens"),
        (Axis::CompactionRetries, "compaction_retries"),
        (Axis::Pruner, "pruner"),
        (Axis::SummaryTokens, "summary_tokens"),
    ];

    /// The axis's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        Axis::ALL
            .iter()
            .find(|(a, _)| *a == self)
            .map_or("", |(_, n)| n)
    }

    fn parse(name: &str) -> Option<Axis> {
        Axis::ALL.iter().find(|(_, n)| *n == name).map(|(a, _)| *a)
    }
}

/// One value of an axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GridValue {
    /// A ratio.
    Ratio(f64),
    /// A whole number.
    Count(u64),
    /// A pruner (`None`: off), shown as `on`, `off` or `CHARS/HEAD/TAIL`.
    #[serde(serialize_with = "pruner_text")]
    Pruner(Option<PrunerSettings>),
}

fn pruner_text<S: serde::Serializer>(p: &Option<PrunerSettings>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&pruner_name(*p))
}

/// `on` (the harness's sizes), `off`, or `CHARS/HEAD/TAIL`.
pub fn pruner_name(p: Option<PrunerSettings>) -> String {
    match p {
        None => "off".to_string(),
        Some(p) if p == PrunerSettings::default() => "on".to_string(),
        Some(p) => format!("{}/{}/{}", p.threshold_chars, p.head_chars, p.tail_chars),
    }
}

/// A grid that cannot be read; the message starts with `--grid`.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("--grid {0}")]
pub struct GridError(String);

/// The axes to sweep, each with its values, in [`Axis`] order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    /// The axes given (the rest keep the policy's defaults).
    pub axes: Vec<(Axis, Vec<GridValue>)>,
}

/// The settings of a grid and how many of its combinations were left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Expanded {
    /// The settings to replay, in grid order.
    pub settings: Vec<PolicySettings>,
    /// Combinations the policy forbids.
    pub left_out: usize,
}

impl Grid {
    /// The default grid: T 0.50:0.95:0.05 × R 0.08,0.16,0.24,0.32 × pruner on,off × retries
    /// 0,1,2 (240 settings).
    pub fn default_grid() -> Grid {
        let mut grid = Grid { axes: Vec::new() };
        for arg in [
            "threshold_ratio=0.50:0.95:0.05",
            "retain_ratio=0.08,0.16,0.24,0.32",
            "compaction_retries=0,1,2",
            "pruner=on,off",
        ] {
            // The default grid's text is ours and reads.
            if let Ok((axis, values)) = parse_axis(arg) {
                grid.axes.push((axis, values));
            }
        }
        grid.axes.sort_by_key(|(a, _)| *a);
        grid
    }

    /// The grid of `--grid` arguments (the default grid when there are none).
    pub fn parse(args: &[String]) -> Result<Grid, GridError> {
        if args.is_empty() {
            return Ok(Grid::default_grid());
        }
        let mut axes: Vec<(Axis, Vec<GridValue>)> = Vec::new();
        for arg in args {
            let (axis, values) = parse_axis(arg)?;
            if axes.iter().any(|(a, _)| *a == axis) {
                return Err(GridError(format!("{}: given twice", axis.name())));
            }
            axes.push((axis, values));
        }
        let has = |x: Axis| axes.iter().any(|(a, _)| *a == x);
        if has(Axis::RetainRatio) && has(Axis::RetainTokens) {
            return Err(GridError(
                "retain_ratio and retain_tokens exclude each other: give one".to_string(),
            ));
        }
        axes.sort_by_key(|(a, _)| *a);
        Ok(Grid { axes })
    }

    /// Every combination applied to the policy's defaults, the forbidden ones left out.
    pub fn expand(&self) -> Expanded {
        let mut all = vec![PolicySettings::default()];
        for (axis, values) in &self.axes {
            all = all
                .iter()
                .flat_map(|s| values.iter().map(move |v| apply(*s, *axis, *v)))
                .collect();
        }
        let before = all.len();
        all.retain(|s| s.validate(None).is_ok());
        Expanded {
            left_out: before - all.len(),
            settings: all,
        }
    }
}

fn apply(mut s: PolicySettings, axis: Axis, value: GridValue) -> PolicySettings {
    match (axis, value) {
        (Axis::ThresholdRatio, GridValue::Ratio(t)) => s.threshold_ratio = t,
        (Axis::RetainRatio, GridValue::Ratio(r)) => s.retain = Retain::Ratio(r),
        (Axis::RetainTokens, GridValue::Count(n)) => s.retain = Retain::Tokens(n),
        (Axis::CompactionRetries, GridValue::Count(k)) => {
            s.compaction_retries = u32::try_from(k).unwrap_or(u32::MAX)
        }
        (Axis::Pruner, GridValue::Pruner(p)) => s.pruner = p,
        (Axis::SummaryTokens, GridValue::Count(n)) => s.summary_tokens = Some(n),
        _ => {}
    }
    s
}

fn parse_axis(arg: &str) -> Result<(Axis, Vec<GridValue>), GridError> {
    let bad = |why: String| GridError(why);
    let (name, values) = arg
        .split_once('=')
        .ok_or_else(|| bad(format!("{arg:?}: not NAME=VALUES")))?;
    let axis = Axis::parse(name.trim()).ok_or_else(|| {
        bad(format!(
            "{arg:?}: {name:?} is not one of threshold_ratio, retain_ratio, retain_tokens, compaction_retries, pruner, summary_tokens"
        ))
    })?;
    let values = match axis {
        Axis::ThresholdRatio | Axis::RetainRatio => numbers(values)
            .ok_or_else(|| bad(format!("{arg:?}: not a list or FROM:TO:STEP of numbers")))?
            .into_iter()
            .map(|x| check_ratio(axis, x).map(GridValue::Ratio))
            .collect::<Result<Vec<_>, _>>()?,
        Axis::RetainTokens | Axis::CompactionRetries | Axis::SummaryTokens => numbers(values)
            .filter(|xs| xs.iter().all(|x| x.fract() == 0.0 && *x >= 0.0))
            .ok_or_else(|| {
                bad(format!(
                    "{arg:?}: not a list or FROM:TO:STEP of whole numbers"
                ))
            })?
            .into_iter()
            .map(|x| match (axis, x as u64) {
                (Axis::SummaryTokens, 0) => {
                    Err(bad(format!("{arg:?}: summary_tokens must be at least 1")))
                }
                (Axis::CompactionRetries, k) if k > u64::from(u32::MAX) => {
                    Err(bad(format!("{arg:?}: {k} retries is too many")))
                }
                (_, n) => Ok(GridValue::Count(n)),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Axis::Pruner => values
            .split(',')
            .map(|v| {
                pruner(v.trim())
                    .map(GridValue::Pruner)
                    .map_err(|why| bad(format!("{arg:?}: {why}")))
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    if values.is_empty() {
        return Err(bad(format!("{arg:?}: no values")));
    }
    Ok((axis, values))
}

fn check_ratio(axis: Axis, x: f64) -> Result<f64, GridError> {
    if x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(GridError(format!(
            "{}: {x} is not greater than 0 and at most 1",
            axis.name()
        )))
    }
}

/// A list `a,b,c` or an inclusive range `FROM:TO:STEP`, each value at four significant digits.
fn numbers(text: &str) -> Option<Vec<f64>> {
    let parse = |t: &str| t.trim().parse::<f64>().ok().filter(|x| x.is_finite());
    let parts: Vec<&str> = text.split(':').collect();
    match parts.as_slice() {
        [one] => one.split(',').map(parse).collect(),
        [from, to, step] => {
            let (from, to, step) = (parse(from)?, parse(to)?, parse(step)?);
            if step <= 0.0 || to < from || (to - from) / step > 100_000.0 {
                return None;
            }
            let count = ((to - from) / step * (1.0 + 1e-9)).floor() as usize;
            Some(
                (0..=count)
                    .map(|i| four_digits(from + i as f64 * step))
                    .collect(),
            )
        }
        _ => None,
    }
}

fn pruner(text: &str) -> Result<Option<PrunerSettings>, String> {
    match text {
        "on" => return Ok(Some(PrunerSettings::default())),
        "off" => return Ok(None),
        _ => {}
    }
    let numbers: Option<Vec<u64>> = text.split('/').map(|p| p.trim().parse().ok()).collect();
    let Some(&[threshold_chars, head_chars, tail_chars]) = numbers.as_deref() else {
        return Err(format!("{text:?} is not on, off or CHARS/HEAD/TAIL"));
    };
    if head_chars + PRUNE_MARKER_CHARS + tail_chars > threshold_chars {
        return Err(format!(
            "{text:?}: head + marker ({PRUNE_MARKER_CHARS}) + tail exceed the threshold"
        ));
    }
    Ok(Some(PrunerSettings {
        threshold_chars,
        head_chars,
        tail_chars,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(args: &[&str]) -> Result<Grid, GridError> {
        Grid::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_default_grid_holds_240_settings() {
        let g = Grid::parse(&[]).unwrap();
        let e = g.expand();
        assert_eq!(e.settings.len(), 240);
        assert_eq!(e.left_out, 0);
        let ts: Vec<f64> = match &g.axes[0] {
            (Axis::ThresholdRatio, v) => v
                .iter()
                .map(|x| match x {
                    GridValue::Ratio(r) => *r,
                    _ => f64::NAN,
                })
                .collect(),
            _ => vec![],
        };
        assert_eq!(ts.len(), 10);
        assert_eq!(ts[0], 0.5);
        assert_eq!(
            ts[3], 0.65,
            "four significant digits, not 0.6500000000000001"
        );
        assert_eq!(ts[9], 0.95, "the end is included");
    }

    #[test]
    fn lists_ranges_and_pruners() {
        let g = grid(&[
            "retain_ratio=0.1,0.2",
            "pruner=on,off,9000/4096/1024",
            "compaction_retries=0:2:1",
        ])
        .unwrap();
        let e = g.expand();
        assert_eq!(e.settings.len(), 2 * 3 * 3);
        assert!(e.settings.iter().any(|s| s.pruner.is_none()));
        assert!(
            e.settings
                .iter()
                .any(|s| s.pruner.is_some_and(|p| p.threshold_chars == 9000))
        );
        assert!(e.settings.iter().any(|s| s.compaction_retries == 2));
        let json = serde_json::to_string(&g.axes[2].1).unwrap();
        assert_eq!(json, r#"["on","off","9000/4096/1024"]"#);
    }

    #[test]
    fn forbidden_combinations_are_left_out_and_counted() {
        let e = grid(&["threshold_ratio=0.2,0.5", "retain_ratio=0.16,0.3,0.6"])
            .unwrap()
            .expand();
        // T 0.2: R 0.3 and 0.6 forbidden; T 0.5: R 0.6 forbidden.
        assert_eq!((e.settings.len(), e.left_out), (3, 3));
    }

    #[test]
    fn a_bad_value_is_one_line_naming_the_flag() {
        for bad in [
            &["threshold_ratio=0.6,x"][..],
            &["threshold_ratio=1.5"],
            &["threshold_ratio=0.9:0.5:0.1"],
            &["retries=1"],
            &["threshold_ratio"],
            &["pruner=maybe"],
            &["pruner=100/4096/1024"],
            &["compaction_retries=0.5"],
            &["summary_tokens=0"],
            &["retain_ratio=0.1", "retain_tokens=100"],
            &["retain_ratio=0.1", "retain_ratio=0.2"],
        ] {
            let e = grid(bad).unwrap_err().to_string();
            assert!(e.starts_with("--grid "), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
