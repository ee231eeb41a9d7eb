//! What the window's scenario tests share: a command pushed as a panel pushes it, with the
//! frames that apply it, and the Policy tab's what-if at a threshold.

use egui_kittest::Harness;
use surface_analysis::policy::{PolicySettings, ReplayMode};
use surface_ui::{PolicyCommand, UiCommand, ViewerApp};

/// Queues `command` as a panel would and runs the frames that apply it.
pub fn command(harness: &mut Harness<'_, ViewerApp>, command: impl Into<UiCommand>) {
    harness.state_mut().push_command(command);
    harness.run();
}

/// The policy replay in what-if mode at `threshold_ratio`, the other settings kept.
pub fn what_if_at(harness: &mut Harness<'_, ViewerApp>, threshold_ratio: f64) {
    let settings = PolicySettings {
        threshold_ratio,
        ..harness.state().policy_settings()
    };
    command(harness, PolicyCommand::SetPolicySettings(settings));
    command(harness, PolicyCommand::SetPolicyMode(ReplayMode::WhatIf));
}
