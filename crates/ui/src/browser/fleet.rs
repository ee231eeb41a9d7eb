//! The sessions browser's fleet columns (docs/export.md): what `policy DIR` says of each
//! session with the default settings — the policy's verdict, its disagreements, the log's
//! summaries and prunes, the peak fill (the meter's peak total ÷ the window) — and its cost
//! when a price file is set. Computed by the discovery's workers from the log they already
//! read (`job`), never on the UI thread.

use std::cmp::Ordering;

use surface_analysis::cost::{Ledger, PriceTable};
use surface_analysis::policy::{Outcome, PolicySettings, ReplayMode, replay};
use surface_engine::{EventLog, Surface};

/// One session's fleet figures.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetFigures {
    /// Pressure checks replayed.
    pub checks: usize,
    /// Checks whose decision disagrees with the log's (`policy DIR`'s `disagreements`).
    pub disagreements: usize,
    /// Checks where no context window was in force (the policy cannot fire there).
    pub no_window: usize,
    /// Of those, checks where the log compacted: the policy cannot judge them.
    pub cant_judge: usize,
    /// The log's summaries (`log_summaries`).
    pub summaries: usize,
    /// The log's pruned tool results (`log_prunes`).
    pub prunes: usize,
    /// The meter's peak total over the log (`log_peak_total`).
    pub peak_total: u64,
    /// The context window at the end of the log (`None`: the log states none).
    pub window: Option<u64>,
    /// The session's cost with the price file (`None`: no price file, or some call with usage
    /// has no price — unpriced, never 0).
    pub cost: Option<f64>,
    /// The models of the calls the price file has no price for.
    pub unpriced_models: Vec<String>,
    /// The price file's currency.
    pub currency: Option<String>,
    /// Why the policy could not be replayed (the default settings refused by the window).
    pub error: Option<String>,
}

/// The policy's verdict on a session, as the browser's column shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Every check the policy could judge agrees with the log (some may not be judged).
    Agrees,
    /// No check could be judged (or the policy could not be replayed).
    CantJudge,
    /// This many checks disagree.
    Disagrees(usize),
}

impl FleetFigures {
    /// The verdict: disagreements first, then "can't judge" when every check fell where no
    /// window was in force (nothing was weighed: "agrees" would claim what was never tested)
    /// or the replay was refused, else agrees.
    pub fn verdict(&self) -> Verdict {
        if self.disagreements > 0 {
            Verdict::Disagrees(self.disagreements)
        } else if self.error.is_some() || (self.checks > 0 && self.no_window == self.checks) {
            Verdict::CantJudge
        } else {
            Verdict::Agrees
        }
    }

    /// The peak fill, peak total ÷ window.
    pub fn peak_fill(&self) -> Option<f64> {
        self.window
            .filter(|&w| w > 0)
            .map(|w| self.peak_total as f64 / w as f64)
    }
}

impl Verdict {
    /// The cell's text.
    pub fn label(self) -> String {
        match self {
            Verdict::Agrees => "agrees".to_string(),
            Verdict::CantJudge => "can't judge".to_string(),
            Verdict::Disagrees(1) => "1 disagreement".to_string(),
            Verdict::Disagrees(n) => format!("{n} disagreements"),
        }
    }

    /// Sort key: agrees < can't judge < disagreements (by count).
    pub fn rank(self) -> (u8, usize) {
        match self {
            Verdict::Agrees => (0, 0),
            Verdict::CantJudge => (1, 0),
            Verdict::Disagrees(n) => (2, n),
        }
    }
}

