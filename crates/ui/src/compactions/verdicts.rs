//! The policy's verdict on each of the log's compactions (issue #24): the verify replay with
//! the Policy tab's settings, held against every prune and summary the log made — "as the
//! policy decided", or what differs at that compaction, with the check it belongs to. Built
//! once per landed report (O(checks)); a row then looks its verdict up by event.

use std::collections::HashMap;
use std::sync::Arc;

use surface_engine::policy::{CheckKind, CheckVerdict, PolicyInput, PolicyReport};

/// What the table shows for one compaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowVerdict {
    /// The check's decision equals the log's (`None`: not compared).
    pub agrees: Option<bool>,
    /// The cell: "as the policy decided" or what differs here.
    pub cell: String,
    /// The hover: the cell, the check it belongs to and the check's own verdict.
    pub detail: String,
}

/// The verdicts of the log's compactions, by the event carrying each replace op.
#[derive(Debug, Default)]
pub struct CompactionVerdicts {
    /// The report they were made from (its address).
    made_from: Option<usize>,
    by_event: HashMap<u32, RowVerdict>,
}

impl CompactionVerdicts {
    /// Rebuilds the verdicts when `landed` is another report than last time; forgets them
    /// when there is none.
    pub fn refresh(&mut self, landed: Option<(&Arc<PolicyInput>, &Arc<PolicyReport>)>) {
        let Some((input, report)) = landed else {
            *self = CompactionVerdicts::default();
            return;
        };
        let key = Arc::as_ptr(report) as usize;
        if self.made_from != Some(key) {
            self.by_event = verdicts(input, report);
            self.made_from = Some(key);
        }
    }

    /// The verdict on the compaction whose replace op is `event`.
    pub fn of(&self, event: u32) -> Option<&RowVerdict> {
        self.by_event.get(&event)
    }
}

/// One verdict per compaction of `input`, from `report` (a verify replay of the same input:
/// one check for each of the input's check points).
pub fn verdicts(input: &PolicyInput, report: &PolicyReport) -> HashMap<u32, RowVerdict> {
    let mut out = HashMap::new();
    if report.checks.len() != input.checks().len() {
        return out;
    }
    for (point, check) in input.checks().iter().zip(&report.checks) {
        for prune in &point.log.prunes {
            if let Some(event) = prune.replace_event {
                let cell = prune_difference(check, prune.target_seq, prune.invalid);
                out.insert(event, row(check, cell));
            }
        }
        for (k, summary) in point.log.summaries.iter().enumerate() {
            if let Some(event) = summary.replace_event {
                let cell = summary_difference(check, k, summary.range, summary.invalid);
                out.insert(event, row(check, cell));
            }
        }
    }
    out
}

/// The phrase shown when a compaction is the policy's own.
pub const AS_DECIDED: &str = "as the policy decided";

fn row(check: &CheckVerdict, cell: String) -> RowVerdict {
    let mut detail = format!("{cell}\n{}", check_name(check));
    if let Some(why) = check.why.as_ref().filter(|why| **why != cell) {
        detail.push_str(&format!("\nthe check: {why}"));
    }
    RowVerdict {
        agrees: check.agrees,
        cell,
        detail,
    }
}

/// "check at seq 260 (step 1.9, pressure 15543 / 12800)".
fn check_name(check: &CheckVerdict) -> String {
    let step = match (check.turn, check.step) {
        (Some(t), Some(s)) => format!("step {t}.{s}, "),
        _ => String::new(),
    };
    let trigger = match (check.trigger, check.threshold) {
        (CheckKind::Pressure, Some(h)) => format!("pressure {} / {h}", check.total),
        (CheckKind::Pressure, None) => format!("pressure {}, no window", check.total),
        (CheckKind::Overflow, _) => format!("overflow at {}", check.total),
        (CheckKind::Command, _) => format!("/compact at {}", check.total),
    };
    format!(
        "the check at seq {} ({step}{trigger}): the policy {}",
        check.step_start_seq,
        check.outcome.as_str()
    )
}

/// The policy did nothing at the check: why, in a phrase.
fn not_fired(check: &CheckVerdict) -> Option<String> {
    if !check.pruned.is_empty() || !check.summaries.is_empty() {
        return None;
    }
    Some(match (check.trigger, check.threshold) {
        (CheckKind::Pressure, Some(h)) => format!(
            "the policy would not have fired here ({} < threshold {h})",
            check.total
        ),
        (CheckKind::Pressure, None) => {
            "the policy would not have fired here (no window in force)".to_string()
        }
        _ => format!(
            "the policy would not compact here ({})",
            check.outcome.as_str()
        ),
    })
}

