//! The what-if's two ledgers (docs/cost.md, "In the what-if"): the log's own ledger and the
//! hypothetical session's estimate side by side, what the estimate rests on, and the what-if's
//! fired / summaries / prunes as ranges — as `policy --what-if` prints them. Computed once per
//! what-if report, on a worker (here in tests), from the input the report was replayed on.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::cost::{Ledger, LedgerSummary, PriceTable, parts_of};
use surface_analysis::policy::{
    EstimateBasis, PolicyInput, PolicyReport, Ranges, ValidSettings, count_ranges, what_if_ledger,
};
use surface_engine::{EventLog, Meter, Surface};

/// Both ledgers of a what-if and what they rest on.
#[derive(Clone, Debug)]
pub struct WhatIfLedgers {
    /// The log's own ledger.
    pub actual: LedgerSummary,
    /// The what-if's estimate.
    pub what_if: LedgerSummary,
    /// What the estimate rests on.
    pub basis: EstimateBasis,
    /// The what-if's counts as ranges.
    pub ranges: Option<Ranges>,
}

/// The ledgers of the latest what-if report and the worker computing the next.
#[derive(Debug, Default)]
pub struct LedgerJob {
    /// The address of the report the landed (or running) ledgers are for (an identity, never
    /// followed).
    key: Option<usize>,
    landed: Option<Arc<WhatIfLedgers>>,
    rx: Option<Receiver<Option<WhatIfLedgers>>>,
    /// The prices the ledgers are priced with (`None`: tokens only). Set from the price
    /// file of File ▸ Prices (`prices/apply.rs`); changing it recomputes.
    pub prices: Option<Arc<PriceTable>>,
    /// The address of the prices they were priced with (an identity, never followed).
    priced_with: Option<usize>,
}

