//! The recommendation's constraints read from text, as `--max-over-window N` and
//! `--max-over-threshold X` give them (and the viewer's two fields): a bad value is one line
//! naming its flag.

use surface_analysis::policy::tune::Constraints;

/// The constraints of `max_over_window` (a whole number of 0 or more; `None`: 0) and
/// `max_over_threshold` (a share between 0 and 1; `None`: no limit).
pub fn constraints_of(
    max_over_window: Option<&str>,
    max_over_threshold: Option<&str>,
) -> Result<Constraints, String> {
    let max_over_window =
        match max_over_window {
            None => 0.0,
            Some(t) => t.trim().parse::<u64>().map_err(|_| {
                format!("--max-over-window: {t:?} is not a whole number of 0 or more")
            })? as f64,
        };
    let max_over_threshold = match max_over_threshold {
        None => None,
        Some(t) => Some(
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    format!("--max-over-threshold: {t:?} is not a share between 0 and 1")
                })?,
        ),
    };
    Ok(Constraints {
        max_over_window,
        max_over_threshold,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_and_a_bad_value_naming_its_flag() {
        let c = constraints_of(None, None).unwrap();
        assert_eq!((c.max_over_window, c.max_over_threshold), (0.0, None));
        let c = constraints_of(Some(" 2 "), Some("0.1")).unwrap();
        assert_eq!((c.max_over_window, c.max_over_threshold), (2.0, Some(0.1)));
        assert_eq!(
            constraints_of(Some("-1"), None).unwrap_err(),
            "--max-over-window: \"-1\" is not a whole number of 0 or more"
        );
        assert!(
            constraints_of(None, Some("1.5"))
                .unwrap_err()
                .starts_with("--max-over-threshold:")
        );
    }
}
