//! The comparison on small hand-written runs: which turn each figure counts for, the first
//! divergence in each of its four kinds, and a run against itself. Expected figures are read
//! off the events written here, not from the engine.

use serde_json::{Value, json};

use super::*;
use crate::cost::PriceTable;
use crate::cost::tests::{header, log_of, prune, step, summary, user};
use surface_engine::{EventLog, Meter, Surface};

fn turn_start(seq: u64, turn: u64) -> Value {
    json!({"type": "turn/start", "seq": seq, "time": seq * 10, "data": {"turn": turn}})
}

fn failed_compaction(seq: u64, turn: u64) -> Vec<Value> {
    vec![
        json!({"type": "compaction/start", "seq": seq, "data": {"compactionId": "f", "turn": turn}}),
        json!({"type": "compaction/end", "seq": seq + 1, "data": {"compactionId": "f", "turn": turn,
            "error": {"message": "summary not smaller"}}}),
    ]
}

/// Turn 0: a header. Turn 1: two steps, a prune, a summary. Turn 2: one step, a failed
/// compaction, a third step-less `step/start`.
fn run() -> Vec<Value> {
    let mut l = vec![header(1), turn_start(2, 1), user(3, 400)];
    l.extend(step(4, 1, 1, [100, 0, 50, 10])); // 4, 5, 6
    l.push(user(7, 800));
    l.extend(step(8, 1, 2, [60, 300, 0, 20])); // 8, 9, 10
    l.extend(prune(11, 7, 7, 40)); // 11, 12
    l.extend(summary(13, 1, 3, 5, 80, [400, 50])); // 13..16
    l.push(turn_start(17, 2));
    l.extend(step(18, 2, 1, [20, 320, 0, 10])); // 18, 19, 20
    l.extend(failed_compaction(21, 2)); // 21, 22
    l.push(json!({"type": "step/start", "seq": 23, "data": {"turn": 2, "step": 2}}));
    l
}

struct Analysis {
    log: EventLog,
    analysed: Analysed,
}

fn analysis(lines: &[Value], prices: Option<&PriceTable>) -> Analysis {
    let log = log_of(lines);
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let analysed = analyse(&log, &surface, &meter, 0.8, prices);
    Analysis { log, analysed }
}

fn side(a: &Analysis) -> Side<'_> {
    Side {
        log: &a.log,
        analysed: &a.analysed,
    }
}

const PRICES: &str = r#"{"currency": "USD", "per": 1000000, "models": {
    "acme/m1": {"uncached": 1.0, "cache_read": 0.1, "cache_write": 1.25, "output": 4.0},
    "small":   {"uncached": 0.5, "cache_read": 0.05, "cache_write": 0.5, "output": 2.0}}}"#;

#[test]
fn every_figure_counts_for_the_turn_of_the_last_turn_start_before_it() {
    let a = analysis(&run(), None);
    let turns = &a.analysed.turns;
    assert_eq!(turns.len(), 3);
    // Turn 0 holds only the header: no call, no compaction, so no row (its event still
    // counts in the total).
    assert_eq!(turns[0], None);
    let one = turns[1].unwrap();
    assert_eq!(one.events, 15); // seqs 2..=16
    assert_eq!(one.agent_calls, 2);
    assert_eq!(one.prompt, 150 + 360);
    assert_eq!(one.cache_read, Some(300));
    assert_eq!(one.output, 30);
    assert_eq!((one.summaries, one.prunes, one.failed), (1, 1, 0));
    assert_eq!((one.summarizer_calls, one.summarizer_tokens), (1, 450));
    assert_eq!(one.cost, None);
    let two = turns[2].unwrap();
    assert_eq!(two.events, 7); // seqs 17..=23
    assert_eq!(
        (two.agent_calls, two.prompt, two.cache_read),
        (1, 340, Some(320))
    );
    assert_eq!((two.summaries, two.prunes, two.failed), (0, 0, 1));
    let total = a.analysed.total;
    assert_eq!(total.events, 23);
    assert_eq!(total.agent_calls, 3);
    assert_eq!(total.prompt, 850);
    assert_eq!(total.tokens(), 850 + 40 + 450);
    assert_eq!(total.peak_total, one.peak_total.max(two.peak_total));
    // The calls know their turn and step.
    let at: Vec<(u64, u64, u64)> = a
        .analysed
        .calls
        .iter()
        .map(|c| (c.seq, c.position.turn, c.position.step))
        .collect();
    assert_eq!(at, [(5, 1, 1), (9, 1, 2), (19, 2, 1)]);
}