fn invalid_or_agreeing(check: &CheckVerdict, invalid: bool) -> Option<String> {
    if invalid {
        return Some("not applied: an invalid replace op".to_string());
    }
    (check.agrees != Some(false)).then(|| AS_DECIDED.to_string())
}

fn prune_difference(check: &CheckVerdict, target: Option<u64>, invalid: bool) -> String {
    if let Some(phrase) = invalid_or_agreeing(check, invalid).or_else(|| not_fired(check)) {
        return phrase;
    }
    match target {
        Some(seq) if !check.pruned.contains(&seq) => {
            if check.pruned.is_empty() {
                "a prune the policy would not make (it prunes nothing here)".to_string()
            } else {
                format!(
                    "a prune the policy would not make (it prunes [{}])",
                    join(&check.pruned)
                )
            }
        }
        _ => format!(
            "the policy's prune; the check differs: {}",
            check.why.as_deref().unwrap_or("—")
        ),
    }
}

fn summary_difference(
    check: &CheckVerdict,
    attempt: usize,
    range: Option<(u64, u64)>,
    invalid: bool,
) -> String {
    if let Some(phrase) = invalid_or_agreeing(check, invalid).or_else(|| not_fired(check)) {
        return phrase;
    }
    let Some(planned) = check.summaries.get(attempt) else {
        return match check.summaries.len() {
            0 => "a summary the policy would not make (it only prunes here)".to_string(),
            n => format!(
                "a summary the policy would not make (it makes {n} attempt{})",
                if n == 1 { "" } else { "s" }
            ),
        };
    };
    match range {
        Some((start, end)) if (planned.start, planned.end) != (start, end) => {
            format!("range differs: policy {}..{}", planned.start, planned.end)
        }
        _ => format!(
            "the policy's summary; the check differs: {}",
            check.why.as_deref().unwrap_or("—")
        ),
    }
}

fn join(seqs: &[u64]) -> String {
    seqs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_engine::policy::{PolicySettings, ReplayMode, replay};
    use surface_engine::{Meter, Surface};

    fn p01_verdicts(threshold_ratio: f64) -> (usize, HashMap<u32, RowVerdict>) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/policy/p01.jsonl"
        );
        let log = surface_store::open(std::path::Path::new(path), None)
            .expect("the fixture")
            .log;
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        let settings = PolicySettings {
            threshold_ratio,
            ..PolicySettings::default()
        }
        .validate(meter.window_at(log.len()))
        .expect("valid settings");
        let report = replay(&log, &meter, &input, &settings, ReplayMode::Verify);
        let compactions = input
            .checks()
            .iter()
            .map(|c| c.log.prunes.len() + c.log.summaries.len())
            .sum();
        (compactions, verdicts(&input, &report))
    }

    #[test]
    fn every_compaction_of_an_agreeing_log_is_as_decided() {
        let (compactions, verdicts) = p01_verdicts(0.8);
        assert_eq!(verdicts.len(), compactions);
        for v in verdicts.values() {
            assert_eq!(v.cell, AS_DECIDED);
            assert_eq!(v.agrees, Some(true));
            assert!(v.detail.contains("the check at seq "), "{}", v.detail);
        }
    }

    #[test]
    fn a_higher_threshold_names_what_differs_at_each_compaction() {
        let (_, verdicts) = p01_verdicts(0.95);
        let cells: Vec<&str> = verdicts.values().map(|v| v.cell.as_str()).collect();
        assert!(cells.contains(&"the policy would not have fired here (14603 < threshold 15200)"));
        assert!(cells.contains(&"a summary the policy would not make (it only prunes here)"));
        for v in verdicts.values().filter(|v| v.agrees == Some(false)) {
            assert_ne!(v.cell, AS_DECIDED);
        }
    }

    #[test]
    fn a_report_of_another_input_gives_no_verdicts() {
        let input = PolicyInput::default();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/policy/p01.jsonl"
        );
        let log = surface_store::open(std::path::Path::new(path), None)
            .unwrap()
            .log;
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let full = PolicyInput::build(&log, &surface, &meter);
        let settings = PolicySettings::default().validate(None).unwrap();
        let report = replay(&log, &meter, &full, &settings, ReplayMode::Verify);
        assert!(verdicts(&input, &report).is_empty());
    }
}
