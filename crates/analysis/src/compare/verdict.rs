//! The one line that says which of two runs was cheaper, by how much, how the difference
//! splits between the agent's calls and the summarizer's, and what each run did that the other
//! did not (docs/compare.md) — the `compare` report's last line and the Compare tab's verdict.

use super::columns::signed;
use super::comparison::{Comparison, Measure, Run};
use super::row::Row;
use crate::cost::{money, signed_money};

/// Which run was cheaper, by how much, where the difference lies and what each run did.
pub fn cheaper_line(comparison: &Comparison, currency: Option<&str>) -> String {
    let verdict = cheaper_verdict(comparison, currency);
    match verdict.detail {
        Some(detail) => format!("{}: {detail}", verdict.head),
        None => verdict.head,
    }
}

/// [`cheaper_line`] in its two parts, for a view that shows the head and keeps the rest for
/// a closer look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheaperVerdict {
    /// Which run was cheaper and by how much (or that neither was).
    pub head: String,
    /// [`CheaperVerdict::head`] without the note on what the tokens counted.
    pub short: String,
    /// How the difference splits between the agent's and the summarizer's calls, and what
    /// each run did that the other did not (`None` for equal runs that did the same).
    pub detail: Option<String>,
}

/// Which run was cheaper, as [`cheaper_line`]'s head and detail.
pub fn cheaper_verdict(comparison: &Comparison, currency: Option<&str>) -> CheaperVerdict {
    let t = &comparison.totals;
    let c = &t.cheaper;
    let d = &t.b_minus_a;
    let (amount, parts) = match (c.measure, currency) {
        (Measure::Cost, Some(currency)) => {
            let summ = d.summarizer_cost.unwrap_or(0.0);
            let agent = d.cost.unwrap_or(0.0) - summ;
            (
                format!("{} {currency}", money((c.b - c.a).abs())),
                format!(
                    "B − A: agent calls {}, summarizer calls {}",
                    signed_money(agent),
                    signed_money(summ)
                ),
            )
        }
        _ => (
            format!("{} tokens", (c.b - c.a).abs()),
            format!(
                "B − A: agent prompts {}, agent output {}, summarizer calls {}",
                signed(d.prompt),
                signed(d.output),
                signed(d.summarizer_tokens)
            ),
        ),
    };
    // The head, and the same without what the tokens counted (for a narrow view).
    let (head, short) = match c.run {
        None => {
            let head = match c.measure {
                Measure::Cost => format!("neither run was cheaper: both cost {}", money(c.a)),
                Measure::Tokens => {
                    format!("neither run was cheaper: both paid for {} tokens", c.a)
                }
            };
            (head.clone(), head)
        }
        Some(run) => {
            let (cheap, dear, low, high) = match run {
                Run::A => ("A", "B", c.a, c.b),
                Run::B => ("B", "A", c.b, c.a),
            };
            let counted = match c.measure {
                Measure::Tokens => "; the prompt and output of every call",
                Measure::Cost => "",
            };
            let percent = |counted: &str| {
                if high > 0.0 {
                    format!(" ({:.1}% less{counted})", (high - low) * 100.0 / high)
                } else {
                    String::new()
                }
            };
            let line = |counted| {
                format!(
                    "{cheap} was cheaper than {dear} by {amount}{}",
                    percent(counted)
                )
            };
            (line(counted), line(""))
        }
    };
    let (head, short) = match fallback_note(t) {
        Some(note) => (format!("{head} — {note}"), format!("{short} — {note}")),
        None => (head, short),
    };
    let why = behaviour(&t.a, &t.b);
    if c.run.is_none() && why.is_empty() {
        return CheaperVerdict {
            head,
            short,
            detail: None,
        };
    }
    let why = if why.is_empty() {
        "the runs compacted alike".to_string()
    } else {
        why
    };
    CheaperVerdict {
        head,
        short,
        detail: Some(format!("{parts}; {why}")),
    }
}

/// Why a comparison with a price file is in tokens: which run has calls with no price.
fn fallback_note(t: &super::comparison::Totals) -> Option<String> {
    if !t.cheaper.fell_back() {
        return None;
    }
    let calls = |n: u64, run: &str| {
        let s = if n == 1 { "" } else { "s" };
        format!("{n} call{s} of {run}")
    };
    let which = match (t.a.unpriced_calls, t.b.unpriced_calls) {
        (0, b) => calls(b, "B"),
        (a, 0) => calls(a, "A"),
        (a, b) => format!("{} and {}", calls(a, "A"), calls(b, "B")),
    };
    Some(format!(
        "in tokens, not money: the price file has no price for {which}"
    ))
}

