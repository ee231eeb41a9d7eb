//! Applying the [`PriceCommand`]s: the dialog, reading a file (remembered in the preferences
//! when valid, a one-line error banner naming the file and key when not), and pricing nothing.

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::prices::command::PriceCommand;
use crate::session::loader::DialogPurpose;

impl ViewerApp {
    /// Applies a command about the price file.
    pub(crate) fn apply_prices(&mut self, ctx: &egui::Context, command: PriceCommand) {
        match command {
            PriceCommand::ChooseDialog => self.open_dialog(ctx, DialogPurpose::Prices),
            PriceCommand::Use(path) => {
                self.use_price_file(&path);
                self.share_prices(Some(ctx.clone()));
            }
            PriceCommand::Clear => {
                self.panels.prices.clear();
                self.share_prices(Some(ctx.clone()));
                self.prefs.price_file = None;
                self.chrome.banner = Some(Banner::info(
                    "No price file: every cost figure is in tokens.".to_string(),
                ));
            }
        }
    }

    /// Prices with `path` and remembers it, or says in one line why it cannot.
    pub(crate) fn use_price_file(&mut self, path: &std::path::Path) {
        match self.panels.prices.load(path) {
            Ok(()) => {
                self.prefs.price_file = Some(path.to_path_buf());
                let currency = self
                    .panels
                    .prices
                    .table()
                    .map_or(String::new(), |t| t.currency.clone());
                self.chrome.banner = Some(Banner::info(format!(
                    "Prices from {} ({currency}): balances and costs are in money.",
                    path.display()
                )));
            }
            Err(line) => self.chrome.banner = Some(Banner::error(line)),
        }
    }
}

impl ViewerApp {
    /// Hands the table in use to the views that price on their own workers: the Policy tab's
    /// what-if ledgers, the comparison of two runs and the sessions browser's cost column (which
    /// reads its folder again).
    pub(crate) fn share_prices(&mut self, ctx: Option<egui::Context>) {
        let table = self.panels.prices.table().cloned();
        self.panels.policy.ledgers.prices = table.clone();
        self.panels.compare.prices = table.clone();
        self.set_fleet_prices(table, ctx);
    }
}

impl ViewerApp {
    /// The price file in use (`None`: every figure in tokens).
    pub fn price_file_in_use(&self) -> Option<&std::path::Path> {
        self.panels.prices.path()
    }

    /// The remembered price file (the preferences).
    pub fn remembered_price_file(&self) -> Option<&std::path::Path> {
        self.prefs.price_file.as_deref()
    }

    /// An app for tests whose preferences name `prices` as the price file.
    pub fn new_for_test_with_prices(
        path: impl AsRef<std::path::Path>,
        prices: impl AsRef<std::path::Path>,
    ) -> Self {
        let prefs = crate::view::Prefs {
            price_file: Some(prices.as_ref().to_path_buf()),
            ..Default::default()
        };
        let mut app = ViewerApp::blank(prefs, true);
        app.start_load(
            crate::session::loader::Source::Path(path.as_ref().to_path_buf()),
            None,
            None,
        );
        app
    }
}
