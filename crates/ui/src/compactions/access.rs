//! What scenario tests read of the Compactions tab's cost columns.

use crate::app::ViewerApp;

impl ViewerApp {
    /// The Compactions table's rows in display order: seq, cache lost and balance (`None`:
    /// unknown or unpriced), once the ledger is known.
    pub fn compaction_costs(&self) -> Vec<(u64, Option<u64>, Option<f64>)> {
        let Some(ledger) = self.panels.compactions.cost.ledger() else {
            return Vec::new();
        };
        self.compaction_rows()
            .into_iter()
            .filter_map(|seq| {
                let c = ledger.compactions.iter().find(|c| c.seq == seq)?;
                Some((seq, c.cache_lost, c.balance))
            })
            .collect()
    }
}
