//! Opening a folder's session with a setting: the first session read (by path), or any other
//! from a row's menu — the Policy tab's what-if at that setting, once it is loaded.

use egui::Ui;

use surface_reports::tune::{SessionLine, Sweep};

use crate::command::UiCommand;
use crate::theme;
use crate::tune::command::TuneCommand;

/// The sessions that were read, in the document's order.
fn readable(s: &Sweep) -> impl Iterator<Item = &SessionLine> {
    s.sessions_list.iter().filter(|l| l.error.is_none())
}

/// The label of a session line: its file name, and the session in a file of several.
fn session_label(line: &SessionLine) -> String {
    let name = line.file.file_name().map_or_else(
        || line.file.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    match &line.session {
        Some(id) => format!("{name} [session {id}]"),
        None => name,
    }
}

fn open_command(s: &Sweep, i: usize, line: &SessionLine) -> Option<UiCommand> {
    Some(
        TuneCommand::OpenSessionWhatIf {
            file: line.file.clone(),
            session: line.session.clone(),
            settings: *s.settings.get(i)?,
        }
        .into(),
    )
}

/// "Open FILE with this setting's what-if" for the first session read.
pub fn open_first_ui(ui: &mut Ui, s: &Sweep, i: usize, commands: &mut Vec<UiCommand>) {
    let Some(first) = readable(s).next() else {
        return;
    };
    let label = format!("Open {} with this setting's what-if", session_label(first));
    if ui
        .button(label)
        .on_hover_text(first.file.display().to_string())
        .clicked()
        && let Some(c) = open_command(s, i, first)
    {
        commands.push(c);
        ui.close();
    }
}

/// A folder row's menu: open the first session, or another, with the row's setting.
pub fn row_menu_ui(ui: &mut Ui, s: &Sweep, i: usize, commands: &mut Vec<UiCommand>) {
    open_first_ui(ui, s, i, commands);
    if readable(s).nth(1).is_none() {
        return;
    }
    ui.menu_button("Open another session with it", |ui| {
        egui::ScrollArea::vertical()
            .max_height(theme::BROWSER_NOTES_HEIGHT * 2.0)
            .show(ui, |ui| {
                for line in readable(s).skip(1) {
                    if ui.button(session_label(line)).clicked()
                        && let Some(c) = open_command(s, i, line)
                    {
                        commands.push(c);
                        ui.close();
                    }
                }
            });
    });
}
