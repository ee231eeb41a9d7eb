//! The Tune side tab (beside Policy): the open log swept over the form's grid — what `tune
//! FILE` prints, as a chart and a sortable table; a click on a setting opens the Policy tab's
//! what-if with it. **⤢ Wide** shows the same view across the window (the timeline and the
//! panels give it their room; the replay bar stays), **✕ Back to the log** returns.

use egui::Ui;

use crate::command::UiCommand;
use crate::session::loaded::Session;
use crate::tune::command::{TuneCommand, TuneTarget};
use crate::tune::view::{TuneView, tune_view_ui};

/// Draws the view for `session`, in the side tab or wide; `priced`: a price file is in use;
/// `synchronous`: the sweep is waited for on this thread (tests).
pub fn tune_tab_ui(
    ui: &mut Ui,
    session: &Session,
    view: &mut TuneView,
    (priced, synchronous): (bool, bool),
    commands: &mut Vec<UiCommand>,
) {
    let name = session.path().and_then(|p| p.file_name()).map_or_else(
        || session.info.id.clone(),
        |n| n.to_string_lossy().to_string(),
    );
    let wide = view.wide;
    ui.horizontal(|ui| {
        if wide {
            ui.heading("Tune");
            ui.label(format!("which setting to ship for {name}"));
            if ui
                .button("✕ Back to the log")
                .on_hover_text("The timeline and the panels again (the Tune tab keeps this view)")
                .clicked()
            {
                commands.push(TuneCommand::WideLogTune(false).into());
            }
        } else if ui
            .button("⤢ Wide")
            .on_hover_text(format!(
                "Show this view across the window: which setting to ship for {name}"
            ))
            .clicked()
        {
            commands.push(TuneCommand::WideLogTune(true).into());
        }
    });
    tune_view_ui(
        ui,
        view,
        (TuneTarget::Log, priced, synchronous),
        commands,
        |_, _, _, _| {},
    );
}
