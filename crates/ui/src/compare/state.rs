//! What the comparison keeps: which B was asked for and the load of A it belongs to, the job
//! computing it, the result, B's position (moved with A's cursor by the Compare tab) and
//! whether B's curve is drawn, and the prices it is priced with. A new log opened in place of A
//! drops the comparison; another price file computes it again.

use std::sync::Arc;

use surface_analysis::cost::PriceTable;

use crate::compare::job::{CompareJob, Compared, SideA, Target, compute};
use crate::session::loaded::Session;

/// Which load of A the wanted comparison is for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Binding {
    /// This load.
    Load(u64),
    /// The next load after this one (the browser opens A first).
    After(u64),
}

/// A comparison asked for.
#[derive(Debug)]
struct Wanted {
    target: Target,
    binding: Binding,
    started: bool,
}

/// The comparison room's state.
#[derive(Debug, Default)]
pub struct CompareRuns {
    wanted: Option<Wanted>,
    job: Option<CompareJob>,
    result: Option<Arc<Compared>>,
    /// Why the last comparison failed.
    pub(crate) error: Option<String>,
    /// B's position: the event of B the Compare tab last moved to.
    pub(crate) b_cursor: Option<usize>,
    /// B's timeline scrolls to B's position on the next frame.
    pub(crate) scroll_b: bool,
    /// The turn row last clicked.
    pub(crate) selected_turn: Option<u64>,
    /// The user hid B's curve on the strip.
    pub(crate) hide_curve: bool,
    /// The prices both runs are priced with (the price file in use; `None`: tokens only).
    /// Set by `prices/apply.rs`; a change compares again.
    pub(crate) prices: Option<Arc<PriceTable>>,
}

impl CompareRuns {
    /// Compares the log of load `generation` (or, with `next`, the next load) with `target`.
    pub fn want(&mut self, target: Target, generation: u64, next: bool) {
        *self = CompareRuns {
            hide_curve: self.hide_curve,
            prices: self.prices.take(),
            ..CompareRuns::default()
        };
        let binding = if next {
            Binding::After(generation)
        } else {
            Binding::Load(generation)
        };
        self.wanted = Some(Wanted {
            target,
            binding,
            started: false,
        });
    }

    /// Forgets B.
    pub fn close(&mut self) {
        *self = CompareRuns {
            hide_curve: self.hide_curve,
            prices: self.prices.take(),
            ..CompareRuns::default()
        };
    }

    /// The comparison, once computed.
    pub fn result(&self) -> Option<&Arc<Compared>> {
        self.result.as_ref()
    }

    /// True while B is read and compared (or waits for A's meter).
    pub fn running(&self) -> bool {
        self.job.is_some() || self.wanted.as_ref().is_some_and(|w| !w.started)
    }

    /// B's name while one is wanted.
    pub fn wanted_label(&self) -> Option<String> {
        self.wanted.as_ref().map(|w| w.target.source.label())
    }

    /// Binds, starts and polls the comparison against the open `session` (A). `blocking`
    /// computes on this thread (tests).
    pub fn tick(
        &mut self,
        session: &Session,
        ratio: f64,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let generation = session.generation;
        match self.wanted.as_ref().map(|w| w.binding) {
            Some(Binding::After(g)) if generation > g => {
                if let Some(w) = &mut self.wanted {
                    w.binding = Binding::Load(generation);
                }
            }
            Some(Binding::After(_)) => return,
            Some(Binding::Load(g)) if g != generation => return self.close(),
            _ => {}
        }
        if self
            .result
            .as_ref()
            .is_some_and(|r| r.a_generation != generation)
        {
            return self.close();
        }
        self.reprice();
        self.start(session, ratio, ctx, blocking);
        if let Some(done) = self.job.as_ref().and_then(CompareJob::poll) {
            self.job = None;
            self.land(done);
        }
    }

    /// Compares again when the price file changed since the result was computed (the result
    /// stays on screen until the new one lands).
    fn reprice(&mut self) {
        let key = self.prices.as_ref().map(|p| Arc::as_ptr(p) as usize);
        let stale = self.result.as_ref().is_some_and(|r| r.priced_with != key);
        if stale
            && self.job.is_none()
            && let Some(w) = &mut self.wanted
        {
            w.started = false;
        }
    }

    fn start(
        &mut self,
        session: &Session,
        ratio: f64,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) {
        let (Some(w), Some(meter)) = (&mut self.wanted, session.meter.as_ref()) else {
            return;
        };
        if w.started {
            return;
        }
        w.started = true;
        let a = SideA {
            generation: session.generation,
            label: session.source.label(),
            log: Arc::clone(&session.log),
            meter: Arc::clone(meter),
        };
        if blocking {
            let done = compute(&a, &w.target, ratio, self.prices.as_ref());
            return self.land(done);
        }
        let priced = (ratio, self.prices.clone());
        match CompareJob::spawn(a, w.target.clone(), priced, ctx.cloned()) {
            Ok(job) => self.job = Some(job),
            Err(done) => self.land(*done),
        }
    }

    fn land(&mut self, done: Result<Compared, String>) {
        match done {
            Ok(compared) => {
                self.result = Some(Arc::new(compared));
                self.error = None;
            }
            Err(message) => {
                self.error = Some(message);
                self.wanted = None;
            }
        }
    }
}
