//! The side panel's tab row: one line that never wraps and never moves. The tabs that fit
//! the panel's width are shown in order (the shown tab always among them); the others sit
//! in a "⋯" menu at the end of the row.

use egui::{Ui, WidgetText};

use crate::command::WindowCommand;
use crate::command::{SideTab, UiCommand};

/// Which tabs fit a row `room` points wide, given each tab's width and the width of the
/// overflow button: the indices to show (in order, `selected` always among them) and
/// whether some are left for the overflow menu.
pub fn fitting_tabs(
    widths: &[f32],
    spacing: f32,
    more: f32,
    room: f32,
    selected: usize,
) -> (Vec<usize>, bool) {
    let total: f32 = widths.iter().sum::<f32>() + spacing * widths.len().saturating_sub(1) as f32;
    if total <= room {
        return ((0..widths.len()).collect(), false);
    }
    let room = room - more - spacing;
    let mut shown: Vec<usize> = Vec::new();
    let mut used = widths.get(selected).copied().unwrap_or(0.0);
    for (i, &w) in widths.iter().enumerate() {
        if i == selected {
            shown.push(i);
            continue;
        }
        if used + spacing + w <= room {
            used += spacing + w;
            shown.push(i);
        }
    }
    (shown, true)
}

/// Shows the row; a click queues [`WindowCommand::ShowTab`].
pub fn side_tabs_ui(
    ui: &mut Ui,
    tabs: &[(SideTab, String)],
    selected: SideTab,
    commands: &mut Vec<UiCommand>,
) {
    let padding = ui.spacing().button_padding.x * 2.0;
    let spacing = ui.spacing().item_spacing.x;
    let font = egui::TextStyle::Button.resolve(ui.style());
    let width = |text: &str| {
        ui.fonts_mut(|f| {
            f.layout_no_wrap(text.to_string(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        }) + padding
    };
    let widths: Vec<f32> = tabs.iter().map(|(_, label)| width(label)).collect();
    let selected_index = tabs.iter().position(|(t, _)| *t == selected).unwrap_or(0);
    let (shown, overflow) = fitting_tabs(
        &widths,
        spacing,
        width("⋯"),
        ui.available_width(),
        selected_index,
    );
    ui.horizontal(|ui| {
        for &i in &shown {
            let (tab, label) = &tabs[i];
            if ui
                .selectable_label(*tab == selected, label.as_str())
                .clicked()
            {
                commands.push(WindowCommand::ShowTab(*tab).into());
            }
        }
        if overflow {
            ui.menu_button("⋯", |ui| {
                for (i, (tab, label)) in tabs.iter().enumerate() {
                    if !shown.contains(&i) && ui.button(WidgetText::from(label.as_str())).clicked()
                    {
                        commands.push(WindowCommand::ShowTab(*tab).into());
                        ui.close();
                    }
                }
            })
            .response
            .on_hover_text("More tabs");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tab_fits_a_wide_row() {
        assert_eq!(
            fitting_tabs(&[50.0, 50.0, 50.0], 5.0, 20.0, 200.0, 2),
            (vec![0, 1, 2], false)
        );
    }

    #[test]
    fn a_narrow_row_keeps_the_shown_tab_and_moves_the_rest_to_the_menu() {
        // Room for two tabs and the button: the first one and the selected last one.
        let (shown, overflow) = fitting_tabs(&[50.0, 50.0, 50.0, 50.0], 5.0, 20.0, 140.0, 3);
        assert_eq!(shown, vec![0, 3]);
        assert!(overflow);
        let (shown, _) = fitting_tabs(&[50.0, 50.0, 50.0, 50.0], 5.0, 20.0, 140.0, 0);
        assert_eq!(shown, vec![0, 1]);
    }
}
