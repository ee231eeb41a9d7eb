//! Applying the [`PolicyCommand`]s: the settings and mode the Policy tab replays, and the
//! settings picked inside the intervals inferred from the log.

use crate::app::ViewerApp;
use crate::policy::command::PolicyCommand;
use crate::policy::fields::inside_inferred;
use crate::threshold::ThresholdSource;

impl ViewerApp {
    /// Puts the threshold ratio `ratio` in force everywhere — the audit's (strip,
    /// Compactions tab) and the Policy tab's settings, its fields rewritten — as set by
    /// `source`.
    pub(crate) fn set_threshold_ratio(&mut self, ratio: f64, source: ThresholdSource) {
        self.view.threshold_ratio = ratio;
        self.view.threshold_source = source;
        let policy = &mut self.panels.policy;
        if policy.settings.threshold_ratio != ratio {
            let settings = surface_analysis::policy::PolicySettings {
                threshold_ratio: ratio,
                ..policy.settings
            };
            policy.set_settings(settings);
        }
    }
}

impl ViewerApp {
    /// Applies a command of the Policy tab.
    pub(crate) fn apply_policy(&mut self, command: PolicyCommand) {
        let policy = &mut self.panels.policy;
        match command {
            // The fields keep the text being typed; only the settings change.
            PolicyCommand::SetPolicySettings(settings) => {
                policy.settings = settings;
                if settings.threshold_ratio != self.view.threshold_ratio {
                    // One threshold: the audit (Compactions tab, strip) judges by this T too.
                    self.view.threshold_ratio = settings.threshold_ratio;
                    self.view.threshold_source = ThresholdSource::PolicyTab;
                }
            }
            PolicyCommand::SetPolicyMode(mode) => policy.mode = mode,
            PolicyCommand::OpenWhatIf(settings) => {
                policy.set_settings(settings);
                policy.mode = surface_analysis::policy::ReplayMode::WhatIf;
                // One threshold: the audit (Compactions tab, strip) judges by this T too.
                self.view.threshold_ratio = settings.threshold_ratio;
                self.view.threshold_source = ThresholdSource::PolicyTab;
            }
            PolicyCommand::UseInferredSettings => {
                if let Some(report) = policy.job.report() {
                    let settings = inside_inferred(&report.inferred, &policy.settings);
                    policy.set_settings(settings);
                    // The audit (Compactions tab, strip colours) judges pressure by the same T.
                    self.view.threshold_ratio = settings.threshold_ratio;
                    self.view.threshold_source = ThresholdSource::Inferred;
                }
            }
        }
    }
}
