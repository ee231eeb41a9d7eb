//! Reading B and comparing it with A, off the UI thread: B is read and its surface and meter
//! built as a main load does, both runs are analysed (`surface_passes::analyse_of`: the audit
//! beside the ledger, priced with the price file in use) and compared, the two logs' events are
//! paired by turn and step (the engine's [`Positions`]) for B's curve on A's strip, and B's
//! compactions are counted at the policy's check points (for the Policy tab's prediction
//! against a run).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::compare::{Analysed, Comparison, Position, Positions, Side, compare_split};
use surface_analysis::cost::PriceTable;
use surface_analysis::policy::PolicyInput;
use surface_engine::{EventLog, Meter, Surface, SurfaceOp};

use crate::session::loader::{Source, next_generation, read_source};

/// What B is: where it comes from and its display name.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The file (or sample) of B.
    pub source: Source,
    /// The session of B in a SQLite file.
    pub session: Option<String>,
}

/// Two runs compared: B's log and meter, both analyses, the comparison and the pairing of
/// their events.
#[derive(Debug)]
pub struct Compared {
    /// The load of A this was computed for.
    pub a_generation: u64,
    /// A's display name.
    pub a_label: String,
    /// B's display name.
    pub b_label: String,
    /// B's log.
    pub b_log: Arc<EventLog>,
    /// B's meter.
    pub b_meter: Arc<Meter>,
    /// A's analysis.
    pub a: Analysed,
    /// B's analysis.
    pub b: Analysed,
    /// The first divergence, the per-turn rows and the totals.
    pub comparison: Comparison,
    /// For each event of A, B's event at the same turn, step and offset in the step (`None`:
    /// B has no such step).
    pub a_to_b: Vec<Option<u32>>,
    /// B's replace ops (its compactions), each as the event of A at the same place.
    pub b_marks: Vec<usize>,
    /// B's own compactions as the policy's check points see them.
    pub b_checks: RealChecks,
    /// The prices both runs were priced with (an identity, never followed; `None`: tokens).
    pub priced_with: Option<usize>,
}

/// A real run's compactions as the policy's check points see them (docs/policy.md): how
/// many checks compacted (or tried to) and where the first did — the same counting a what-if
/// report's `fired` and its checks' turn and step use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RealChecks {
    /// Checks at which the log compacted.
    pub fired: usize,
    /// The first one: the `turn` and `step` of the step it comes before, and the seq of its
    /// first compaction event.
    pub first: Option<(Option<u64>, Option<u64>, u64)>,
}

impl RealChecks {
    /// Read from the policy's input for `log` (`surface` at the end, `meter` built from it).
    pub fn of(log: &EventLog, surface: &Surface, meter: &Meter) -> RealChecks {
        let input = PolicyInput::build(log, surface, meter);
        let mut checks = input.compacting_checks();
        // A compacting check's cursor is its first compaction event.
        let first = checks.next().map(|c| {
            let at = if (c.cursor as usize) < log.len() {
                c.cursor
            } else {
                c.event
            };
            (c.turn, c.step, log.event(surface_engine::EventIdx(at)).seq)
        });
        RealChecks {
            fired: usize::from(first.is_some()) + checks.count(),
            first,
        }
    }
}

/// A's side of a comparison, shared with the worker.
pub struct SideA {
    /// The load of A.
    pub generation: u64,
    /// A's display name.
    pub label: String,
    /// A's log.
    pub log: Arc<EventLog>,
    /// A's meter.
    pub meter: Arc<Meter>,
}

