//! The what-if's ledger (docs/cost.md, "In the what-if"): the hypothetical session's calls
//! and compactions, weighed by the same code as the log's own ([`Ledger::build`]).
//!
//! - Calls whose prompt was fixed before the first divergent check are the log's, exactly; so
//!   are the compactions before it (a later hypothetical summary may end their calls sooner).
//! - A later agent call's prompt is the log's plus what the replay's total differs from the
//!   meter's when its messages were fixed (the re-anchored offset of docs/policy.md#what-if).
//!   Its cache read is the previous what-if prompt less what that gap lost: after hypothetical
//!   compactions the meter price of the surface from the earliest changed position to the end,
//!   times the call's ratio of reported prompt to the meter's estimate; where the log compacted
//!   but the what-if does not, the log's median cache noise; elsewhere the log's own loss on
//!   that pair of calls. The rest of the prompt splits into uncached and cache write as the
//!   log's call did; the output is the log's.
//! - Each hypothetical summary attempt (a failed one too: the summarizer was paid) is a
//!   summarizer call whose prompt comes from a least-squares line of the log's own summarizer
//!   prompts against the meter tokens they summarised (with fewer than two, shadowed tokens
//!   plus 10 %), split as the log's summarizer calls split theirs, and whose output is the
//!   summary price (`--summary-tokens`).
//! - The log's compactions after the divergence, and their summarizer calls, are gone.

use serde::Serialize;

use super::report::{PolicyReport, ReplayMode};
use super::spread::Spread;
use super::trace::WhatIfTrace;
use crate::audit::ReplaceKind;
use crate::cost::{Call, CallKind, CompactionFacts, LedgerParts, Tokens, noise};
use surface_engine::{EventIdx, Meter};

/// `prompt = slope × shadowed + intercept`: a hypothetical summarizer call's prompt from the
/// meter tokens it summarises.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SummarizerLine {
    /// Prompt tokens per shadowed meter token.
    pub slope: f64,
    /// Prompt tokens at no shadowed token.
    pub intercept: f64,
    /// The log's summaries (with summarizer usage) it was fitted on; fewer than two: the line
    /// is shadowed tokens + 10 % (slope 1.1, intercept 0).
    pub summaries: usize,
}

impl SummarizerLine {
    /// The least-squares line through `(shadowed, prompt)` points; shadowed + 10 % when fewer
    /// than two points, or all at the same shadowed figure.
    pub fn fit(points: &[(u64, u64)]) -> SummarizerLine {
        let fallback = SummarizerLine {
            slope: 1.1,
            intercept: 0.0,
            summaries: points.len(),
        };
        if points.len() < 2 {
            return fallback;
        }
        let n = points.len() as f64;
        let mx = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1 as f64).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mx).powi(2)).sum();
        let sxy: f64 = points
            .iter()
            .map(|p| (p.0 as f64 - mx) * (p.1 as f64 - my))
            .sum();
        if sxx <= f64::EPSILON {
            return fallback;
        }
        let slope = sxy / sxx;
        SummarizerLine {
            slope,
            intercept: my - slope * mx,
            summaries: points.len(),
        }
    }

    /// The prompt of a summarizer call over `shadowed` meter tokens (0 at least).
    pub fn prompt(&self, shadowed: u64) -> u64 {
        (self.slope * shadowed as f64 + self.intercept)
            .round()
            .max(0.0) as u64
    }
}

/// What a what-if ledger rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EstimateBasis {
    /// The first divergent check's seq: every call and compaction before it is the log's
    /// (`null`: the what-if never diverged and its ledger is the log's).
    pub from_seq: Option<u64>,
    /// A hypothetical summarizer call's prompt.
    pub summarizer_line: SummarizerLine,
    /// A hypothetical summarizer call's output: the summary price.
    pub summary_output: u64,
    /// The ratio of reported prompt to the meter's estimate, and its observed spread.
    pub spread: Option<Spread>,
    /// The cache a call loses where the log compacted and the what-if does not.
    pub cache_noise_median: Option<u64>,
    /// Agent calls estimated (fixed after the divergence).
    pub calls_estimated: usize,
    /// Summarizer calls made up (failed attempts included).
    pub summarizer_calls: usize,
}

