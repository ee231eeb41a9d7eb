//! The figures `tune` weighs a setting by — one session's, and their sums over a fleet — each
//! a [`Span`]: the likely value with the smallest and largest the what-if's ranges allow.
//! One session's spans come from its likely replay and the two replays of the spread
//! (see [`count_ranges`](super::super::count_ranges)); a fleet's are the sums of its
//! sessions' (peak fill: the largest).

use serde::Serialize;

use super::super::report::{PolicyReport, SettingsShown, Totals};
use super::super::settings::PolicySettings;
use crate::cost::LedgerSummary;

/// A figure with its range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Span {
    /// The likely replay's value.
    pub likely: f64,
    /// The smallest the ranges allow.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Span {
    /// A value known exactly.
    pub fn exact(x: f64) -> Span {
        Span {
            likely: x,
            min: x,
            max: x,
        }
    }

    fn of(values: &[f64]) -> Span {
        let likely = values.first().copied().unwrap_or(0.0);
        Span {
            likely,
            min: values.iter().copied().fold(likely, f64::min),
            max: values.iter().copied().fold(likely, f64::max),
        }
    }

    fn add(&mut self, other: &Span) {
        self.likely += other.likely;
        self.min += other.min;
        self.max += other.max;
    }

    fn max_with(&mut self, other: &Span) {
        self.likely = self.likely.max(other.likely);
        self.min = self.min.max(other.min);
        self.max = self.max.max(other.max);
    }

    /// `likely` lies within `[min, max]` of `other`.
    pub fn holds(&self, x: f64) -> bool {
        self.min <= x && x <= self.max
    }
}

/// One replay's figures (or the log's own).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    agent_calls: f64,
    agent_prompt: f64,
    uncached: f64,
    cache_read: Option<f64>,
    cache_lost: Option<f64>,
    summarizer_tokens: f64,
    cost: Option<f64>,
    fired: f64,
    summaries: f64,
    prunes: f64,
    failures: f64,
    over_threshold: f64,
    over_window: f64,
    peak_fill: f64,
}

impl Point {
    /// The figures of a replay's `totals` (with `failures` not-smaller summaries) and its
    /// ledger, under `window`.
    pub fn of(
        totals: &Totals,
        failures: usize,
        ledger: &LedgerSummary,
        window: Option<u64>,
    ) -> Point {
        let t = &ledger.totals;
        let caching = |x: Option<u64>| ledger.caching.then(|| x.unwrap_or(0) as f64);
        Point {
            agent_calls: t.agent.calls as f64,
            agent_prompt: ledger.agent_prompt as f64,
            uncached: t.agent.uncached as f64,
            cache_read: caching(t.agent.cache_read),
            cache_lost: caching(ledger.compaction_totals.cache_lost),
            summarizer_tokens: ledger.compaction_totals.summarizer_tokens as f64,
            cost: t.all.cost,
            fired: totals.fired as f64,
            summaries: totals.summaries as f64,
            prunes: totals.prunes as f64,
            failures: failures as f64,
            over_threshold: totals.requests_over_threshold as f64,
            over_window: totals.requests_over_window as f64,
            peak_fill: window
                .filter(|w| *w > 0)
                .map_or(0.0, |w| totals.peak_total as f64 / w as f64),
        }
    }

    /// The figures of a what-if replay `report` with its ledger.
    pub fn of_what_if(report: &PolicyReport, ledger: &LedgerSummary) -> Point {
        let failures = report
            .checks
            .iter()
            .flat_map(|c| &c.summaries)
            .filter(|s| !s.ok)
            .count();
        Point::of(&report.totals, failures, ledger, report.window)
    }
}

