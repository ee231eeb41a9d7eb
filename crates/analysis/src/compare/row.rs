//! One side's figures for a turn or a whole session (docs/compare.md's ROW), and the two ways
//! two of them are set against each other: B − A and B / A.

use serde::Serialize;

use crate::cost::round_money;

/// One side's figures over some events (a turn, or the session).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    /// Agent calls (model steps that sent a request), reported or not.
    pub agent_calls: u64,
    /// Σ prompt (uncached + cache read + cache write) of the agent calls.
    pub prompt: u64,
    /// Σ cache read of the agent calls (`null` when the log reports no cache read at all,
    /// docs/cost.md).
    pub cache_read: Option<u64>,
    /// Σ output of the agent calls.
    pub output: u64,
    /// Replace ops of kind summary (a replace after a `compaction/summary`).
    pub summaries: u64,
    /// Replace ops of kind prune (a replace after a `compaction/prune`).
    pub prunes: u64,
    /// Compactions whose `compaction/end` carries an `error`.
    pub failed: u64,
    /// The highest meter total after any of the events.
    pub peak_total: u64,
    /// Model requests made at or over the threshold.
    pub over_threshold: u64,
    /// Tool calls that fetched again what a compaction dropped (docs/audit.md).
    pub refetches: u64,
    /// Σ cost of every call, agent and summarizer (`null` without prices, or when some call
    /// with usage has no price: unpriced is never 0).
    pub cost: Option<f64>,
    /// Calls with usage, agent or summarizer, the price file has no price for (0 without
    /// prices).
    pub unpriced_calls: u64,
    /// Summarizer calls (a `compaction/summary` each).
    pub summarizer_calls: u64,
    /// Σ prompt + output of the summarizer calls.
    pub summarizer_tokens: u64,
    /// Σ cost of the summarizer calls (`null` without prices, or when one is unpriced); the
    /// agent calls cost the rest.
    pub summarizer_cost: Option<f64>,
    /// Events.
    pub events: u64,
}

impl Row {
    /// Every token the calls paid for: the agent calls' prompt and output and the summarizer
    /// calls' prompt and output.
    pub fn tokens(&self) -> u64 {
        self.prompt + self.output + self.summarizer_tokens
    }

    /// Some model call was made or some compaction ran (or failed) over these events.
    pub fn did_anything(&self) -> bool {
        self.agent_calls + self.summarizer_calls + self.summaries + self.prunes + self.failed > 0
    }

    /// Adds another row's figures (the peak is the higher of the two).
    pub fn add(&mut self, other: &Row) {
        self.agent_calls += other.agent_calls;
        self.prompt += other.prompt;
        self.cache_read = sum(self.cache_read, other.cache_read);
        self.output += other.output;
        self.summaries += other.summaries;
        self.prunes += other.prunes;
        self.failed += other.failed;
        self.peak_total = self.peak_total.max(other.peak_total);
        self.over_threshold += other.over_threshold;
        self.refetches += other.refetches;
        self.cost = add_money(self.cost, other.cost);
        self.unpriced_calls += other.unpriced_calls;
        self.summarizer_calls += other.summarizer_calls;
        self.summarizer_tokens += other.summarizer_tokens;
        self.summarizer_cost = add_money(self.summarizer_cost, other.summarizer_cost);
        self.events += other.events;
    }
}

/// Two amounts added: unknown when either is (one unpriced call leaves the sum unpriced).
pub(crate) fn add_money(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    a.zip(b).map(|(a, b)| round_money(a + b))
}

fn sum<T: std::ops::Add<Output = T>>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, None) => a,
        (None, b) => b,
    }
}

