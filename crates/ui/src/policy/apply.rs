//! Applying the [`PolicyCommand`]s: the settings and mode the Policy tab replays, and the
//! settings picked inside the intervals inferred from the log.

use crate::app::ViewerApp;
use crate::policy::command::PolicyCommand;
use crate::policy::fields::inside_inferred;

impl ViewerApp {
    /// Applies a command of the Policy tab.
    pub(crate) fn apply_policy(&mut self, command: PolicyCommand) {
        let policy = &mut self.panels.policy;
        match command {
            // The fields keep the text being typed; only the settings change.
            PolicyCommand::SetPolicySettings(settings) => policy.settings = settings,
            PolicyCommand::SetPolicyMode(mode) => policy.mode = mode,
            PolicyCommand::UseInferredSettings => {
                if let Some(report) = policy.job.report() {
                    let settings = inside_inferred(&report.inferred, &policy.settings);
                    policy.set_settings(settings);
                    // The audit (Compactions tab, strip colours) judges pressure by the same T.
                    self.view.threshold_ratio = settings.threshold_ratio;
                }
            }
        }
    }
}