/// The what-if's ledger parts and what they rest on.
#[derive(Clone, Debug)]
pub struct WhatIfLedger {
    /// The hypothetical calls, compactions and replaces, for
    /// [`Ledger::build`](crate::cost::Ledger::build).
    pub parts: LedgerParts,
    /// What the estimate rests on.
    pub basis: EstimateBasis,
}

/// The what-if ledger of `report` (a what-if replay of the log whose ledger parts are
/// `actual`, with `meter` its meter); `None` for a verify report.
pub fn what_if_ledger(
    actual: &LedgerParts,
    report: &PolicyReport,
    meter: &Meter,
) -> Option<WhatIfLedger> {
    if report.mode != ReplayMode::WhatIf {
        return None;
    }
    let agents: Vec<Call> = actual
        .calls
        .iter()
        .filter(|c| c.kind == CallKind::Agent)
        .copied()
        .collect();
    let mut basis = EstimateBasis {
        from_seq: report.first_divergence.as_ref().map(|d| d.step_start_seq),
        summarizer_line: SummarizerLine::fit(&summary_points(actual)),
        summary_output: report.settings.summary_tokens,
        spread: report.spread,
        cache_noise_median: noise(&agents, &actual.replaces).1,
        calls_estimated: 0,
        summarizer_calls: 0,
    };
    let Some(divergence) = report.trace.divergence_cursor else {
        return Some(WhatIfLedger {
            parts: actual.clone(),
            basis,
        });
    };
    let mut build = Build {
        actual,
        report,
        meter,
        trace: &report.trace,
        divergence,
        caching: agents.iter().any(|c| c.reported && c.tokens.cache_read > 0),
        basis: &mut basis,
        removed: actual
            .compactions
            .iter()
            .map(|f| f.event.get())
            .filter(|&e| e >= divergence)
            .collect(),
        summarizer_sum: summarizer_sum(actual),
        summarizers: actual
            .calls
            .iter()
            .filter(|c| c.kind == CallKind::Summarizer)
            .map(|c| (c.cursor, c.route))
            .collect(),
        calls: Vec::with_capacity(actual.calls.len()),
        new_index: vec![None; actual.calls.len()],
        attempt_calls: Vec::new(),
        prev_actual: None,
        prev_what_if: None,
        next_tail: 0,
    };
    build.calls();
    let compactions = build.compactions();
    let mut replaces: Vec<usize> = actual
        .replaces
        .iter()
        .copied()
        .filter(|r| *r < divergence || build.removed.binary_search(r).is_err())
        .chain(
            build
                .trace
                .compactions
                .iter()
                .map(|h| h.cursor.saturating_sub(1)),
        )
        .collect();
    replaces.sort_unstable();
    let parts = LedgerParts {
        calls: build.calls,
        routes: actual.routes.clone(),
        compactions,
        replaces,
    };
    Some(WhatIfLedger { parts, basis })
}

/// `(shadowed meter tokens, summarizer prompt)` of the log's summaries whose summarizer call
/// reported usage.
fn summary_points(actual: &LedgerParts) -> Vec<(u64, u64)> {
    actual
        .compactions
        .iter()
        .filter(|f| f.kind == ReplaceKind::Summary)
        .filter_map(|f| {
            let call = actual.calls.get(f.summarizer?)?;
            call.reported
                .then(|| (f.shadowed_tokens, call.tokens.prompt()))
        })
        .collect()
}

/// The tokens of the log's summarizer calls with usage, summed.
fn summarizer_sum(actual: &LedgerParts) -> Tokens {
    let mut sum = Tokens::default();
    for c in actual
        .calls
        .iter()
        .filter(|c| c.kind == CallKind::Summarizer && c.reported)
    {
        sum.add(&c.tokens);
    }
    sum
}

struct Build<'a> {
    actual: &'a LedgerParts,
    report: &'a PolicyReport,
    meter: &'a Meter,
    trace: &'a WhatIfTrace,
    divergence: usize,
    caching: bool,
    basis: &'a mut EstimateBasis,
    /// Events of the log's compactions the what-if removed, ascending.
    removed: Vec<usize>,
    /// The tokens of the log's summarizer calls with usage, summed.
    summarizer_sum: Tokens,
    /// `(cursor, route)` of the log's summarizer calls, in log order.
    summarizers: Vec<(usize, u32)>,
    calls: Vec<Call>,
    /// Each log call's index among the what-if's calls (kept calls only).
    new_index: Vec<Option<usize>>,
    /// Each hypothetical attempt's index among the what-if's calls.
    attempt_calls: Vec<usize>,
    prev_actual: Option<Call>,
    prev_what_if: Option<Call>,
    next_tail: usize,
}