/// The fleet figures of `log`: the policy verified with the default settings against the
/// window at its end (as `policy DIR` without flags), and its ledger priced by `prices`.
pub fn fleet_of(log: &EventLog, prices: Option<&PriceTable>) -> FleetFigures {
    let surface = Surface::at_end(log);
    let meter = surface_passes::meter_of(log, &surface);
    let window = meter.window_at(log.len());
    let settings = PolicySettings::default().validate(window);
    let (report, parts) = surface_passes::policy_parts_of(log, &surface, &meter, |input| {
        settings
            .as_ref()
            .ok()
            .map(|valid| replay(log, &meter, input, valid, ReplayMode::Verify))
    });
    let ledger = Ledger::build(&parts, prices);
    let mut figures = FleetFigures {
        checks: 0,
        disagreements: 0,
        no_window: 0,
        cant_judge: 0,
        summaries: 0,
        prunes: 0,
        peak_total: 0,
        window,
        cost: ledger.totals.all.cost,
        unpriced_models: ledger.unpriced_models.clone(),
        currency: ledger.currency.clone(),
        error: settings.as_ref().err().map(|e| e.to_string()),
    };
    if let Some(report) = report {
        figures.checks = report.checks.len();
        figures.disagreements = report.disagreements();
        figures.no_window = (report.checks.iter())
            .filter(|c| c.outcome == Outcome::NoWindow)
            .count();
        figures.cant_judge = report.checks.iter().filter(|c| c.cant_judge()).count();
        figures.summaries = report.actual_totals.summaries;
        figures.prunes = report.actual_totals.prunes;
        figures.peak_total = report.actual_totals.peak_total;
    }
    figures
}

/// Orders two floats (NaN never arises: fills and costs are finite).
pub fn float_order(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures of `checks` checks, `no_window` of them with no window in force.
    fn figures(checks: usize, disagreements: usize, no_window: usize) -> FleetFigures {
        FleetFigures {
            checks,
            disagreements,
            no_window,
            cant_judge: 0,
            summaries: 0,
            prunes: 0,
            peak_total: 50,
            window: Some(200),
            cost: None,
            unpriced_models: Vec::new(),
            currency: None,
            error: None,
        }
    }

    #[test]
    fn verdicts_and_fill() {
        assert_eq!(figures(3, 0, 1).verdict(), Verdict::Agrees);
        assert_eq!(figures(0, 0, 0).verdict(), Verdict::Agrees);
        assert_eq!(figures(2, 0, 2).verdict(), Verdict::CantJudge);
        // No window anywhere, and the log never compacted: nothing was weighed.
        let never_weighed = FleetFigures {
            cant_judge: 0,
            ..figures(20, 0, 20)
        };
        assert_eq!(never_weighed.verdict(), Verdict::CantJudge);
        assert_eq!(figures(4, 2, 1).verdict(), Verdict::Disagrees(2));
        assert_eq!(Verdict::Disagrees(2).label(), "2 disagreements");
        assert!(Verdict::Agrees.rank() < Verdict::CantJudge.rank());
        assert!(Verdict::Disagrees(1).rank() < Verdict::Disagrees(3).rank());
        assert_eq!(figures(1, 0, 0).peak_fill(), Some(0.25));
        let no_window = FleetFigures {
            window: None,
            ..figures(1, 0, 0)
        };
        assert_eq!(no_window.peak_fill(), None);
    }

    #[test]
    fn a_policy_fixture_is_replayed() {
        let text = include_bytes!("../../../../tests/fixtures/policy/p01.jsonl").to_vec();
        let log = surface_store::read_jsonl(text, None).unwrap();
        let f = fleet_of(&log, None);
        assert!(f.checks > 0, "{f:?}");
        assert!(f.peak_fill().is_some_and(|x| x > 0.0), "{f:?}");
        assert_eq!(f.cost, None);
    }

    #[test]
    fn a_log_with_no_window_anywhere_is_not_said_to_agree() {
        let text = include_bytes!(
            "../../../../tests/fixtures/upstream/v0-2026-07-20-live/live-mode-switching-2026-07-07.session.jsonl"
        )
        .to_vec();
        let log = surface_store::read_jsonl(text, None).unwrap();
        let f = fleet_of(&log, None);
        assert_eq!(
            (f.checks, f.no_window, f.disagreements),
            (20, 20, 0),
            "{f:?}"
        );
        assert_eq!(f.verdict(), Verdict::CantJudge);
        // p01 has a window at every check: judged, and it agrees.
        let text = include_bytes!("../../../../tests/fixtures/policy/p01.jsonl").to_vec();
        let p01 = fleet_of(&surface_store::read_jsonl(text, None).unwrap(), None);
        assert_eq!(
            (p01.no_window, p01.verdict()),
            (0, Verdict::Agrees),
            "{p01:?}"
        );
    }
}
