//! `cost --csv`: one row per model call, agent and summarizer, in log order (a spreadsheet sums
//! and pivots them by turn or kind; the compactions are in `--json`). Quoting is `tokens`'s.

use std::fmt::Write as _;

use surface_engine::cost::Ledger;

use crate::tokens::csv_field;

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

/// The CSV text.
pub fn csv(ledger: &Ledger) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    let cell = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let text = |v: Option<&str>| v.map_or(String::new(), csv_field);
    for c in &ledger.calls {
        let call = &c.call;
        let route = ledger.routes.get(call.route as usize);
        let t = &call.tokens;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            call.seq,
            call.kind.as_str(),
            cell(call.turn),
            cell(call.step),
            text(route.and_then(|r| r.route.provider.as_deref())),
            text(route.and_then(|r| r.route.model.as_deref())),
            text(route.and_then(|r| r.price_key.as_deref())),
            call.reported,
            t.uncached,
            t.cache_read,
            t.cache_write,
            t.output,
            c.prompt,
            c.cost.map_or(String::new(), |x| x.to_string()),
        );
    }
    out
}
