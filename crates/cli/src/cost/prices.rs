//! `--prices FILE`: a price file (docs/cost.md) read for `cost` and `audit`. A file that
//! cannot be read or is not a valid price file is trouble (exit 2), in one line naming the file
//! and the key at fault.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use surface_analysis::cost::PriceTable;

/// The price file option.
#[derive(Debug, Args, Clone, Default)]
pub struct PriceOptions {
    /// Prices per model (JSON: currency, per, models — see docs/cost.md); without it every
    /// figure stays in tokens.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
}

impl PriceOptions {
    /// The price table, when a file was given.
    pub fn read(&self) -> anyhow::Result<Option<PriceTable>> {
        self.prices.as_deref().map(read_prices).transpose()
    }
}

/// Reads and parses a price file.
pub fn read_prices(path: &Path) -> anyhow::Result<PriceTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the price file {}", path.display()))?;
    PriceTable::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}
