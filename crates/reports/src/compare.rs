//! `compare`'s document: two runs side by side — each run's file, session and figures, the
//! threshold ratio and prices, then the comparison (first divergence, per turn, totals).

use serde::Serialize;
use serde_json::Value;
use surface_analysis::compare::{Analysed, Comparison, Side, compare_split};
use surface_analysis::cost::PriceTable;

use crate::{ReportError, Source};

/// A run as the document names it.
#[derive(Serialize)]
struct RunInfo<'a> {
    file: &'a str,
    session: &'a str,
    events: usize,
    turns: u64,
    caching: bool,
    window: Option<u64>,
    skipped: &'a [surface_engine::Skipped],
}

impl<'a> RunInfo<'a> {
    fn of(source: &Source<'a>, analysed: &Analysed) -> Self {
        RunInfo {
            file: source.file,
            session: &source.session.id,
            events: analysed.events,
            turns: analysed.positions.turns(),
            caching: analysed.caching,
            window: analysed.window,
            skipped: source.skipped,
        }
    }
}

/// The JSON document.
#[derive(Serialize)]
struct Document<'a> {
    a: RunInfo<'a>,
    b: RunInfo<'a>,
    threshold_ratio: f64,
    prices: Option<&'a str>,
    currency: Option<&'a str>,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

/// Both runs analysed beside the walk for their first divergence, then compared.
pub fn comparison_of(
    a: &Source<'_>,
    b: &Source<'_>,
    threshold_ratio: f64,
    prices: Option<&PriceTable>,
) -> (Analysed, Analysed, Comparison) {
    let (analysed_a, analysed_b, split) =
        surface_passes::compared_runs_of(a.log, b.log, threshold_ratio, prices);
    let comparison = compare_split(
        Side {
            log: a.log,
            analysed: &analysed_a,
        },
        Side {
            log: b.log,
            analysed: &analysed_b,
        },
        split,
    );
    (analysed_a, analysed_b, comparison)
}

/// The `--json` document of `compare`.
pub fn document(
    runs: [(&Source<'_>, &Analysed); 2],
    comparison: &Comparison,
    threshold_ratio: f64,
    prices: (Option<&str>, Option<&PriceTable>),
) -> Result<Value, ReportError> {
    let [(a, analysed_a), (b, analysed_b)] = runs;
    Ok(serde_json::to_value(Document {
        a: RunInfo::of(a, analysed_a),
        b: RunInfo::of(b, analysed_b),
        threshold_ratio,
        prices: prices.0,
        currency: prices.1.map(|p| p.currency.as_str()),
        comparison,
    })?)
}
