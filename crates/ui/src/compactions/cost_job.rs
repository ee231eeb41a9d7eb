//! What context costs (docs/cost.md) for the open log: the ledger's parts — calls and
//! compactions, one pass over the log — computed on a worker thread like the audit (once per
//! log length), then every request's first change against the previous one (why the cache
//! missed: `cost::cache_breaks`, the CLI's `cost --requests`) on the same worker, and the
//! ledger priced from the parts on this thread whenever the price table changes (a few
//! microseconds per compaction).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use surface_analysis::cost::{Ledger, LedgerParts, PriceTable, cache_breaks, parts_of};
use surface_engine::{EventLog, Meter, Surface};

use crate::compactions::request_changes::RequestChanges;
use crate::session::loaded::Session;

/// What the worker sends: the parts as soon as they are known, then the first changes.
#[derive(Debug)]
enum Landed {
    Parts(Arc<LedgerParts>),
    Changes(RequestChanges),
}

/// The parts of the open log's ledger and the ledger priced with the table in use.
#[derive(Debug, Default)]
pub struct LedgerCache {
    /// The parts and the log length they are for.
    parts: Option<(usize, Arc<LedgerParts>)>,
    job: Option<(usize, Receiver<Landed>)>,
    /// The ledger, for the parts and the table (by address) it was built from.
    ledger: Option<(usize, usize, Arc<Ledger>)>,
    /// Every request's first change, for the log length it is for.
    changes: Option<(usize, Arc<RequestChanges>)>,
}

impl LedgerCache {
    /// Forgets everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = LedgerCache::default();
    }

    /// The ledger built last, if any.
    pub fn ledger(&self) -> Option<&Arc<Ledger>> {
        self.ledger.as_ref().map(|(_, _, l)| l)
    }

    /// Every request's first change, once computed for the log's current length.
    pub fn changes(&self) -> Option<&Arc<RequestChanges>> {
        self.changes.as_ref().map(|(_, c)| c)
    }

    /// True while the parts or the first changes are being computed.
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Brings the ledger up to date with `session`'s length and `prices` (computing the parts
    /// on a worker thread for a long log unless `blocking`). Returns true while it runs.
    pub fn ensure(
        &mut self,
        session: &Session,
        prices: Option<&Arc<PriceTable>>,
        ctx: Option<&egui::Context>,
        blocking: bool,
    ) -> bool {
        let Some(meter) = session.meter.as_ref() else {
            return false;
        };
        let events = session.len();
        let stale = self.parts.as_ref().is_none_or(|(n, _)| *n != events);
        if stale && self.job.as_ref().is_none_or(|(n, _)| *n != events) {
            if blocking || events < BLOCKING_BELOW {
                let (parts, changes) = costed(&session.log, &session.surface, meter, |_| {});
                self.parts = Some((events, parts));
                self.changes = Some((events, Arc::new(changes)));
                self.job = None;
            } else {
                let (log, surface, meter) = (
                    Arc::clone(&session.log),
                    Arc::clone(&session.surface),
                    Arc::clone(meter),
                );
                let ctx = ctx.cloned();
                let (tx, rx) = channel();
                let spawned = std::thread::Builder::new()
                    .name("surface-viewer-cost".into())
                    .spawn(move || {
                        let repaint = || {
                            if let Some(ctx) = &ctx {
                                ctx.request_repaint();
                            }
                        };
                        let (_, changes) = costed(&log, &surface, &meter, |parts| {
                            let _ = tx.send(Landed::Parts(parts));
                            repaint();
                        });
                        let _ = tx.send(Landed::Changes(changes));
                        repaint();
                    });
                if spawned.is_ok() {
                    self.job = Some((events, rx));
                }
            }
        }
        self.poll();
        self.price(prices);
        self.running()
    }

    fn poll(&mut self) {
        let Some((events, rx)) = &self.job else {
            return;
        };
        let events = *events;
        loop {
            match rx.try_recv() {
                Ok(Landed::Parts(parts)) => self.parts = Some((events, parts)),
                Ok(Landed::Changes(changes)) => {
                    self.changes = Some((events, Arc::new(changes)));
                    self.job = None;
                    return;
                }
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => {
                    self.job = None;
                    return;
                }
            }
        }
    }

    /// Builds the ledger when the parts or the table changed.
    fn price(&mut self, prices: Option<&Arc<PriceTable>>) {
        let Some((_, parts)) = &self.parts else {
            return;
        };
        let key = (
            Arc::as_ptr(parts) as usize,
            prices.map_or(0, |p| Arc::as_ptr(p) as usize),
        );
        if self.ledger.as_ref().is_none_or(|(p, t, _)| (*p, *t) != key) {
            let ledger = Ledger::build(parts, prices.map(|p| p.as_ref()));
            self.ledger = Some((key.0, key.1, Arc::new(ledger)));
        }
    }
}

/// The ledger's parts of the log (`parts` is handed them as soon as they are known), then
/// every request's first change: the analysis's own functions, as the CLI calls them.
fn costed(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    parts: impl FnOnce(Arc<LedgerParts>),
) -> (Arc<LedgerParts>, RequestChanges) {
    let computed = Arc::new(parts_of(log, surface, meter));
    parts(Arc::clone(&computed));
    let breaks = cache_breaks(log, surface, meter, &computed);
    let changes = RequestChanges::new(breaks, &computed);
    (computed, changes)
}

/// Logs shorter than this are costed on the UI thread (well under a frame).
const BLOCKING_BELOW: usize = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_is_priced_again_only_when_the_table_changes() {
        let session = crate::session::loaded::test_session();
        let mut cache = LedgerCache::default();
        assert!(!cache.ensure(&session, None, None, true));
        let first = Arc::clone(cache.ledger().unwrap());
        assert!(first.currency.is_none());
        cache.ensure(&session, None, None, true);
        assert!(Arc::ptr_eq(&first, cache.ledger().unwrap()));
        let table = Arc::new(
            PriceTable::parse(
                r#"{"currency":"EUR","models":{"*":{"uncached":1,"cache_read":0.1,"cache_write":1,"output":2}}}"#,
            )
            .unwrap(),
        );
        cache.ensure(&session, Some(&table), None, true);
        assert_eq!(cache.ledger().unwrap().currency.as_deref(), Some("EUR"));
        cache.reset();
        assert!(cache.ledger().is_none());
    }
}