/// The figures a setting is weighed by, each with its range.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TuneTotals {
    /// Agent calls (requests).
    pub agent_calls: Span,
    /// Σ agent prompt tokens.
    pub agent_prompt: Span,
    /// Σ agent uncached input tokens.
    pub uncached: Span,
    /// Σ agent cache-read tokens, over the sessions whose provider reports a cache.
    pub cache_read: Option<Span>,
    /// Σ cache lost to compactions, over the same sessions.
    pub cache_lost: Option<Span>,
    /// Σ summarizer prompt + output tokens.
    pub summarizer_tokens: Span,
    /// Σ cost, when every session is priced.
    pub cost: Option<Span>,
    /// Checks that compacted (or tried to).
    pub fired: Span,
    /// Summaries made.
    pub summaries: Span,
    /// Tool results pruned.
    pub prunes: Span,
    /// Summaries that failed (the not-smaller check).
    pub failures: Span,
    /// Requests sent over the threshold.
    pub requests_over_threshold: Span,
    /// Requests sent over the window.
    pub requests_over_window: Span,
    /// The largest peak total / window of any session.
    pub peak_fill: Span,
}

impl TuneTotals {
    /// The number of figures [`TuneTotals::named`] lists.
    pub const FIGURES: usize = 14;

    /// Every figure by name, in the order the CSV, the export's `tune` table and the tables
    /// show them (`None`: not known for these sessions — no cache reported, or unpriced).
    pub fn named(&self) -> [(&'static str, Option<Span>); TuneTotals::FIGURES] {
        [
            ("cost", self.cost),
            ("agent_prompt", Some(self.agent_prompt)),
            ("agent_calls", Some(self.agent_calls)),
            ("uncached", Some(self.uncached)),
            ("cache_read", self.cache_read),
            ("cache_lost", self.cache_lost),
            ("summarizer_tokens", Some(self.summarizer_tokens)),
            ("fired", Some(self.fired)),
            ("summaries", Some(self.summaries)),
            ("prunes", Some(self.prunes)),
            ("failures", Some(self.failures)),
            (
                "requests_over_threshold",
                Some(self.requests_over_threshold),
            ),
            ("requests_over_window", Some(self.requests_over_window)),
            ("peak_fill", Some(self.peak_fill)),
        ]
    }

    /// One session's spans from its likely point (first) and the others its ranges replay.
    pub fn of_points(points: &[Point]) -> TuneTotals {
        let span = |get: fn(&Point) -> f64| Span::of(&points.iter().map(get).collect::<Vec<_>>());
        let optional = |get: fn(&Point) -> Option<f64>| {
            let values: Option<Vec<f64>> = points.iter().map(get).collect();
            values.map(|v| Span::of(&v))
        };
        TuneTotals {
            agent_calls: span(|p| p.agent_calls),
            agent_prompt: span(|p| p.agent_prompt),
            uncached: span(|p| p.uncached),
            cache_read: optional(|p| p.cache_read),
            cache_lost: optional(|p| p.cache_lost),
            summarizer_tokens: span(|p| p.summarizer_tokens),
            cost: optional(|p| p.cost),
            fired: span(|p| p.fired),
            summaries: span(|p| p.summaries),
            prunes: span(|p| p.prunes),
            failures: span(|p| p.failures),
            requests_over_threshold: span(|p| p.over_threshold),
            requests_over_window: span(|p| p.over_window),
            peak_fill: span(|p| p.peak_fill),
        }
    }

    /// Adds a session's spans (`first`: this is the first session added, so a figure that
    /// needs every session — cost — starts from it).
    fn add(&mut self, other: &TuneTotals, first: bool) {
        for (into, x) in [
            (&mut self.agent_calls, &other.agent_calls),
            (&mut self.agent_prompt, &other.agent_prompt),
            (&mut self.uncached, &other.uncached),
            (&mut self.summarizer_tokens, &other.summarizer_tokens),
            (&mut self.fired, &other.fired),
            (&mut self.summaries, &other.summaries),
            (&mut self.prunes, &other.prunes),
            (&mut self.failures, &other.failures),
            (
                &mut self.requests_over_threshold,
                &other.requests_over_threshold,
            ),
            (&mut self.requests_over_window, &other.requests_over_window),
        ] {
            into.add(x);
        }
        self.peak_fill.max_with(&other.peak_fill);
        for (into, x) in [
            (&mut self.cache_read, &other.cache_read),
            (&mut self.cache_lost, &other.cache_lost),
        ] {
            if let Some(x) = x {
                into.get_or_insert_with(Span::default).add(x);
            }
        }
        self.cost = match (first, self.cost, other.cost) {
            (true, _, x) => x,
            (false, Some(mut s), Some(x)) => {
                s.add(&x);
                Some(s)
            }
            _ => None,
        };
    }
}

/// One session's figures under one setting.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionFigures {
    /// No check diverged from the log's: every figure is exact.
    pub exact: bool,
    /// The figures.
    pub totals: TuneTotals,
}