#[test]
fn a_turn_zero_that_paid_for_a_call_is_shown() {
    let mut lines = vec![header(1)];
    lines.extend(step(2, 0, 1, [10, 0, 0, 5]));
    lines.extend([turn_start(5, 1), user(6, 400)]);
    lines.extend(step(7, 1, 1, [100, 0, 50, 10]));
    let a = analysis(&lines, None);
    let zero = a.analysed.turns[0].unwrap();
    assert_eq!((zero.events, zero.agent_calls, zero.prompt), (4, 1, 10));
    let c = compare(side(&a), side(&a));
    assert_eq!(c.turns.iter().map(|t| t.turn).collect::<Vec<_>>(), [0, 1]);
}

#[test]
fn a_run_that_opens_with_a_turn_has_no_turn_zero() {
    let a = analysis(&run()[1..], None);
    assert_eq!(a.analysed.turns[0], None);
    let c = compare(side(&a), side(&a));
    assert_eq!(c.turns.iter().map(|t| t.turn).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn a_run_against_itself_has_no_divergence_and_zero_differences() {
    let prices = PriceTable::parse(PRICES).unwrap();
    let a = analysis(&run(), Some(&prices));
    let b = analysis(&run(), Some(&prices));
    let c = compare(side(&a), side(&b));
    assert_eq!(c.first_divergence, None);
    assert!(c.totals.b_minus_a.is_zero());
    assert!(c.turns.iter().all(|t| t.b_minus_a.unwrap().is_zero()));
    assert_eq!(c.totals.b_over_a.prompt, Some(1.0));
    assert_eq!(c.totals.cheaper.run, None);
    assert_eq!(c.totals.cheaper.measure, Measure::Cost);
    assert!(c.totals.a.cost.unwrap() > 0.0);
}

#[test]
fn times_and_ids_do_not_make_a_divergence() {
    let mut other = run();
    for (k, e) in other.iter_mut().enumerate() {
        e["time"] = json!(1_000_000 + k);
        if let Some(id) = e["data"].get_mut("compactionId") {
            *id = json!(format!("other-{k}"));
        }
    }
    let (a, b) = (analysis(&run(), None), analysis(&other, None));
    assert_eq!(compare(side(&a), side(&b)).first_divergence, None);
}

#[test]
fn the_first_divergence_names_both_events() {
    let a = analysis(&run(), None);
    // Another type at seq 11: B compacts nothing there.
    let mut lines = run();
    lines[10] = json!({"type": "step/start", "seq": 11, "data": {"turn": 1, "step": 3}});
    let b = analysis(&lines, None);
    let d = compare(side(&a), side(&b)).first_divergence.unwrap();
    assert_eq!(d.kind, DivergenceKind::Type);
    assert_eq!((d.a_seq, d.b_seq, d.index), (Some(11), Some(11), 10));
    assert_eq!(d.a_type.as_deref(), Some("compaction/prune"));
    assert_eq!(d.b_type.as_deref(), Some("step/start"));
    assert_eq!(d.a_position, Some(Position { turn: 1, step: 2 }));
    assert!(d.a_summary.is_some() && d.b_summary.is_some());
    // Other content: the user's text.
    let mut lines = run();
    lines[2] = user(3, 401);
    let b = analysis(&lines, None);
    let d = compare(side(&a), side(&b)).first_divergence.unwrap();
    assert_eq!(d.kind, DivergenceKind::Content);
    assert_eq!(d.a_seq, Some(3));
    assert_eq!(d.path.as_deref(), Some("data.content[0].text"));
}

#[test]
fn a_run_that_stops_early_diverges_where_it_ends() {
    let full = run();
    let a = analysis(&full[..12], None);
    let b = analysis(&full, None);
    let c = compare(side(&a), side(&b));
    let d = c.first_divergence.as_ref().unwrap();
    assert_eq!(d.kind, DivergenceKind::AEnded);
    assert_eq!((d.a_seq, d.b_seq), (None, Some(13)));
    assert_eq!(d.b_type.as_deref(), Some("compaction/start"));
    // A has no turn 2: its side of the pair is null.
    let two = c.turns.iter().find(|t| t.turn == 2).unwrap();
    assert!(two.a.is_none() && two.b.is_some() && two.b_minus_a.is_none());
    let d = compare(side(&b), side(&a)).first_divergence.unwrap();
    assert_eq!(
        (d.kind, d.a_seq, d.b_seq),
        (DivergenceKind::BEnded, Some(13), None)
    );
}

#[test]
fn an_empty_run_has_no_turns_and_zero_totals() {
    let empty = analysis(&[], None);
    let a = analysis(&run(), None);
    assert!(empty.analysed.turns.iter().all(Option::is_none));
    let c = compare(side(&empty), side(&a));
    let d = c.first_divergence.unwrap();
    assert_eq!(
        (d.kind, d.a_seq, d.b_seq),
        (DivergenceKind::AEnded, None, Some(1))
    );
    assert_eq!(c.totals.a, Row::default());
    assert_eq!(c.totals.b_over_a.prompt, None);
    assert_eq!(c.totals.cheaper.run, Some(Run::A));
    assert_eq!(compare(side(&empty), side(&empty)).first_divergence, None);
}
