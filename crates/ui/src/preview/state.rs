//! What the replace preview keeps between frames: the summary being edited, the path typed,
//! the preview of the range at the cursor (and whether its op holds at the end of the log,
//! where a save appends it), a pending "Replace it?" question, and the check of the file a
//! save would write.

use std::path::{Path, PathBuf};

use surface_engine::{Preview, PreviewRequest, preview_replace};
use surface_store::refuse_the_log;

use crate::preview::saved_check::SavedCheck;
use crate::session::loaded::Session;
use crate::view::ViewState;

/// Default summary text of a new preview.
const DEFAULT_SUMMARY: &str = "Summary of the replaced conversation span.";

/// UI-only state of the preview pane.
#[derive(Debug)]
pub struct PreviewState {
    /// The replacement text the user edits.
    pub summary: String,
    /// Path typed for "save as new log".
    pub save_path: String,
    /// `(cursor, first event, last event, summary)` and the preview computed for them.
    cached: Option<((usize, u64, u64, String), Preview)>,
    /// The surface at the end of the log, where a saved op lands.
    end: crate::preview::end::EndSurface,
    /// Why the cached preview's op would be rejected at the end of the log.
    end_problem: Option<String>,
    /// A path that exists and that "Write" would replace: asked about first (until the range
    /// or the cursor changes).
    pub confirm_replace: Option<PathBuf>,
    /// The typed path and whether it names the open log (checked again when the text changes).
    path_is_log: Option<(String, bool)>,
    /// What `check` says about the file a save would write.
    pub saved_check: SavedCheck,
}

impl Default for PreviewState {
    fn default() -> Self {
        PreviewState {
            summary: DEFAULT_SUMMARY.to_string(),
            save_path: String::new(),
            cached: None,
            end: Default::default(),
            end_problem: None,
            confirm_replace: None,
            path_is_log: None,
            saved_check: SavedCheck::default(),
        }
    }
}

impl PreviewState {
    /// Drops the cached preview (a new log was loaded).
    pub fn reset(&mut self) {
        self.cached = None;
        self.save_path.clear();
        self.end.reset();
        self.end_problem = None;
        self.confirm_replace = None;
        self.path_is_log = None;
        self.saved_check.reset();
    }

    /// Why the current op would be rejected at the end of the log, where saving appends it
    /// (`None`: it holds there).
    pub fn end_problem(&self) -> Option<&str> {
        self.end_problem.as_deref()
    }

    /// True when the current op can be saved: valid at the cursor and at the end of the log.
    pub fn savable(&self) -> bool {
        self.current().is_some_and(|p| p.valid) && self.end_problem.is_none()
    }

    /// The preview computed last.
    pub fn current(&self) -> Option<&Preview> {
        self.cached.as_ref().map(|(_, p)| p)
    }

    /// Recomputes the preview when the range, cursor or summary changed; a "Replace it?"
    /// question asked about the previous range or cursor is dropped.
    pub fn refresh(&mut self, session: &Session, view: &ViewState) -> Option<&Preview> {
        let (Some(a), Some(b)) = (view.range_start, view.range_end) else {
            self.cached = None;
            self.confirm_replace = None;
            return None;
        };
        let key = (
            session.cursor(),
            a.0 as u64,
            b.0 as u64,
            self.summary.clone(),
        );
        let place = |k: &(usize, u64, u64, String)| (k.0, k.1, k.2);
        if self
            .cached
            .as_ref()
            .is_some_and(|(k, _)| place(k) != place(&key))
        {
            self.confirm_replace = None;
        }
        if self.cached.as_ref().is_none_or(|(k, _)| *k != key) {
            // Order the endpoints by surface position, so that shift-clicking upwards works too.
            let (first, last) = match (session.node_position(a), session.node_position(b)) {
                (Some(x), Some(y)) if y < x => (b, a),
                _ => (a, b),
            };
            let req = PreviewRequest {
                start: session.log.event(first).seq,
                end: session.log.event(last).seq,
                summary: self.summary.clone(),
                time: None,
            };
            // The preview's figures are the meter's: none before it landed.
            let meter = session.meter()?;
            let preview = preview_replace(&session.log, &session.surface, meter, &req);
            self.end_problem = self.end.problem(session, req.start, req.end);
            self.cached = Some((key, preview));
        }
        self.current()
    }

    /// True when the typed path is the open log, under any spelling: saving there is refused.
    pub fn path_is_the_log(&mut self, session: &Session) -> bool {
        let text = self.save_path.trim();
        if let Some((typed, is)) = &self.path_is_log
            && typed == text
        {
            return *is;
        }
        let is = !text.is_empty()
            && session
                .path()
                .is_some_and(|log| refuse_the_log(Path::new(text), log).is_err());
        self.path_is_log = Some((text.to_string(), is));
        is
    }

    /// A default path for the new log: next to the open one, with a suffix — except for the
    /// bundled sample, whose folder is the build tree (or nowhere, compiled in): the user's
    /// home folder then, or the current one.
    pub fn suggested_path(&self, session: Option<&Session>) -> Option<PathBuf> {
        let path = session?.path();
        let home = || {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_dir())
                .or_else(|| std::env::current_dir().ok())
        };
        suggested_for(path, crate::session::loader::is_bundled_sample, home)
    }
}

/// The new log's path for a log at `path` (`None`: the compiled-in sample): beside it with a
/// suffix, or in `elsewhere()` when it is the bundled sample (`is_sample`).
fn suggested_for(
    path: Option<&Path>,
    is_sample: impl Fn(&Path) -> bool,
    elsewhere: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    let name = path
        .and_then(Path::file_name)
        .map_or_else(|| "sample.session.jsonl".into(), |n| n.to_string_lossy());
    let stem = name.replace(".session.jsonl", "").replace(".jsonl", "");
    let file = format!("{stem}.with-replace.session.jsonl");
    match path {
        Some(p) if !is_sample(p) => Some(p.with_file_name(file)),
        _ => Some(elsewhere()?.join(file)),
    }
}

#[cfg(test)]
mod suggestion_tests {
    use super::*;

    #[test]
    fn the_sample_is_saved_at_home_and_any_other_log_beside_itself() {
        let sample = Path::new("/build/tree/assets/sample.session.jsonl");
        let is_sample = |p: &Path| p == sample;
        let home = || Some(PathBuf::from("/home/me"));
        assert_eq!(
            suggested_for(Some(sample), is_sample, home),
            Some(PathBuf::from("/home/me/sample.with-replace.session.jsonl"))
        );
        assert_eq!(
            suggested_for(None, is_sample, home),
            Some(PathBuf::from("/home/me/sample.with-replace.session.jsonl"))
        );
        assert_eq!(
            suggested_for(Some(Path::new("/runs/a.jsonl")), is_sample, home),
            Some(PathBuf::from("/runs/a.with-replace.session.jsonl"))
        );
        // The real bundled sample is recognised.
        if let Some(crate::session::loader::Source::Path(p)) =
            crate::session::loader::sample_source()
        {
            assert!(crate::session::loader::is_bundled_sample(&p));
        }
    }
}