/// Reads B and compares it with A at threshold ratio `ratio`, priced with `prices` when given.
/// Errors are one sentence.
pub fn compute(
    a: &SideA,
    b: &Target,
    ratio: f64,
    prices: Option<&Arc<PriceTable>>,
) -> Result<Compared, String> {
    let loaded = read_source(
        &b.source,
        b.session.as_deref(),
        None,
        false,
        next_generation(),
    )
    .map_err(|e| format!("{}: {e}", b.source.label()))?;
    let b_meter = Arc::new(surface_passes::meter_of(&loaded.log, &loaded.surface));
    let a_surface = Surface::at_end(&a.log);
    let table = prices.map(|p| p.as_ref());
    let a_analysed = surface_passes::analyse_of(&a.log, &a_surface, &a.meter, ratio, table);
    let b_analysed =
        surface_passes::analyse_of(&loaded.log, &loaded.surface, &b_meter, ratio, table);
    let b_checks = RealChecks::of(&loaded.log, &loaded.surface, &b_meter);
    let comparison = compare_split(
        Side {
            log: &a.log,
            analysed: &a_analysed,
        },
        Side {
            log: &loaded.log,
            analysed: &b_analysed,
        },
        surface_passes::first_split_of(&a.log, &loaded.log),
    );
    let a_steps = StepRanges::of(&a.log, &a_analysed.positions);
    let b_steps = StepRanges::of(&loaded.log, &b_analysed.positions);
    let a_to_b = (0..a.log.len())
        .map(|i| a_steps.pair(i, &b_steps).map(|j| j as u32))
        .collect();
    let b_marks = loaded
        .log
        .indices()
        .filter(|&j| matches!(loaded.log.op(j), SurfaceOp::Replace { .. }))
        .filter_map(|j| b_steps.pair(j.get(), &a_steps))
        .collect();
    Ok(Compared {
        a_generation: a.generation,
        a_label: a.label.clone(),
        b_label: b.source.label(),
        b_log: Arc::clone(&loaded.log),
        b_meter,
        a: a_analysed,
        b: b_analysed,
        comparison,
        a_to_b,
        b_marks,
        b_checks,
        priced_with: prices.map(|p| Arc::as_ptr(p) as usize),
    })
}

/// Each event's place (turn and step) and the events of every place of one log.
struct StepRanges {
    of_event: Vec<Position>,
    ranges: HashMap<Position, (usize, usize)>,
}

impl StepRanges {
    fn of(log: &EventLog, positions: &Positions) -> StepRanges {
        let of_event: Vec<Position> = log.indices().map(|i| positions.of(i)).collect();
        let mut ranges: HashMap<Position, (usize, usize)> = HashMap::new();
        for (i, p) in of_event.iter().enumerate() {
            ranges.entry(*p).or_insert((i, i + 1)).1 = i + 1;
        }
        StepRanges { of_event, ranges }
    }

    /// The event of `other` at the place of event `i` of this log and the same offset in it
    /// (the place's last event when `other`'s is shorter).
    fn pair(&self, i: usize, other: &StepRanges) -> Option<usize> {
        let p = self.of_event.get(i)?;
        let (start, _) = self.ranges.get(p)?;
        let (o_start, o_end) = other.ranges.get(p)?;
        Some((o_start + (i - start)).min(o_end - 1))
    }
}

/// A comparison computed on a worker thread.
pub struct CompareJob {
    rx: Receiver<Result<Compared, String>>,
}

impl std::fmt::Debug for CompareJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompareJob")
    }
}

impl CompareJob {
    /// Starts the comparison on a worker (`Err`: no thread could be started; computed here).
    pub fn spawn(
        a: SideA,
        b: Target,
        (ratio, prices): (f64, Option<Arc<PriceTable>>),
        ctx: Option<egui::Context>,
    ) -> Result<CompareJob, Box<Result<Compared, String>>> {
        let (tx, rx) = channel();
        let started = std::thread::Builder::new()
            .name("surface-viewer-compare".into())
            .spawn(move || {
                let _ = tx.send(compute(&a, &b, ratio, prices.as_ref()));
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        match started {
            Ok(_) => Ok(CompareJob { rx }),
            Err(e) => Err(Box::new(Err(format!(
                "the comparison could not start: {e}"
            )))),
        }
    }

    /// `Some(result)` once the worker finished.
    pub fn poll(&self) -> Option<Result<Compared, String>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the comparison stopped".into())),
        }
    }
}
