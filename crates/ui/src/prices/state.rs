//! The price table in use and the file it came from. A file that cannot be read or is not a
//! valid price file is told in one line naming the file and the key at fault, as `cost` says it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use surface_analysis::cost::PriceTable;

/// The price table the viewer prices with (`None`: tokens only).
#[derive(Debug, Default)]
pub struct PriceState {
    /// The file and its table.
    table: Option<(PathBuf, Arc<PriceTable>)>,
    /// Why the remembered file could not be used at start, said again over the first log's
    /// own banner.
    pub(crate) startup_error: Option<String>,
}

impl PriceState {
    /// The table in use.
    pub fn table(&self) -> Option<&Arc<PriceTable>> {
        self.table.as_ref().map(|(_, t)| t)
    }

    /// The file the table in use was read from.
    pub fn path(&self) -> Option<&Path> {
        self.table.as_ref().map(|(p, _)| p.as_path())
    }

    /// Reads `path` and prices with it; on error keeps what was in use and returns the line
    /// that says what is wrong.
    pub fn load(&mut self, path: &Path) -> Result<(), String> {
        let table = read_prices(path)?;
        self.table = Some((path.to_path_buf(), Arc::new(table)));
        Ok(())
    }

    /// Prices nothing.
    pub fn clear(&mut self) {
        self.table = None;
    }
}

/// Reads and checks a price file: one line naming the file and, for an invalid one, the key.
pub fn read_prices(path: &Path) -> Result<PriceTable, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the price file {}: {e}", path.display()))?;
    PriceTable::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_file_is_one_line_naming_the_file_and_the_key() {
        let dir = std::env::temp_dir().join(format!("sv-prices-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("prices.json");
        std::fs::write(
            &bad,
            r#"{"currency":"USD","models":{"m":{"uncached":1,"cache_write":1,"output":1}}}"#,
        )
        .unwrap();
        let mut state = PriceState::default();
        let err = state.load(&bad).unwrap_err();
        assert!(!err.contains('\n'), "{err}");
        assert!(
            err.contains("prices.json") && err.contains("models[\"m\"].cache_read"),
            "{err}"
        );
        assert!(state.table().is_none());
        let good = dir.join("good.json");
        std::fs::write(
            &good,
            r#"{"currency":"USD","models":{"*":{"uncached":1,"cache_read":0.1,"cache_write":1,"output":2}}}"#,
        )
        .unwrap();
        state.load(&good).unwrap();
        assert_eq!(state.path(), Some(good.as_path()));
        // A bad file later keeps the good one in use.
        assert!(state.load(&bad).is_err());
        assert_eq!(state.table().unwrap().currency, "USD");
        assert!(
            state
                .load(&dir.join("missing.json"))
                .unwrap_err()
                .contains("cannot read")
        );
        state.clear();
        assert!(state.table().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
