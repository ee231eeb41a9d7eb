//! Whether a proposed replace op holds at the end of the log: "Save as new log" appends it
//! there, so an op that is valid at an earlier cursor but not at the end would make a log
//! that `check` rejects. The surface at the end is computed once per log length.

use std::sync::Arc;

use surface_engine::Surface;

use crate::session::loaded::Session;

/// The surface at the end of the open log, kept while its length does not change.
#[derive(Debug, Default)]
pub struct EndSurface {
    cached: Option<(usize, Arc<Surface>)>,
}

impl EndSurface {
    /// Drops the cache (a new log was loaded).
    pub fn reset(&mut self) {
        self.cached = None;
    }

    /// Why replacing `start..=end` (seqs) would be rejected at the end of the log, or `None`
    /// when it holds there.
    pub fn problem(&mut self, session: &Session, start: u64, end: u64) -> Option<String> {
        let len = session.len();
        let surface = if session.cursor() == len {
            Arc::clone(&session.surface)
        } else {
            match &self.cached {
                Some((at, s)) if *at == len => Arc::clone(s),
                _ => {
                    let mut s = (*session.surface).clone();
                    s.seek(&session.log, len);
                    let s = Arc::new(s);
                    self.cached = Some((len, Arc::clone(&s)));
                    s
                }
            }
        };
        let check = surface.check_replace(&session.log, start, end);
        surface
            .replace_problem(&check)
            .map(|reason| reason.describe(start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_replaced_later_is_invalid_at_the_end() {
        // Seq 2 replaces 0..1: at cursor 2 the range 0..1 holds, at the end it does not.
        let mut s = crate::session::loaded::test_session();
        let mut end = EndSurface::default();
        s.seek(2);
        assert!(s.surface.check_replace(&s.log, 0, 1).first.is_some());
        let problem = end.problem(&s, 0, 1).expect("shadowed at the end");
        assert!(problem.contains('0'), "{problem}");
        // The replace's own node is on the surface at the end.
        assert_eq!(end.problem(&s, 2, 2), None);
    }
}
