//! `tune`'s analysis (which compaction setting to ship): the grid of settings, each session's
//! what-if under each setting weighed as figures with ranges ([`what_if_sweep`], the same
//! computation `policy --what-if` makes), their fleet sums ([`TuneRow`]), the baseline of
//! the sessions as they ran, the frontier and the recommendation. Pure: the shells read the
//! sessions and spread the replays over threads.

mod figures;
mod frontier;
mod grid;
mod sweep;

pub use figures::{Point, RowSettings, SessionFigures, Span, TuneRow, TuneTotals};
pub use frontier::{Choice, Constraints, Objective, choose, distance, frontier};
pub use grid::{Axis, Expanded, Grid, GridError, GridValue, pruner_name};
pub use sweep::{WhatIfSweep, baseline_figures, what_if_sweep};
