//! Why the cache missed (docs/cost.md), as the viewer reads it: the analysis's
//! `cost::cache_breaks` for the open log (computed by the cost job beside the ledger's parts)
//! with what the panels look up in it — the agent request at a cursor (the Request view), the
//! request whose first change is a compaction's replace (the Compactions tab's cache-lost
//! link), and each request's event (the strip's marks, and where a click takes the cursor).

use surface_analysis::cost::{CacheBreaks, CallKind, Cause, LedgerParts, RequestChange};
use surface_engine::EventIdx;

/// Every request's first change, and the indexes the panels look it up by.
#[derive(Debug, Default)]
pub struct RequestChanges {
    /// The analysis's result, as the CLI's `cost --requests` prints it.
    pub breaks: CacheBreaks,
    /// The event of each request's call (its `assistant/message`, `step/start` or
    /// `compaction/summary`), by request.
    events: Vec<EventIdx>,
    /// `(replace seq, request)` of every agent request whose first change is a replace,
    /// sorted by the replace's seq.
    by_replace: Vec<(u64, usize)>,
}

impl RequestChanges {
    /// The lookups over `breaks`, which `cache_breaks` computed from `parts`.
    pub fn new(breaks: CacheBreaks, parts: &LedgerParts) -> Self {
        let events = breaks
            .requests
            .iter()
            .map(|r| parts.calls.get(r.call).map_or(EventIdx(0), |c| c.event))
            .collect();
        let mut by_replace: Vec<(u64, usize)> = breaks
            .requests
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == CallKind::Agent && r.first_change.cause == Cause::Replace)
            .filter_map(|(k, r)| Some((r.first_change.replace_seq?, k)))
            .collect();
        by_replace.sort_unstable();
        RequestChanges {
            breaks,
            events,
            by_replace,
        }
    }

    /// The requests, in log order.
    pub fn requests(&self) -> &[RequestChange] {
        &self.breaks.requests
    }

    /// The event of request number `k`'s call.
    pub fn event(&self, k: usize) -> Option<EventIdx> {
        self.events.get(k).copied()
    }

    /// The agent request whose messages were fixed at `cursor` (the Request view's).
    pub fn agent_at_cursor(&self, cursor: usize) -> Option<&RequestChange> {
        self.breaks.agent_at_cursor(cursor)
    }

    /// The agent request whose first change is the replace of seq `replace_seq`, with its
    /// index.
    pub fn after_replace(&self, replace_seq: u64) -> Option<(usize, &RequestChange)> {
        let k = self.by_replace.partition_point(|&(s, _)| s < replace_seq);
        let &(seq, request) = self.by_replace.get(k)?;
        (seq == replace_seq).then(|| (request, &self.breaks.requests[request]))
    }

    /// The first agent request at or after cursor `cursor`, with its index (a compaction
    /// whose replace no request's first change names: the request after it).
    pub fn first_agent_from(&self, cursor: usize) -> Option<(usize, &RequestChange)> {
        let k = self.breaks.requests.partition_point(|r| r.cursor < cursor);
        self.breaks.requests[k..]
            .iter()
            .enumerate()
            .find(|(_, r)| r.kind == CallKind::Agent)
            .map(|(j, r)| (k + j, r))
    }

    /// The requests whose first change breaks the cache (any cause but `none`), with their
    /// index.
    pub fn breaks(&self) -> impl Iterator<Item = (usize, &RequestChange)> {
        self.breaks
            .requests
            .iter()
            .enumerate()
            .filter(|(_, r)| r.first_change.cause != Cause::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::loader::sample_source;
    use surface_analysis::cost::{cache_breaks, parts_of};

    #[test]
    fn a_request_is_found_by_its_cursor_and_by_the_replace_it_follows() {
        let source = sample_source().expect("the sample");
        let mut session = crate::session::loaded::test_session_pending(&source);
        let analysis = crate::session::analysis::analyse(&session.log, &session.surface);
        session.land(analysis);
        let meter = session.meter().expect("a meter");
        let parts = parts_of(&session.log, &session.surface, meter);
        let breaks = cache_breaks(&session.log, &session.surface, meter, &parts);
        let changes = RequestChanges::new(breaks, &parts);
        assert_eq!(changes.requests().len(), parts.calls.len());
        for (k, r) in changes.requests().iter().enumerate() {
            assert_eq!(changes.event(k), Some(parts.calls[r.call].event));
            if r.kind == CallKind::Agent {
                assert_eq!(changes.agent_at_cursor(r.cursor), Some(r));
            }
        }
        // The sample's summary at seq 110 is the first change of the agent call at seq 122;
        // its prune at seq 37 is no request's first change.
        let (_, after) = changes.after_replace(110).expect("a request after it");
        assert_eq!((after.seq, after.first_change.cause), (122, Cause::Replace));
        assert!(changes.after_replace(37).is_none());
        assert!(
            changes
                .breaks()
                .all(|(_, r)| r.first_change.cause == Cause::Replace)
        );
        assert_eq!(changes.breaks().count(), 5);
        assert!(changes.first_agent_from(usize::MAX).is_none());
    }
}
