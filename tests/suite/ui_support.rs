//! What the window's scenario tests share: the window at laptop size on a log, a command pushed
//! as a panel pushes it, with the frames that apply it, and the Policy tab's what-if at a
//! threshold.

use std::path::PathBuf;

use egui_kittest::Harness;
use surface_analysis::policy::{PolicySettings, ReplayMode};
use surface_ui::{PolicyCommand, UiCommand, ViewerApp};

/// The window at 1280×720 on `path`.
pub fn laptop(path: PathBuf) -> Harness<'static, ViewerApp> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 720.0))
        .with_max_steps(64)
        // The fixtures hold an emoji and a CJK character the bundled fonts lack (boxes).
        .allow_missing_glyphs()
        .build_eframe(move |_cc| ViewerApp::new_for_test(&path))
}

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
