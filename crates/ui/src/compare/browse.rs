//! The sessions browser's way into a comparison: a row's context menu compares it with the
//! selected session, and a fork with its parent (the parent is A, the fork B).

use egui::Ui;

use crate::browser::rows::BrowserRow;
use crate::command::UiCommand;
use crate::compare::command::{CompareCommand, SessionRef};

fn session_ref(r: &BrowserRow) -> SessionRef {
    (
        r.entry.file.clone(),
        r.entry.session_arg().map(str::to_string),
    )
}

/// The compare items of the context menu of row `r`; `selected` is the browser's selected row.
pub fn compare_menu_ui(
    ui: &mut Ui,
    r: &BrowserRow,
    (selected, rows): (Option<&BrowserRow>, &[BrowserRow]),
    commands: &mut Vec<UiCommand>,
) {
    let other = selected.filter(|s| s.entry.id != r.entry.id || s.entry.file != r.entry.file);
    let with_selected = ui
        .add_enabled(
            other.is_some(),
            egui::Button::new("Compare with the selected session"),
        )
        .on_hover_text(
            "The selected session is A, this one B (select one row, then right-click another)",
        )
        .on_disabled_hover_text(
            "Select another session first (click its row), then right-click this one",
        );
    if with_selected.clicked()
        && let Some(a) = other
    {
        commands.push(
            CompareCommand::Sessions {
                a: session_ref(a),
                b: session_ref(r),
            }
            .into(),
        );
        ui.close();
    }
    let parent = r
        .entry
        .parent
        .as_ref()
        .and_then(|p| rows.iter().find(|x| &x.entry.id == p));
    if let Some(parent) = parent
        && ui
            .button("Compare with parent")
            .on_hover_text("This fork (B) beside the session it forked from (A)")
            .clicked()
    {
        commands.push(
            CompareCommand::Sessions {
                a: session_ref(parent),
                b: session_ref(r),
            }
            .into(),
        );
        ui.close();
    }
}