/// What each run did that differs: compactions, refetches, requests over the threshold, peak.
fn behaviour(a: &Row, b: &Row) -> String {
    let mut parts = Vec::new();
    let mut pair = |what: &str, x: u64, y: u64| {
        if x != y {
            parts.push(format!("{what} {x} → {y}"));
        }
    };
    pair("summaries", a.summaries, b.summaries);
    pair("prunes", a.prunes, b.prunes);
    pair("failed compactions", a.failed, b.failed);
    pair("refetches", a.refetches, b.refetches);
    pair(
        "requests over the threshold",
        a.over_threshold,
        b.over_threshold,
    );
    pair("agent calls", a.agent_calls, b.agent_calls);
    pair("peak total", a.peak_total, b.peak_total);
    if parts.is_empty() {
        return String::new();
    }
    format!("A → B: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::comparison::Totals;

    fn comparison(a: Row, b: Row) -> Comparison {
        Comparison {
            first_divergence: None,
            turns: Vec::new(),
            totals: Totals::of(&a, &b),
            cache_misses: crate::compare::CacheMisses {
                a: Default::default(),
                b: Default::default(),
            },
        }
    }

    #[test]
    fn the_line_names_the_cheaper_run_the_amount_in_its_currency_and_what_differs() {
        let a = Row {
            summaries: 8,
            cost: Some(0.0733),
            ..Row::default()
        };
        let b = Row {
            summaries: 11,
            cost: Some(0.0736),
            ..Row::default()
        };
        let verdict = cheaper_verdict(&comparison(a, b), Some("USD"));
        assert_eq!(
            verdict.head,
            "A was cheaper than B by 0.000300 USD (0.4% less)"
        );
        assert!(
            verdict
                .detail
                .as_deref()
                .is_some_and(|d| d.starts_with("B − A: "))
        );
        let line = cheaper_line(&comparison(a, b), Some("USD"));
        assert!(
            line.starts_with("A was cheaper than B by 0.000300 USD (0.4% less): B − A: agent calls +0.000300, summarizer calls +0.000000"),
            "{line}"
        );
        assert!(line.ends_with("; A → B: summaries 8 → 11"), "{line}");
        // Unpriced: in tokens.
        let b = Row {
            prompt: 10,
            ..Row::default()
        };
        let line = cheaper_line(&comparison(Row::default(), b), None);
        assert!(
            line.starts_with("A was cheaper than B by 10 tokens"),
            "{line}"
        );
        assert_eq!(
            cheaper_line(&comparison(Row::default(), Row::default()), None),
            "neither run was cheaper: both paid for 0 tokens"
        );
    }

    #[test]
    fn a_run_with_an_unpriced_call_is_compared_in_tokens_and_the_line_says_so() {
        let a = Row {
            prompt: 100,
            cost: Some(0.5),
            ..Row::default()
        };
        let b = Row {
            prompt: 80,
            cost: None,
            unpriced_calls: 3,
            ..Row::default()
        };
        let c = comparison(a, b);
        assert_eq!(c.totals.cheaper.measure, Measure::Tokens);
        let verdict = cheaper_verdict(&c, Some("USD"));
        assert_eq!(
            verdict.head,
            "B was cheaper than A by 20 tokens (20.0% less; the prompt and output of every call) \
             — in tokens, not money: the price file has no price for 3 calls of B"
        );
        assert!(verdict.short.ends_with("no price for 3 calls of B"));
        let neither = Row {
            unpriced_calls: 1,
            ..a
        };
        let neither = Row {
            cost: None,
            ..neither
        };
        let both = Row {
            unpriced_calls: 1,
            ..b
        };
        let verdict = cheaper_verdict(
            &comparison(
                neither,
                Row {
                    prompt: 100,
                    ..both
                },
            ),
            Some("USD"),
        );
        assert_eq!(
            verdict.head,
            "neither run was cheaper: both paid for 100 tokens — in tokens, not money: the price \
             file has no price for 1 call of A and 1 call of B"
        );
    }
}
