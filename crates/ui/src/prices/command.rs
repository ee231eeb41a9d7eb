//! The price file's commands, applied by [`crate::prices::apply`].

use std::path::PathBuf;

/// A command about the price file.
#[derive(Clone, Debug, PartialEq)]
pub enum PriceCommand {
    /// Pick a price file with the native dialog.
    ChooseDialog,
    /// Read this price file and, when it is valid, price with it and remember it.
    Use(PathBuf),
    /// Price nothing: every figure in tokens (and forget the file).
    Clear,
}