/// The settings as a row shows them: those of a what-if, the summary price `null` when each
/// session's own (the mean of its summaries) is used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowSettings {
    /// T.
    pub threshold_ratio: f64,
    /// R, when the budget is a ratio.
    pub retain_ratio: Option<f64>,
    /// N, when the budget is a token count.
    pub retain_tokens: Option<u64>,
    /// Summaries per pressure check beyond the first.
    pub compaction_retries: u32,
    /// The pruner, or `null`.
    pub pruner: Option<super::super::settings::PrunerSettings>,
    /// The price of a hypothetical summary, or `null`.
    pub summary_tokens: Option<u64>,
}

impl RowSettings {
    /// The row's view of `s`.
    pub fn of(s: &PolicySettings) -> RowSettings {
        let shown = SettingsShown::of(s, 0);
        RowSettings {
            threshold_ratio: shown.threshold_ratio,
            retain_ratio: shown.retain_ratio,
            retain_tokens: shown.retain_tokens,
            compaction_retries: shown.compaction_retries,
            pruner: shown.pruner,
            summary_tokens: s.summary_tokens,
        }
    }
}

/// A setting's fleet totals: every session's figures summed (and the baseline's, the
/// sessions as they ran, in the same shape).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneRow {
    /// The setting (`null` for the baseline).
    pub settings: Option<RowSettings>,
    /// Sessions summed.
    pub sessions: usize,
    /// Of them, those whose figures are exact.
    pub exact_sessions: usize,
    /// The sums.
    pub totals: TuneTotals,
}

impl TuneRow {
    /// An empty row for `settings` (`None`: the baseline).
    pub fn new(settings: Option<&PolicySettings>) -> TuneRow {
        TuneRow {
            settings: settings.map(RowSettings::of),
            sessions: 0,
            exact_sessions: 0,
            totals: TuneTotals::default(),
        }
    }

    /// Adds one session's figures.
    pub fn add(&mut self, session: &SessionFigures) {
        self.totals.add(&session.totals, self.sessions == 0);
        self.sessions += 1;
        self.exact_sessions += usize::from(session.exact);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(prompt: f64, lo: f64, hi: f64, cost: Option<f64>, exact: bool) -> SessionFigures {
        let mut p = Point {
            agent_prompt: prompt,
            cost,
            peak_fill: prompt / 1000.0,
            ..Point::default()
        };
        let likely = p;
        p.agent_prompt = lo;
        let low = p;
        p.agent_prompt = hi;
        SessionFigures {
            exact,
            totals: TuneTotals::of_points(&[likely, low, p]),
        }
    }

    #[test]
    fn a_fleet_sums_the_sessions_ranges_and_keeps_the_largest_fill() {
        let mut row = TuneRow::new(Some(&PolicySettings::default()));
        row.add(&session(100.0, 90.0, 120.0, Some(1.0), false));
        row.add(&session(300.0, 300.0, 300.0, Some(2.0), true));
        let t = &row.totals;
        assert_eq!(
            t.agent_prompt,
            Span {
                likely: 400.0,
                min: 390.0,
                max: 420.0
            }
        );
        assert_eq!(t.cost, Some(Span::exact(3.0)));
        assert_eq!(t.peak_fill.likely, 0.3);
        assert_eq!((row.sessions, row.exact_sessions), (2, 1));
        row.add(&session(1.0, 1.0, 1.0, None, true));
        assert_eq!(row.totals.cost, None, "a session without money");
        assert_eq!(row.totals.cache_read, None, "no session caches");
    }
}
