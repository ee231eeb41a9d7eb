//! `cost --csv`: one row per model call, agent and summarizer, in log order (a spreadsheet sums
//! and pivots them by turn or kind; the compactions are in `--json`), through the one CSV
//! writer (`crate::csv_out`): provider, model and price key come from the log.

use surface_analysis::cost::Ledger;

use crate::csv_out::CsvWriter;

/// The columns, in order.
pub const COLUMNS: [&str; 14] = [
    "seq",
    "kind",
    "turn",
    "step",
    "provider",
    "model",
    "price_key",
    "reported",
    "uncached",
    "cache_read",
    "cache_write",
    "output",
    "prompt",
    "cost",
];

/// The CSV text (see [`crate::csv_out`]).
pub fn csv(ledger: &Ledger) -> std::io::Result<Vec<u8>> {
    let mut out = CsvWriter::new(Vec::new(), &COLUMNS)?;
    for c in &ledger.calls {
        let call = &c.call;
        let route = ledger.routes.get(call.route as usize);
        let t = &call.tokens;
        out.row(&[
            call.seq.into(),
            call.kind.as_str().into(),
            call.turn.into(),
            call.step.into(),
            route.and_then(|r| r.route.provider.as_deref()).into(),
            route.and_then(|r| r.route.model.as_deref()).into(),
            route.and_then(|r| r.price_key.as_deref()).into(),
            call.reported.into(),
            t.uncached.into(),
            t.cache_read.into(),
            t.cache_write.into(),
            t.output.into(),
            c.prompt.into(),
            c.cost.into(),
        ])?;
    }
    Ok(out.into_inner())
}
