//! File ▸ Prices: the price file in use, a native dialog to choose one, a path field for
//! machines without a dialog service, and "no prices".

use egui::{RichText, Ui};

use crate::chrome::path_field::{PathField, remembered_path_field_ui};
use crate::command::UiCommand;
use crate::prices::command::PriceCommand;
use crate::theme;

/// The Prices submenu. `path` is the remembered file, `in_use` whether it was read.
pub fn prices_menu_ui(
    ui: &mut Ui,
    path: Option<&std::path::Path>,
    in_use: bool,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    let now = match (path, in_use) {
        (Some(p), true) => format!("in use: {}", p.display()),
        (Some(p), false) => format!("not valid: {} (every figure in tokens)", p.display()),
        (None, _) => "none: every cost figure is in tokens".to_string(),
    };
    ui.label(RichText::new(now).color(pal.weak_text));
    if ui
        .button("Choose a price file…")
        .on_hover_text(
            "A JSON file of prices per model (currency, per, models: uncached, cache_read, \
             cache_write, output — docs/cost.md); remembered across runs",
        )
        .clicked()
    {
        commands.push(PriceCommand::ChooseDialog.into());
        ui.close();
    }
    let field = PathField {
        label: "or its path:",
        hint: "path of a price file",
        button: "Use",
        enabled: true,
        max_width: theme::PRICE_PATH_WIDTH,
    };
    let initial = || path.map_or(String::new(), |p| p.display().to_string());
    if let Some(typed) = remembered_path_field_ui(ui, "price-path", initial, &field) {
        commands.push(PriceCommand::Use(typed).into());
        ui.close();
    }
    if ui
        .add_enabled(path.is_some(), egui::Button::new("No prices (tokens only)"))
        .clicked()
    {
        commands.push(PriceCommand::Clear.into());
        ui.close();
    }
}