impl Build<'_> {
    /// The log's calls before the divergence, its agent calls after it estimated, the
    /// hypothetical summarizer calls in between, in order.
    fn calls(&mut self) {
        let mut attempts = self.trace.attempts.iter().enumerate().peekable();
        for (i, call) in self.actual.calls.iter().enumerate() {
            while let Some((_, a)) = attempts.next_if(|(_, a)| a.cursor <= call.cursor) {
                let made_up = self.summarizer_call(a.check, a.cursor, a.shadowed_tokens);
                self.attempt_calls.push(self.calls.len());
                self.calls.push(made_up);
            }
            let kept = match call.kind {
                _ if call.cursor < self.divergence => Some(*call),
                CallKind::Summarizer => None,
                CallKind::Agent => Some(self.estimated(call)),
            };
            if call.kind == CallKind::Agent {
                self.prev_actual = Some(*call);
                self.prev_what_if = kept;
            }
            if let Some(c) = kept {
                self.new_index[i] = Some(self.calls.len());
                self.calls.push(c);
            }
        }
        for (_, a) in attempts {
            let made_up = self.summarizer_call(a.check, a.cursor, a.shadowed_tokens);
            self.attempt_calls.push(self.calls.len());
            self.calls.push(made_up);
        }
        self.basis.summarizer_calls = self.attempt_calls.len();
    }

    /// An agent call fixed after the divergence, as the what-if would have paid it.
    fn estimated(&mut self, call: &Call) -> Call {
        self.basis.calls_estimated += 1;
        let lost = self.lost_before(call);
        if !call.reported {
            return *call;
        }
        let cursor = call.cursor;
        let offset = self.report.curve.total_at(self.meter, cursor) as i64
            - self.meter.at(cursor).total as i64;
        let t = call.tokens;
        let prompt = (t.prompt() as i64 + offset).max(0) as u64;
        let prev_prompt = self
            .prev_what_if
            .filter(|p| p.reported)
            .map(|p| p.tokens.prompt());
        let cache_read = match (self.caching, prev_prompt, lost) {
            (false, _, _) => 0,
            (true, Some(p), Some(lost)) => p.saturating_sub(lost),
            (true, _, _) => t.cache_read,
        }
        .min(prompt);
        let rest = prompt - cache_read;
        let fresh = t.uncached + t.cache_write;
        let cache_write = if fresh == 0 {
            0
        } else {
            ((rest as f64 * t.cache_write as f64 / fresh as f64).round() as u64).min(rest)
        };
        Call {
            tokens: Tokens {
                uncached: rest - cache_write,
                cache_read,
                cache_write,
                output: t.output,
            },
            ..*call
        }
    }

    /// What the what-if's cache lost between the previous agent call and `call`.
    fn lost_before(&mut self, call: &Call) -> Option<u64> {
        let from = self.prev_actual.map_or(0, |p| p.cursor);
        let mut tail = None;
        while let Some(t) = self.trace.tails.get(self.next_tail)
            && t.cursor <= call.cursor
        {
            if t.cursor > from || self.prev_actual.is_none() {
                tail = Some(t);
            }
            self.next_tail += 1;
        }
        if let Some(t) = tail {
            return Some((t.tail as f64 * t.ratio.unwrap_or(1.0)).round() as u64);
        }
        let k = self.removed.partition_point(|&e| e < from);
        if self.removed.get(k).is_some_and(|&e| e < call.cursor) {
            return Some(self.basis.cache_noise_median.unwrap_or(0));
        }
        let prev = self.prev_actual.filter(|p| p.reported)?;
        call.reported
            .then(|| prev.tokens.prompt().saturating_sub(call.tokens.cache_read))
    }

    /// A hypothetical summary attempt's summarizer call.
    fn summarizer_call(&self, check: usize, cursor: usize, shadowed: u64) -> Call {
        let prompt = self.basis.summarizer_line.prompt(shadowed);
        let verdict = self.report.checks.get(check);
        let at = cursor.saturating_sub(1);
        let (uncached, cache_read, cache_write) = self.summarizer_split(prompt);
        Call {
            seq: verdict.map_or(0, |c| c.step_start_seq),
            kind: CallKind::Summarizer,
            turn: verdict.and_then(|c| c.turn),
            step: None,
            tokens: Tokens {
                uncached,
                cache_read,
                cache_write,
                output: self.basis.summary_output,
            },
            reported: true,
            route: self.summarizer_route(at),
            event: EventIdx(at.min(u32::MAX as usize) as u32),
            cursor: at,
        }
    }

    /// `prompt` split into uncached, cache read and cache write as the log's summarizer calls
    /// split theirs (all uncached when it has none).
    fn summarizer_split(&self, prompt: u64) -> (u64, u64, u64) {
        let sum = self.summarizer_sum;
        let total = sum.prompt();
        if total == 0 {
            return (prompt, 0, 0);
        }
        let share = |x: u64| ((prompt as f64 * x as f64 / total as f64).round() as u64).min(prompt);
        let cache_read = if self.caching {
            share(sum.cache_read)
        } else {
            0
        };
        let cache_write = share(sum.cache_write).min(prompt - cache_read);
        (prompt - cache_read - cache_write, cache_read, cache_write)
    }

    /// The route of the log's last summarizer call before `at` (else its first, else the agent
    /// call's in force).
    fn summarizer_route(&self, at: usize) -> u32 {
        let before = self.summarizers.partition_point(|&(c, _)| c <= at);
        if let Some(&(_, route)) = before
            .checked_sub(1)
            .and_then(|k| self.summarizers.get(k))
            .or_else(|| self.summarizers.first())
        {
            return route;
        }
        let calls = &self.actual.calls;
        let k = calls.partition_point(|c| c.cursor <= at);
        k.checked_sub(1)
            .and_then(|k| calls.get(k))
            .or_else(|| calls.first())
            .map_or(0, |c| c.route)
    }

    /// The log's compactions before the divergence (their calls ended by what shadowed them on
    /// the what-if surface), then the hypothetical ones.
    fn compactions(&self) -> Vec<CompactionFacts> {
        let until = |node: u32| {
            self.trace
                .until
                .get(&node)
                .map(|&u| EventIdx(u.min(u32::MAX as usize) as u32))
        };
        let mut out: Vec<CompactionFacts> = self
            .actual
            .compactions
            .iter()
            .filter(|f| f.event.get() < self.divergence)
            .map(|f| CompactionFacts {
                until: until(f.event.0),
                summarizer: f
                    .summarizer
                    .and_then(|i| self.new_index.get(i).copied().flatten()),
                ..*f
            })
            .collect();
        let mut ok_attempts = self
            .trace
            .attempts
            .iter()
            .zip(&self.attempt_calls)
            .filter(|(a, _)| a.ok)
            .map(|(_, &i)| i);
        for h in &self.trace.compactions {
            let seq = self
                .report
                .checks
                .get(h.check)
                .map_or(0, |c| c.step_start_seq);
            let at = h.cursor.saturating_sub(1);
            out.push(CompactionFacts {
                seq,
                kind: if h.summary {
                    ReplaceKind::Summary
                } else {
                    ReplaceKind::Prune
                },
                event: EventIdx(at.min(u32::MAX as usize) as u32),
                until: until(h.node),
                shadowed_tokens: h.shadowed_tokens,
                replacement_tokens: h.replacement_tokens,
                summarizer: if h.summary { ok_attempts.next() } else { None },
                position: Some(h.position),
            });
        }
        out.sort_by_key(|f| f.event);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_least_squares_or_ten_percent_more() {
        let line = SummarizerLine::fit(&[(1000, 1300), (2000, 2300), (3000, 3300)]);
        assert!((line.slope - 1.0).abs() < 1e-9 && (line.intercept - 300.0).abs() < 1e-6);
        assert_eq!(line.prompt(4000), 4300);
        assert_eq!(line.summaries, 3);
        for few in [&[][..], &[(1000, 5000)][..], &[(1000, 1), (1000, 3)][..]] {
            let line = SummarizerLine::fit(few);
            assert_eq!((line.slope, line.intercept), (1.1, 0.0));
            assert_eq!(line.prompt(1000), 1100);
        }
        // A line that would go below 0 stops there.
        let falling = SummarizerLine::fit(&[(1000, 500), (2000, 0)]);
        assert_eq!(falling.prompt(4000), 0);
    }
}
