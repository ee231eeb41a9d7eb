//! The policy's verdict on each of the log's compactions (issue #24): the verify replay with
//! the Policy tab's settings, held against every prune and summary the log made — "as the
//! policy decided", "can't judge: no window", or what differs at that compaction, with the
//! check it belongs to (the engine's [`compaction_verdicts`], which the audit's HTML report
//! prints too). Built once per landed report (O(checks)); a row then looks its verdict up by
//! event.

use std::collections::HashMap;
use std::sync::Arc;

use surface_analysis::policy::{CompactionVerdict, PolicyInput, PolicyReport, compaction_verdicts};

/// What the table shows for one compaction.
pub type RowVerdict = CompactionVerdict;

pub use surface_analysis::policy::AS_DECIDED;

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
            self.by_event = compaction_verdicts(input, report);
            self.made_from = Some(key);
        }
    }

    /// The verdict on the compaction whose replace op is `event`.
    pub fn of(&self, event: u32) -> Option<&RowVerdict> {
        self.by_event.get(&event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_analysis::policy::{PolicySettings, ReplayMode, replay};
    use surface_engine::{Meter, Surface};

    fn p01_verdicts(threshold_ratio: f64) -> (usize, HashMap<u32, RowVerdict>) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/policy/p01.jsonl"
        );
        let log = surface_store::open(
            std::path::Path::new(path),
            &surface_store::Options::default(),
        )
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
        (compactions, compaction_verdicts(&input, &report))
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
        let log = surface_store::open(
            std::path::Path::new(path),
            &surface_store::Options::default(),
        )
        .unwrap()
        .log;
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let full = PolicyInput::build(&log, &surface, &meter);
        let settings = PolicySettings::default().validate(None).unwrap();
        let report = replay(&log, &meter, &full, &settings, ReplayMode::Verify);
        assert!(compaction_verdicts(&input, &report).is_empty());
    }
}
