//! The Policy tab's state as tests and the shell read it, through the app.

use surface_analysis::policy::{PolicyReport, PolicySettings};

/// The Policy tab as tests see it.
impl crate::app::ViewerApp {
    /// The settings the Policy tab replays.
    pub fn policy_settings(&self) -> PolicySettings {
        self.panels.policy.settings
    }

    /// The Policy tab's latest report, if one was computed.
    pub fn policy_report(&self) -> Option<std::sync::Arc<PolicyReport>> {
        self.panels
            .policy
            .job
            .report_or_latest(self.panels.policy.mode)
            .cloned()
    }

    /// The Policy tab's prediction against a real run as shown: (row, predicted, B's real),
    /// once a what-if and a comparison exist.
    pub fn policy_beside_table(&mut self) -> Option<Vec<(&'static str, String, String)>> {
        let report = self.panels.policy.latest_what_if()?;
        let run = self.panels.compare.result()?;
        let ledgers = self
            .panels
            .policy
            .ledgers
            .ledgers()
            .map(std::sync::Arc::clone);
        let rows = crate::policy::beside::beside_rows(&report, ledgers.as_deref(), run);
        Some(
            rows.into_iter()
                .map(|r| (r.name, r.predicted, r.real))
                .collect(),
        )
    }

    /// The Policy tab's what-if ledgers as shown: (row, actual, what-if), once computed.
    pub fn policy_ledger_table(&mut self) -> Option<Vec<(&'static str, String, String)>> {
        let l = self.panels.policy.ledgers.ledgers()?;
        Some(crate::policy::ledgers::ledger_table(l))
    }
}
