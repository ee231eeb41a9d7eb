//! `tune PATH...`: the policy swept over a grid of settings across every session under the
//! paths — each session read once, every setting replayed from its one input — and the
//! setting to ship: per-setting fleet totals with ranges, the baseline, the frontier and the
//! recommendation (docs/tune.md). A table on a terminal, `--json`, `--csv`, `--html OUT`.
//! Exit 0, 1 when some session could not be read, 2 when none could (or on a bad flag).

mod html;
mod human;
mod outputs;
mod sweep;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{anyhow, bail};
use clap::{Args, ValueEnum};

use super::cost::PriceOptions;
use super::load::write_context;
use super::{EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE};
use surface_analysis::policy::tune::{Constraints, Grid, Objective};

pub use sweep::{Sweep, sweep};

/// What `--objective` ranks by.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ObjectiveArg {
    /// Σ cost (needs --prices).
    Cost,
    /// Σ agent prompt tokens.
    Prompt,
}

/// `tune`'s arguments.
#[derive(Debug, Args)]
pub struct TuneOptions {
    /// Session files or folders to sweep.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// An axis of the grid: NAME=VALUES, VALUES a list (0.6,0.7) or FROM:TO:STEP (inclusive);
    /// NAME threshold_ratio, retain_ratio, retain_tokens, compaction_retries, pruner
    /// (on, off, CHARS/HEAD/TAIL) or summary_tokens. Repeat for more axes. Default: 240
    /// settings (docs/tune.md).
    #[arg(long = "grid", value_name = "NAME=VALUES")]
    pub grid: Vec<String>,
    /// What the recommendation minimizes (default: cost when priced, else prompt).
    #[arg(long, value_enum)]
    pub objective: Option<ObjectiveArg>,
    /// The most requests over the window a recommended setting may risk (default 0).
    #[arg(long, value_name = "N")]
    pub max_over_window: Option<String>,
    /// The largest share of requests over the threshold a recommended setting may have.
    #[arg(long, value_name = "X")]
    pub max_over_threshold: Option<String>,
    #[command(flatten)]
    pub prices: PriceOptions,
    /// One JSON document on stdout.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV on stdout, one row per setting.
    #[arg(long)]
    pub csv: bool,
    /// Also write the report as one self-contained HTML page.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    /// Replace the HTML page when it exists.
    #[arg(long)]
    pub force: bool,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The most text one session may hold once decompressed, in bytes (512M, 2G).
    #[arg(long, value_name = "N", value_parser = surface_store::parse_byte_size)]
    pub max_bytes: Option<u64>,
}

impl TuneOptions {
    /// The constraints the flags give; a bad number is one line naming its flag (the parser
    /// every shell uses).
    pub fn constraints(&self) -> anyhow::Result<Constraints> {
        surface_reports::tune::constraints_of(
            self.max_over_window.as_deref(),
            self.max_over_threshold.as_deref(),
        )
        .map_err(|e| anyhow!(e))
    }

    /// The objective: the flag's, else cost when priced.
    pub fn objective(&self, priced: bool) -> anyhow::Result<Objective> {
        match (self.objective, priced) {
            (Some(ObjectiveArg::Cost), false) => {
                bail!("--objective cost needs --prices FILE (without prices there is no cost)")
            }
            (Some(ObjectiveArg::Cost), true) | (None, true) => Ok(Objective::Cost),
            (Some(ObjectiveArg::Prompt), _) | (None, false) => Ok(Objective::Prompt),
        }
    }
}

/// Runs `tune`.
pub fn run(options: &TuneOptions) -> anyhow::Result<u8> {
    let grid = Grid::parse(&options.grid)?;
    let constraints = options.constraints()?;
    let prices = options.prices.read()?;
    let objective = options.objective(prices.is_some())?;
    // The page's target is judged before the sweep: a refusal costs the user no wait.
    let html_target = options
        .html
        .as_deref()
        .map(|out| surface_store::WriteTarget::new(out, None).replacing(options.force));
    if let Some(target) = &html_target {
        target.check()?;
    }
    let swept = sweep(options, &grid, prices.as_ref(), objective, &constraints)?;
    if let Some(target) = &html_target {
        surface_store::write_file_safely(target, html::page(&swept).as_bytes())?;
    }
    let text = if options.json {
        let mut t = serde_json::to_vec_pretty(&surface_reports::tune::document(&swept))?;
        t.push(b'\n');
        t
    } else if options.csv {
        outputs::csv(&swept)?
    } else {
        human::human(&swept).into_bytes()
    };
    let mut out = std::io::stdout().lock();
    write_context(out.write_all(&text))?;
    write_context(out.flush())?;
    Ok(if swept.sessions == 0 {
        EXIT_UNREADABLE
    } else if swept.unreadable > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}
