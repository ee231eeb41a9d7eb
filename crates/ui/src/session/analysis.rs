//! The second half of a load: the findings of `check` and the harness's token meter, computed
//! on the loader's thread after the log and its surface were handed to the UI (so the first
//! frame does not wait for them), and delivered as one [`Parcel`] that the app applies through
//! [`crate::command::SessionCommand::AnalysisLanded`].

use std::sync::{Arc, Mutex, PoisonError};

use surface_engine::{EventLog, Finding, Meter, Surface, check};

/// What the loader computes after the first frame.
#[derive(Debug)]
pub struct Analysis {
    /// Findings of `check`.
    pub findings: Vec<Finding>,
    /// The harness's token meter after every event `surface` had processed.
    pub meter: Meter,
}

/// Computes the findings and the meter of a log whose surface is processed to the end. The two
/// read the log independently: side by side on two threads.
pub fn analyse(log: &EventLog, surface: &Surface) -> Analysis {
    let (findings, meter) = std::thread::scope(|scope| {
        let meter = scope.spawn(|| surface_passes::meter_of(log, surface));
        let findings = check(log, surface);
        // A meter worker that died is rebuilt here, on one thread.
        let meter = meter.join().unwrap_or_else(|_| Meter::build(log, surface));
        (findings, meter)
    });
    Analysis { findings, meter }
}

/// A finished [`Analysis`] on its way to the session of load number `generation`. Cloning
/// shares the content; the first [`Parcel::take`] gets it.
#[derive(Clone)]
pub struct Parcel {
    generation: u64,
    content: Arc<Mutex<Option<Analysis>>>,
}

impl Parcel {
    /// Wraps the analysis of load number `generation`.
    pub fn new(generation: u64, analysis: Analysis) -> Self {
        Parcel {
            generation,
            content: Arc::new(Mutex::new(Some(analysis))),
        }
    }

    /// The load this analysis belongs to.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The analysis, the first time (`None` afterwards).
    pub fn take(&self) -> Option<Analysis> {
        self.content
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl PartialEq for Parcel {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation && Arc::ptr_eq(&self.content, &other.content)
    }
}

impl std::fmt::Debug for Parcel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parcel")
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parcel_is_taken_once_and_names_its_load() {
        let log = EventLog::default();
        let surface = Surface::at_end(&log);
        let parcel = Parcel::new(7, analyse(&log, &surface));
        let copy = parcel.clone();
        assert_eq!(parcel, copy);
        assert_eq!(copy.generation(), 7);
        assert!(copy.take().is_some_and(|a| a.meter.is_empty()));
        assert!(parcel.take().is_none());
        assert_ne!(parcel, Parcel::new(7, analyse(&log, &surface)));
    }

    #[test]
    fn a_newer_load_discards_the_older_loads_analysis() {
        let dir = std::env::temp_dir().join(format!("sv-analysis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.session.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"type":"session","version":0,"id":"a","createdAt":1}"#,
                "\n",
                r#"{"type":"user/message","seq":0,"time":5,"data":{"content":[{"type":"text","text":"a"}]},"surfaceOp":"append"}"#,
                "\n",
            ),
        )
        .unwrap();
        let mut app = crate::app::ViewerApp::new_for_test_pending(&path);
        let older = app.jobs.held_analysis.clone().unwrap();
        app.start_load(
            crate::session::loader::Source::Path(path.clone()),
            None,
            None,
        );
        let newer = app.jobs.held_analysis.clone().unwrap();
        assert_ne!(older.generation(), newer.generation());
        app.land_analysis(&older);
        assert!(
            app.analysis_pending(),
            "the older load's analysis is not applied"
        );
        app.land_analysis(&newer);
        assert!(!app.analysis_pending());
        assert_eq!(
            app.session
                .as_ref()
                .and_then(|s| s.figure)
                .map(|f| f.surface),
            Some(9)
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