/// B − A, field by field (`null` where either side's figure is `null`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Difference {
    /// See [`Row::agent_calls`].
    pub agent_calls: i64,
    /// See [`Row::prompt`].
    pub prompt: i64,
    /// See [`Row::cache_read`].
    pub cache_read: Option<i64>,
    /// See [`Row::output`].
    pub output: i64,
    /// See [`Row::summaries`].
    pub summaries: i64,
    /// See [`Row::prunes`].
    pub prunes: i64,
    /// See [`Row::failed`].
    pub failed: i64,
    /// See [`Row::peak_total`].
    pub peak_total: i64,
    /// See [`Row::over_threshold`].
    pub over_threshold: i64,
    /// See [`Row::refetches`].
    pub refetches: i64,
    /// See [`Row::cost`].
    pub cost: Option<f64>,
    /// See [`Row::unpriced_calls`].
    pub unpriced_calls: i64,
    /// See [`Row::summarizer_calls`].
    pub summarizer_calls: i64,
    /// See [`Row::summarizer_tokens`].
    pub summarizer_tokens: i64,
    /// See [`Row::summarizer_cost`].
    pub summarizer_cost: Option<f64>,
    /// See [`Row::events`].
    pub events: i64,
}

fn minus(b: u64, a: u64) -> i64 {
    (i128::from(b) - i128::from(a)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

impl Difference {
    /// `b − a`.
    pub fn of(a: &Row, b: &Row) -> Difference {
        Difference {
            agent_calls: minus(b.agent_calls, a.agent_calls),
            prompt: minus(b.prompt, a.prompt),
            cache_read: b.cache_read.zip(a.cache_read).map(|(b, a)| minus(b, a)),
            output: minus(b.output, a.output),
            summaries: minus(b.summaries, a.summaries),
            prunes: minus(b.prunes, a.prunes),
            failed: minus(b.failed, a.failed),
            peak_total: minus(b.peak_total, a.peak_total),
            over_threshold: minus(b.over_threshold, a.over_threshold),
            refetches: minus(b.refetches, a.refetches),
            cost: b.cost.zip(a.cost).map(|(b, a)| round_money(b - a)),
            unpriced_calls: minus(b.unpriced_calls, a.unpriced_calls),
            summarizer_calls: minus(b.summarizer_calls, a.summarizer_calls),
            summarizer_tokens: minus(b.summarizer_tokens, a.summarizer_tokens),
            summarizer_cost: (b.summarizer_cost.zip(a.summarizer_cost))
                .map(|(b, a)| round_money(b - a)),
            events: minus(b.events, a.events),
        }
    }

    /// Every figure is 0: the two rows agree.
    pub fn is_zero(&self) -> bool {
        *self
            == Difference {
                cache_read: self.cache_read.map(|_| 0),
                cost: self.cost.map(|_| 0.0),
                summarizer_cost: self.summarizer_cost.map(|_| 0.0),
                ..Difference::default()
            }
    }
}

/// B / A, field by field (`null` where A's figure is 0 or either is `null`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Ratio {
    /// See [`Row::agent_calls`].
    pub agent_calls: Option<f64>,
    /// See [`Row::prompt`].
    pub prompt: Option<f64>,
    /// See [`Row::cache_read`].
    pub cache_read: Option<f64>,
    /// See [`Row::output`].
    pub output: Option<f64>,
    /// See [`Row::summaries`].
    pub summaries: Option<f64>,
    /// See [`Row::prunes`].
    pub prunes: Option<f64>,
    /// See [`Row::failed`].
    pub failed: Option<f64>,
    /// See [`Row::peak_total`].
    pub peak_total: Option<f64>,
    /// See [`Row::over_threshold`].
    pub over_threshold: Option<f64>,
    /// See [`Row::refetches`].
    pub refetches: Option<f64>,
    /// See [`Row::cost`].
    pub cost: Option<f64>,
    /// See [`Row::summarizer_calls`].
    pub summarizer_calls: Option<f64>,
    /// See [`Row::summarizer_tokens`].
    pub summarizer_tokens: Option<f64>,
    /// See [`Row::summarizer_cost`].
    pub summarizer_cost: Option<f64>,
    /// See [`Row::events`].
    pub events: Option<f64>,
}

fn over(b: u64, a: u64) -> Option<f64> {
    (a != 0).then(|| b as f64 / a as f64)
}

fn over_money(b: Option<f64>, a: Option<f64>) -> Option<f64> {
    b.zip(a).and_then(|(b, a)| (a != 0.0).then(|| b / a))
}

impl Ratio {
    /// `b / a`.
    pub fn of(a: &Row, b: &Row) -> Ratio {
        Ratio {
            agent_calls: over(b.agent_calls, a.agent_calls),
            prompt: over(b.prompt, a.prompt),
            cache_read: b.cache_read.zip(a.cache_read).and_then(|(b, a)| over(b, a)),
            output: over(b.output, a.output),
            summaries: over(b.summaries, a.summaries),
            prunes: over(b.prunes, a.prunes),
            failed: over(b.failed, a.failed),
            peak_total: over(b.peak_total, a.peak_total),
            over_threshold: over(b.over_threshold, a.over_threshold),
            refetches: over(b.refetches, a.refetches),
            cost: over_money(b.cost, a.cost),
            summarizer_calls: over(b.summarizer_calls, a.summarizer_calls),
            summarizer_tokens: over(b.summarizer_tokens, a.summarizer_tokens),
            summarizer_cost: over_money(b.summarizer_cost, a.summarizer_cost),
            events: over(b.events, a.events),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(prompt: u64, cache_read: Option<u64>, cost: Option<f64>) -> Row {
        Row {
            agent_calls: 2,
            prompt,
            cache_read,
            output: 10,
            peak_total: prompt / 2,
            cost,
            ..Row::default()
        }
    }

    #[test]
    fn b_minus_a_and_b_over_a() {
        let a = row(1000, Some(600), Some(0.5));
        let b = row(800, Some(700), Some(0.25));
        let d = Difference::of(&a, &b);
        assert_eq!(
            (d.prompt, d.cache_read, d.cost),
            (-200, Some(100), Some(-0.25))
        );
        assert_eq!((d.agent_calls, d.output, d.peak_total), (0, 0, -100));
        assert!(!d.is_zero());
        let r = Ratio::of(&a, &b);
        assert_eq!(
            (r.prompt, r.cost, r.agent_calls),
            (Some(0.8), Some(0.5), Some(1.0))
        );
        // A is 0: no ratio.
        assert_eq!((r.summaries, r.failed), (None, None));
    }

    #[test]
    fn a_null_on_either_side_is_null() {
        let a = row(1000, None, None);
        let b = row(1000, Some(5), Some(1.0));
        let d = Difference::of(&a, &b);
        assert_eq!((d.cache_read, d.cost), (None, None));
        assert!(d.is_zero());
        assert_eq!(Ratio::of(&a, &b).cache_read, None);
        assert!(Difference::of(&b, &b).is_zero());
    }

    #[test]
    fn adding_rows_keeps_the_higher_peak_and_nulls_only_when_both_are() {
        let mut t = row(100, None, None);
        t.add(&row(50, Some(3), None));
        assert_eq!(
            (t.prompt, t.peak_total, t.cache_read, t.cost),
            (150, 50, Some(3), None)
        );
        assert_eq!(t.agent_calls, 4);
    }

    #[test]
    fn an_unpriced_turn_leaves_the_total_unpriced_and_money_adds_up_to_its_decimal() {
        let mut t = row(100, None, Some(0.1));
        t.add(&row(100, None, Some(0.2)));
        assert_eq!(t.cost, Some(0.3), "rounded, not 0.30000000000000004");
        let unpriced = Row {
            unpriced_calls: 1,
            ..row(100, None, None)
        };
        t.add(&unpriced);
        assert_eq!((t.cost, t.unpriced_calls), (None, 1));
        let mut u = unpriced;
        u.add(&row(100, None, Some(0.5)));
        assert_eq!(u.cost, None, "in either order");
    }
}
