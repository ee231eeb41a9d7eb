//! `compare`: two runs side by side (docs/compare.md) — the first divergence with both events,
//! a table per turn with B − A, the totals with B − A and B / A, and one line saying which run
//! was cheaper and why; or one JSON document. Each log is read on its own thread; both are then
//! analysed beside the walk for their first divergence, over every core.

mod human;

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::cost::PriceOptions;
use super::load::{Loaded, load, write_context};
use super::{EXIT_OK, Input, MeterOptions, print_json};
use surface_analysis::compare::{Analysed, Comparison, Side, Split, compare_split};
use surface_analysis::cost::PriceTable;

/// What `compare` reads and prints.
#[derive(Debug, Args)]
pub struct CompareOptions {
    /// The first run, A (.jsonl, .jsonl.zstd or SQLite).
    pub a: PathBuf,
    /// The second run, B.
    pub b: PathBuf,
    /// Session id of A in a SQLite file (default: the only one, else the most recent).
    #[arg(long, value_name = "ID")]
    pub session_a: Option<String>,
    /// Session id of B in a SQLite file.
    #[arg(long, value_name = "ID")]
    pub session_b: Option<String>,
    /// The most text one session may hold once decompressed, in bytes (512M, 2G); past it the
    /// file is not read (exit 2).
    #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
    pub max_bytes: Option<u64>,
    /// One JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub meter: MeterOptions,
    #[command(flatten)]
    pub prices: PriceOptions,
}

impl CompareOptions {
    fn inputs(&self) -> [Input; 2] {
        [(&self.a, &self.session_a), (&self.b, &self.session_b)].map(|(file, session)| Input {
            file: file.clone(),
            session: session.clone(),
            max_bytes: self.max_bytes,
        })
    }
}

/// One run read and analysed.
pub struct Run {
    /// The file as the user named it.
    pub file: String,
    /// The log read.
    pub loaded: Loaded,
    /// Its analysis.
    pub analysed: Analysed,
}

impl Run {
    fn side(&self) -> Side<'_> {
        Side {
            log: &self.loaded.log,
            analysed: &self.analysed,
        }
    }
}

/// Reads both runs (one each on two threads), then analyses them beside the walk for their
/// first divergence (`surface_passes::compared_runs_of`).
fn runs_of(
    inputs: [Input; 2],
    ratio: f64,
    prices: Option<&PriceTable>,
) -> anyhow::Result<(Run, Run, Option<Split>)> {
    let [input_a, input_b] = inputs;
    let (a, b) = std::thread::scope(|s| {
        let b = s.spawn(|| load(&input_b, false));
        let a = load(&input_a, false);
        let b = b
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("reading {} failed", input_b.file.display())));
        (a, b)
    });
    let (a, b) = (a?, b?);
    let (analysed_a, analysed_b, split) =
        surface_passes::compared_runs_of(&a.log, &b.log, ratio, prices);
    let run = |input: &Input, loaded, analysed| Run {
        file: input.file.display().to_string(),
        loaded,
        analysed,
    };
    Ok((
        run(&input_a, a, analysed_a),
        run(&input_b, b, analysed_b),
        split,
    ))
}

/// Everything the human report reads.
pub struct Report<'a> {
    /// Run A.
    pub a: &'a Run,
    /// Run B.
    pub b: &'a Run,
    /// The comparison.
    pub comparison: &'a Comparison,
    /// The currency, when both runs were priced.
    pub currency: Option<&'a str>,
}

/// Runs `compare`.
pub fn run(options: &CompareOptions) -> anyhow::Result<u8> {
    // A bad price file is refused before any log is read.
    let prices = options.prices.read()?;
    let ratio = options.meter.threshold_ratio;
    let (a, b, split) = runs_of(options.inputs(), ratio, prices.as_ref())?;
    let comparison = compare_split(a.side(), b.side(), split);
    let currency = prices.as_ref().map(|p| p.currency.as_str());
    if options.json {
        let prices_file = options
            .prices
            .prices
            .as_ref()
            .map(|p| p.display().to_string());
        let (source_a, source_b) = (a.loaded.source(&a.file), b.loaded.source(&b.file));
        print_json(&surface_reports::compare::document(
            [(&source_a, &a.analysed), (&source_b, &b.analysed)],
            &comparison,
            ratio,
            (prices_file.as_deref(), prices.as_ref()),
        )?)?;
    } else {
        let text = human::human(&Report {
            a: &a,
            b: &b,
            comparison: &comparison,
            currency,
        });
        let mut out = std::io::stdout().lock();
        write_context(out.write_all(text.as_bytes()))?;
        write_context(out.flush())?;
    }
    // Each run's memory (its log's tables, arena and mapping) is given back on its own thread.
    std::thread::scope(|s| {
        s.spawn(move || drop(b));
        drop(a);
    });
    Ok(EXIT_OK)
}