impl LedgerJob {
    /// Computes the ledgers of `report` (a what-if replayed on `input` with `settings`) unless
    /// they are landed or running; `blocking` computes here.
    pub fn ensure(
        &mut self,
        (log, meter): (&Arc<EventLog>, &Arc<Meter>),
        (input, report): (&Arc<PolicyInput>, &Arc<PolicyReport>),
        settings: ValidSettings,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let key = Some(Arc::as_ptr(report) as usize);
        let prices_key = self.prices.as_ref().map(|p| Arc::as_ptr(p) as usize);
        if self.key == key && self.priced_with == prices_key {
            return;
        }
        self.key = key;
        self.priced_with = prices_key;
        self.landed = None;
        let (log, meter) = (Arc::clone(log), Arc::clone(meter));
        let (input, report) = (Arc::clone(input), Arc::clone(report));
        let prices = self.prices.clone();
        let work = move || ledgers_of(&log, &meter, &input, &report, &settings, prices.as_deref());
        if blocking {
            self.landed = work().map(Arc::new);
            self.rx = None;
            return;
        }
        let (tx, rx) = channel();
        let ctx = ctx.cloned();
        let spawned = std::thread::Builder::new()
            .name("surface-viewer-what-if-ledger".into())
            .spawn(move || {
                let _ = tx.send(work());
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        self.rx = spawned.ok().map(|_| rx);
    }

    /// The landed ledgers (taking them when the worker is done).
    pub fn ledgers(&mut self) -> Option<&Arc<WhatIfLedgers>> {
        if let Some(rx) = &self.rx {
            match rx.try_recv() {
                Ok(l) => {
                    self.landed = l.map(Arc::new);
                    self.rx = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.rx = None,
            }
        }
        self.landed.as_ref()
    }

    /// Forgets the open log's ledgers (a new log was loaded); the prices stay.
    pub fn reset(&mut self) {
        *self = LedgerJob {
            prices: self.prices.take(),
            ..LedgerJob::default()
        };
    }

    /// True while the worker runs.
    pub fn running(&self) -> bool {
        self.rx.is_some()
    }
}

/// The ledgers of a what-if `report`, as `policy --what-if` computes them (`None` for verify).
pub fn ledgers_of(
    log: &EventLog,
    meter: &Meter,
    input: &PolicyInput,
    report: &PolicyReport,
    settings: &ValidSettings,
    prices: Option<&PriceTable>,
) -> Option<WhatIfLedgers> {
    let surface = Surface::at_end(log);
    let parts = parts_of(log, &surface, meter);
    let what_if = what_if_ledger(&parts, report, meter)?;
    Some(WhatIfLedgers {
        actual: LedgerSummary::of(&Ledger::build(&parts, prices)),
        what_if: LedgerSummary::of(&Ledger::build(&what_if.parts, prices)),
        basis: what_if.basis,
        ranges: count_ranges(log, meter, input, settings, report),
    })
}

/// One ledger row: its name, the formula (tooltip), and the figure of a ledger.
pub type LedgerRow = (
    &'static str,
    &'static str,
    fn(&LedgerSummary) -> Option<String>,
);

/// The rows both ledgers show, in order (money only when priced).
pub fn ledger_rows() -> [LedgerRow; 9] {
    fn n(x: u64) -> Option<String> {
        Some(x.to_string())
    }
    [
        ("agent calls", "Model calls of the agent's steps", |l| {
            n(l.totals.agent.calls)
        }),
        (
            "agent prompt",
            "Σ prompt = uncached + cache read + cache write, agent calls",
            |l| n(l.agent_prompt),
        ),
        (
            "cache read",
            "Σ cacheReadTokens of the agent calls (– when the log reports no cache)",
            |l| l.totals.agent.cache_read.map(|x| x.to_string()),
        ),
        (
            "summarizer tokens",
            "Σ prompt + output of the summarizer calls",
            |l| n(l.compaction_totals.summarizer_tokens),
        ),
        (
            "cache lost",
            "Σ max(0, P_prev − cache_read_next) at each compaction",
            |l| l.compaction_totals.cache_lost.map(|x| x.to_string()),
        ),
        (
            "prompt saved",
            "Σ saved_per_call × calls_after over the compactions",
            |l| Some(l.compaction_totals.prompt_saved.to_string()),
        ),
        (
            "cache hit rate",
            "Σ cache_read ÷ Σ prompt over every call",
            |l| {
                l.totals
                    .all
                    .cache_hit_rate
                    .map(|r| format!("{:.1} %", r * 100.0))
            },
        ),
        (
            "cost",
            "Σ tokens × price ÷ per over every call (the price file)",
            |l| l.totals.all.cost.map(|c| format!("{c:.4}")),
        ),
        (
            "compaction balance",
            "summarizer cost + cache lost × (uncached − cache read price) − prompt saved × cache read price",
            |l| {
                l.currency.as_ref()?;
                Some(
                    l.compaction_totals
                        .balance
                        .map_or("–".to_string(), |c| format!("{c:.4}")),
                )
            },
        ),
    ]
}

/// The ledger rows as text: (name, actual, what-if), rows with no figure on either side left out.
pub fn ledger_table(l: &WhatIfLedgers) -> Vec<(&'static str, String, String)> {
    ledger_rows()
        .into_iter()
        .filter_map(|(name, _, get)| {
            let (a, w) = (get(&l.actual), get(&l.what_if));
            if a.is_none() && w.is_none() {
                return None;
            }
            let dash = || "–".to_string();
            Some((name, a.unwrap_or_else(dash), w.unwrap_or_else(dash)))
        })
        .collect()
}

/// What the estimate rests on, in a few lines (as `policy --what-if` says it).
pub fn basis_lines(b: &EstimateBasis) -> Vec<String> {
    let Some(from) = b.from_seq else {
        return vec!["The replay never diverges: every what-if figure is the log's.".to_string()];
    };
    let mut lines = vec![format!(
        "An estimate from seq {from} on: {} agent calls estimated, {} summarizer calls made up.",
        b.calls_estimated, b.summarizer_calls
    )];
    lines.push(match b.spread {
        Some(s) => format!(
            "Prompts re-anchored at each call's ratio of reported prompt to the meter (median {:.3}, spread {:+.1} % to {:+.1} % over {} calls).",
            s.ratio_median,
            s.low * 100.0,
            s.high * 100.0,
            s.calls
        ),
        None => "No call reports usage: totals are the meter's.".to_string(),
    });
    let line = &b.summarizer_line;
    lines.push(if line.summaries >= 2 {
        format!(
            "Summarizer prompt = {:.3} × shadowed {:+.0} (least squares over the log's {} summaries); output {}.",
            line.slope, line.intercept, line.summaries, b.summary_output
        )
    } else {
        format!(
            "Summarizer prompt = shadowed + 10 % (the log has {} summaries with usage); output {}.",
            line.summaries, b.summary_output
        )
    });
    lines.push(format!(
        "Cache lost = the surface from the change to the end × that call's ratio; where only the log compacted, the noise median {}.",
        b.cache_noise_median
            .map_or_else(|| "0 (none measured)".to_string(), |n| n.to_string())
    ));
    lines
}
