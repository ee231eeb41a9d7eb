//! The loaded session as the UI sees it: the engine's log and surface, then (once the loader's
//! analysis landed) its findings and token meter, plus view-model caches (surface nodes and the
//! meter's figure at the cursor, replace-op and finding positions, a lazily built reverse
//! provenance index). Until the analysis lands, every meter figure and finding is `None`, which
//! the panels show as [`PENDING`]. Only [`crate::app`] mutates it.

use std::cell::OnceCell;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use surface_engine::{Effect, EraGuess, EventIdx, EventLog, Figure, Finding, Meter, Surface};
use surface_store::{FileChange, FileIdentity, Format, SessionInfo};

use crate::session::analysis::Analysis;
use crate::session::file_watch::{FileWatch, LOOK_EVERY};
use crate::session::indexes::Indexes;
use crate::session::loader::{Loaded, Source};

/// What the panels show in place of a figure or a finding that is still being computed.
pub const PENDING: &str = "computing…";

/// Hover text of a figure shown as [`PENDING`].
pub const PENDING_METER_HOVER: &str = "The harness's token meter is being computed in the background (a long log takes a moment); its figures appear here as soon as it is ready. Stepping and seeking work meanwhile.";

/// What the last single step changed on the surface (for highlighting).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepChange {
    /// Nodes that entered the surface.
    pub entered: Vec<EventIdx>,
    /// Nodes that left the surface.
    pub left: Vec<EventIdx>,
}

/// Who cites whom: `(source, citing)` pairs sorted by source, built once per log on demand.
#[derive(Debug, Default)]
pub struct ReverseIndex {
    pairs: Vec<(u32, u32)>,
}

impl ReverseIndex {
    /// Builds the index from every event's `sourceEventSeqs`.
    pub fn build(log: &EventLog) -> Self {
        let mut pairs = Vec::new();
        for idx in log.indices() {
            for &seq in log.sources(idx).unwrap_or(&[]) {
                if let Some(src) = log.find_seq(seq) {
                    pairs.push((src.0, idx.0));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        ReverseIndex { pairs }
    }

    /// The events whose sources include `idx`, in log order.
    pub fn cited_by(&self, idx: EventIdx) -> impl Iterator<Item = EventIdx> + '_ {
        let lo = self.pairs.partition_point(|p| p.0 < idx.0);
        self.pairs[lo..]
            .iter()
            .take_while(move |p| p.0 == idx.0)
            .map(|p| EventIdx(p.1))
    }
}

/// The findings of `check` with the UI's indexes over them.
#[derive(Debug, Default)]
pub struct FindingIndex {
    /// Findings of `check`, in the engine's order.
    pub list: Vec<Finding>,
    /// The event each finding is about, parallel to `list`.
    pub events: Vec<Option<EventIdx>>,
    /// Finding indices in display order: errors first, then by seq.
    pub order: Vec<usize>,
    /// Events with at least one finding, sorted, deduplicated.
    pub marks: Vec<EventIdx>,
}

impl FindingIndex {
    /// Indexes `findings` of `log`.
    pub fn new(log: &EventLog, findings: Vec<Finding>) -> Self {
        let (events, order, marks) = index_findings(log, &findings);
        FindingIndex {
            list: findings,
            events,
            order,
            marks,
        }
    }

    /// Number of error- and warning-level findings.
    pub fn counts(&self) -> (usize, usize) {
        let errors = self.list.iter().filter(|f| f.is_error()).count();
        (errors, self.list.len() - errors)
    }
}

/// The loaded session.
pub struct Session {
    /// The load it came from (a late analysis of another load is not applied).
    pub generation: u64,
    /// Where it came from.
    pub source: Source,
    /// Detected format.
    pub format: Format,
    /// The session read.
    pub info: SessionInfo,
    /// Every session of the file.
    pub sessions: Vec<SessionInfo>,
    /// The log (shared read-only with the analysis, search and audit workers).
    pub log: Arc<EventLog>,
    /// The surface with its replay cursor, shared read-only with the analysis and audit
    /// workers (moving the cursor copies it only while one of them still reads it).
    pub surface: Arc<Surface>,
    /// Findings of `check` and their indexes; `None` until the analysis landed.
    pub findings: Option<FindingIndex>,
    /// Events carrying a replace op (applied or not), in log order.
    pub replace_ops: Vec<EventIdx>,
    /// The harness's token meter after every event (figures at any cursor are lookups),
    /// shared with the audit worker; `None` until the analysis landed.
    pub meter: Option<Arc<Meter>>,
    /// Time of the first event that has one (relative times start here).
    pub t0: Option<i64>,
    /// Every event's time, carried forward where missing or going back, and the spans of
    /// model calls and compactions: the strip's time axis (built once, grown by follow).
    pub time: surface_engine::time_column::TimeColumn,
    /// Surface nodes at the cursor, in order (recomputed when the cursor moves).
    pub nodes: Vec<EventIdx>,
    /// The meter's figure at the cursor (`None` while the meter is computed).
    pub figure: Option<Figure>,
    /// What the last single step changed.
    pub last_change: Option<StepChange>,
    nodes_at: Option<usize>,
    reverse: OnceCell<ReverseIndex>,
    /// Events were appended (live follow) since the findings were computed.
    pub findings_stale: bool,
    /// The harness era the log was written in (it decides the findings' severities), and why.
    pub era: EraGuess,
    /// The watched file's identity when it was read and when it was last compared here
    /// ([`Session::file_change`], when no [`FileWatch`] thread looks). A mapping shows the
    /// file's current bytes, so a rewrite must be noticed and the file read again; a copy is
    /// read again too, so that the window never shows what the file no longer holds.
    watched: Option<(FileIdentity, Instant)>,
    /// The thread that compares the file with its identity and wakes the window
    /// ([`Session::watch_file`]).
    watch: Option<FileWatch>,
    /// The window said the file grew (said once per session).
    pub growth_told: bool,
}

/// The event of each finding, the display order (errors first, then by seq), and the sorted
/// events that have findings.
fn index_findings(
    log: &EventLog,
    findings: &[Finding],
) -> (Vec<Option<EventIdx>>, Vec<usize>, Vec<EventIdx>) {
    let finding_events: Vec<Option<EventIdx>> =
        findings.iter().map(|f| event_of_finding(log, f)).collect();
    let mut finding_marks: Vec<EventIdx> = finding_events.iter().flatten().copied().collect();
    finding_marks.sort_unstable();
    finding_marks.dedup();
    let mut finding_order: Vec<usize> = (0..findings.len()).collect();
    finding_order.sort_by_key(|&n| (findings[n].severity, findings[n].seq, n));
    (finding_events, finding_order, finding_marks)
}

impl Session {
    /// Takes ownership of what the loader's first step produced: the findings and the meter
    /// are pending until [`Session::land`].
    pub fn new(loaded: Loaded) -> Self {
        let Loaded {
            generation,
            source,
            format,
            info,
            sessions,
            log,
            follower: _,
            surface,
            indexes,
        } = loaded;
        let Indexes {
            replace_ops,
            t0,
            era,
            time,
            identity,
        } = indexes;
        let watched = identity.map(|id| (id, Instant::now()));
        let mut session = Session {
            generation,
            source,
            format,
            info,
            sessions,
            log,
            surface,
            findings: None,
            replace_ops,
            meter: None,
            t0,
            time,
            nodes: Vec::new(),
            figure: None,
            last_change: None,
            nodes_at: None,
            reverse: OnceCell::new(),
            findings_stale: false,
            era,
            watched,
            watch: None,
            growth_told: false,
        };
        session.refresh_nodes();
        session
    }

    /// Takes in the loader's analysis: the findings and the meter. The meter catches up with
    /// events a live follower appended meanwhile (and the findings are then marked stale); the
    /// figure at the cursor is looked up again.
    pub fn land(&mut self, analysis: Analysis) {
        let Analysis {
            findings,
            mut meter,
        } = analysis;
        self.findings = Some(FindingIndex::new(&self.log, findings));
        if meter.len() < self.log.len() {
            meter.catch_up(&self.log, &self.surface);
            self.findings_stale = true;
        }
        self.meter = Some(Arc::new(meter));
        self.nodes_at = None;
        self.refresh_nodes();
    }

    /// True while the findings and the meter are still being computed.
    pub fn analysis_pending(&self) -> bool {
        self.meter.is_none() || self.findings.is_none()
    }

    /// The meter, once it landed.
    pub fn meter(&self) -> Option<&Meter> {
        self.meter.as_deref()
    }

    /// Events with at least one finding (empty while the findings are computed).
    pub fn finding_marks(&self) -> &[EventIdx] {
        self.findings.as_ref().map_or(&[], |f| &f.marks)
    }

    /// Starts the thread that watches the log's file ([`FileWatch`]), waking `wake` (the
    /// window) when it changes. Nothing for a log with no watched file (the bundled sample, a
    /// followed log, a SQLite store).
    pub fn watch_file(&mut self, wake: Option<egui::Context>) {
        let (Some((identity, _)), Source::Path(path)) = (&self.watched, &self.source) else {
            return;
        };
        self.watch = FileWatch::spawn(path.clone(), identity.clone(), LOOK_EVERY, move || {
            if let Some(ctx) = &wake {
                ctx.request_repaint();
            }
        });
    }

    /// Whether the mapped file grew, was truncated, or was replaced or rewritten since it was
    /// read (another program changed its identity: inode, size, modification time or the bytes
    /// at either end): what the [`FileWatch`] thread last found, or, without one, a comparison
    /// here at most every [`LOOK_EVERY`]. Always unchanged for a log with no watched file.
    pub fn file_change(&mut self, now: Instant) -> FileChange {
        if let Some(watch) = &self.watch {
            return watch.change();
        }
        let Some((identity, checked)) = &mut self.watched else {
            return FileChange::Unchanged;
        };
        if now.duration_since(*checked) < LOOK_EVERY {
            return FileChange::Unchanged;
        }
        *checked = now;
        let Source::Path(path) = &self.source else {
            return FileChange::Unchanged;
        };
        identity.change_at(path)
    }

    /// The file path, when the log came from disk.
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            Source::Path(p) => Some(p),
            Source::Embedded { .. } => None,
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.log.len()
    }

    /// True when the log has no events.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    /// The cursor: how many events are applied.
    pub fn cursor(&self) -> usize {
        self.surface.cursor()
    }

    /// The last applied event, if any.
    pub fn cursor_event(&self) -> Option<EventIdx> {
        self.cursor().checked_sub(1).map(|i| EventIdx(i as u32))
    }

    /// Takes in events a live follower appended to the log: delta processing in the engine
    /// (the cursor follows the end when it was there), caches grown, findings marked stale.
    pub fn absorb_appended(&mut self) {
        let old_len = self.surface.processed().min(self.log.len());
        let new_len = self.log.len();
        for i in old_len..new_len {
            let idx = EventIdx(i as u32);
            if matches!(self.log.op(idx), surface_engine::SurfaceOp::Replace { .. }) {
                self.replace_ops.push(idx);
            }
        }
        self.time.extend(&self.log);
        Arc::make_mut(&mut self.surface).catch_up(&self.log);
        if let Some(meter) = self.meter.as_mut() {
            // Copies the meter only while an audit worker still reads the old one.
            Arc::make_mut(meter).catch_up(&self.log, &self.surface);
        }
        self.nodes_at = None;
        self.refresh_nodes();
        self.findings_stale = true;
    }

    /// Recomputes the findings and the reverse provenance index of the whole log, once live
    /// follow has been quiet for a moment (O(log), so not on every append).
    pub fn refresh_findings(&mut self) {
        // `check` reads the processed effects, which cover the whole log after `catch_up`.
        let report = surface_engine::check_report(&self.log, &self.surface);
        self.findings = Some(FindingIndex::new(&self.log, report.findings));
        self.era = report.era;
        self.reverse = OnceCell::new();
        self.findings_stale = false;
    }

    /// The meter's price of one event's message (0 for events that yield no message); `None`
    /// while the meter is computed.
    pub fn tokens_of(&self, idx: EventIdx) -> Option<u64> {
        self.meter().map(|m| m.price(idx))
    }

    /// [`Session::tokens_of`] as text: the number, or `…` while the meter is computed.
    pub fn tokens_text(&self, idx: EventIdx) -> String {
        self.tokens_of(idx)
            .map_or_else(|| "…".to_string(), |t| t.to_string())
    }

    /// Moves the cursor (O(distance) in the engine) and refreshes the node cache. Moving
    /// forward records what the last applied event changed; one step back records its undo.
    pub fn seek(&mut self, target: usize) {
        let target = target.min(self.len());
        let before = self.cursor();
        if target == before {
            return;
        }
        Arc::make_mut(&mut self.surface).seek(&self.log, target);
        // Forward (one step or a jump): what the last applied event did. Back one step: its undo.
        self.last_change = if target > before {
            Some(self.change_of(EventIdx(target as u32 - 1), true))
        } else if target + 1 == before {
            Some(self.change_of(EventIdx(target as u32), false))
        } else {
            None
        };
        self.refresh_nodes();
    }

    fn change_of(&self, idx: EventIdx, forward: bool) -> StepChange {
        let (mut entered, mut left) = match self.surface.effect(idx) {
            Some(Effect::Appended) => (vec![idx], Vec::new()),
            Some(Effect::Replaced(_)) => {
                let shadowed = self
                    .surface
                    .replace_of(idx)
                    .map(|r| self.surface.shadowed_nodes(r).to_vec())
                    .unwrap_or_default();
                (vec![idx], shadowed)
            }
            _ => (Vec::new(), Vec::new()),
        };
        if !forward {
            std::mem::swap(&mut entered, &mut left);
        }
        StepChange { entered, left }
    }

    /// Recomputes the nodes and the meter's figure when the cursor moved since the last call.
    pub fn refresh_nodes(&mut self) {
        if self.nodes_at == Some(self.cursor()) {
            return;
        }
        self.nodes.clear();
        self.nodes.extend(self.surface.nodes());
        self.figure = self.meter().map(|m| m.at(self.cursor()));
        self.nodes_at = Some(self.cursor());
    }

    /// Position of `idx` among the surface nodes at the cursor.
    pub fn node_position(&self, idx: EventIdx) -> Option<usize> {
        if !self.surface.is_on_surface(idx) {
            return None;
        }
        self.nodes.iter().position(|&n| n == idx)
    }

    /// The events `idx` cites (its `sourceEventSeqs` that exist), in list order.
    pub fn sources_of(&self, idx: EventIdx) -> Vec<EventIdx> {
        self.log
            .sources(idx)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&s| self.log.find_seq(s))
            .collect()
    }

    /// The events citing `idx` (builds the reverse index on first use).
    pub fn cited_by(&self, idx: EventIdx) -> Vec<EventIdx> {
        self.reverse
            .get_or_init(|| ReverseIndex::build(&self.log))
            .cited_by(idx)
            .collect()
    }

    /// Cursor position just after the first replace op at or after cursor `from` (exclusive of
    /// the op already at the cursor).
    pub fn next_replace_cursor(&self, from: usize) -> Option<usize> {
        let i = self.replace_ops.partition_point(|e| e.get() < from);
        self.replace_ops.get(i).map(|e| e.get() + 1)
    }

    /// Cursor position just after the last replace op before the cursor's last event.
    pub fn prev_replace_cursor(&self, from: usize) -> Option<usize> {
        let last_applied = from.checked_sub(1)?;
        let i = self.replace_ops.partition_point(|e| e.get() < last_applied);
        let j = i.checked_sub(1)?;
        self.replace_ops.get(j).map(|e| e.get() + 1)
    }

    /// The next event with a finding after `after` (or from the start).
    pub fn next_finding_event(&self, after: Option<EventIdx>) -> Option<EventIdx> {
        let marks = self.finding_marks();
        let i = match after {
            Some(a) => marks.partition_point(|e| *e <= a),
            None => 0,
        };
        marks.get(i).copied()
    }

    /// The previous event with a finding before `before` (or from the end).
    pub fn prev_finding_event(&self, before: Option<EventIdx>) -> Option<EventIdx> {
        let marks = self.finding_marks();
        let i = match before {
            Some(b) => marks.partition_point(|e| *e < b),
            None => marks.len(),
        };
        marks.get(i.checked_sub(1)?).copied()
    }

    /// Milliseconds since the first timed event.
    pub fn relative_millis(&self, idx: EventIdx) -> Option<i64> {
        let t = self.log.event(idx).time().filter(|&t| t > 0)?;
        Some(t - self.t0?)
    }

    /// Window title text: file, session, era and format, e.g.
    /// `session.jsonl — HEAD (2026-08), JSONL packed — surface-viewer`.
    pub fn title(&self) -> String {
        let session = if self.sessions.len() > 1 || self.format == Format::Sqlite {
            format!(" [session {}]", self.info.id)
        } else {
            String::new()
        };
        format!(
            "{}{session} — {} — surface-viewer",
            self.source.label(),
            self.era_and_format()
        )
    }

    /// The era and the storage format: `HEAD (2026-08), JSONL packed`.
    pub fn era_and_format(&self) -> String {
        format!(
            "{}, {}{}",
            self.era.era.label(),
            self.format.label(),
            if self.log.packed_rows.is_empty() {
                ""
            } else {
                " packed"
            }
        )
    }

    /// Hover text for the era: what told it and what it means for the findings.
    pub fn era_hover(&self) -> String {
        format!(
            "Era: {} — {}.\nJudged by the {} harness's rules: the newest that could have written the log. Rules it did not enforce yet are warnings, not errors (docs/parity.md).",
            self.era.span(),
            self.era.reason,
            self.era.era.label(),
        )
    }

    /// Number of error- and warning-level findings; `None` while they are computed.
    pub fn finding_counts(&self) -> Option<(usize, usize)> {
        self.findings.as_ref().map(FindingIndex::counts)
    }
}

/// The event a finding is about: by seq, else by JSONL line.
fn event_of_finding(log: &EventLog, finding: &Finding) -> Option<EventIdx> {
    if let Some(seq) = finding.seq
        && let Some(i) = log.find_seq(seq)
    {
        return Some(i);
    }
    let line = finding.line?;
    let pos = log.events.partition_point(|e| e.line < line);
    log.events
        .get(pos)
        .filter(|e| e.line == line)
        .map(|_| EventIdx(pos as u32))
        .or_else(|| {
            let seq = finding.seq?;
            log.events
                .iter()
                .position(|e| e.seq == seq)
                .map(|p| EventIdx(p as u32))
        })
}

/// Formats milliseconds as a compact relative time (`+1.234s`, `+2m05s`).
pub fn format_relative(millis: i64) -> String {
    let sign = if millis < 0 { "-" } else { "+" };
    let m = millis.unsigned_abs();
    if m < 60_000 {
        format!("{sign}{}.{:03}s", m / 1000, m % 1000)
    } else if m < 3_600_000 {
        format!("{sign}{}m{:02}s", m / 60_000, (m / 1000) % 60)
    } else {
        format!("{sign}{}h{:02}m", m / 3_600_000, (m / 60_000) % 60)
    }
}

/// Formats epoch milliseconds as an absolute UTC time.
pub fn format_absolute(millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}.{ms:03} UTC",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a (year, month, day) civil date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A tiny loaded session for unit tests: 0 and 1 appended, 2 replaces 0..1, 3 is an invalid
/// replace.
#[cfg(test)]
pub(crate) fn test_session() -> Session {
    const LOG: &str = concat!(
        r#"{"type":"session","version":0,"id":"t","createdAt":1}"#,
        "\n",
        r#"{"type":"user/message","seq":0,"time":5,"data":{"content":[{"type":"text","text":"a"}]},"surfaceOp":"append"}"#,
        "\n",
        r#"{"type":"user/message","seq":1,"time":6,"data":{"content":[{"type":"text","text":"b"}]},"sourceEventSeqs":[0],"surfaceOp":"append"}"#,
        "\n",
        r#"{"type":"user/message","seq":2,"time":7,"data":{"content":[{"type":"text","text":"s"}]},"sourceEventSeqs":[0,1],"surfaceOp":{"op":"replace","start":0,"end":1}}"#,
        "\n",
        r#"{"type":"user/message","seq":3,"time":8,"data":{"content":[{"type":"text","text":"x"}]},"surfaceOp":{"op":"replace","start":7,"end":7}}"#,
        "\n",
    );

    let source = Source::Embedded {
        name: "t",
        bytes: LOG.as_bytes(),
    };
    let mut session = test_session_pending(&source);
    let analysis = crate::session::analysis::analyse(&session.log, &session.surface);
    session.land(analysis);
    session
}

/// A session of `source` whose analysis has not landed yet (unit tests).
#[cfg(test)]
pub(crate) fn test_session_pending(source: &Source) -> Session {
    match crate::session::loader::read_source(source, None, None, false, 0) {
        Ok(loaded) => Session::new(loaded),
        Err(e) => panic!("test log: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn navigation_and_step_changes() {
        let mut s = test_session();
        assert_eq!(s.cursor(), 4);
        assert_eq!(s.nodes, vec![EventIdx(2)]);
        assert_eq!(s.next_replace_cursor(0), Some(3));
        assert_eq!(s.next_replace_cursor(3), Some(4));
        assert_eq!(s.prev_replace_cursor(4), Some(3));
        assert_eq!(s.prev_replace_cursor(3), None);
        assert_eq!(s.next_finding_event(None), Some(EventIdx(3)));
        assert_eq!(s.prev_finding_event(Some(EventIdx(3))), None);
        s.seek(2);
        assert_eq!(s.nodes, vec![EventIdx(0), EventIdx(1)]);
        s.seek(3);
        let change = s.last_change.clone().unwrap();
        assert_eq!(change.entered, vec![EventIdx(2)]);
        assert_eq!(change.left, vec![EventIdx(0), EventIdx(1)]);
        s.seek(2);
        assert_eq!(
            s.last_change.clone().unwrap().entered,
            vec![EventIdx(0), EventIdx(1)]
        );
        assert_eq!(s.cited_by(EventIdx(0)), vec![EventIdx(1), EventIdx(2)]);
        assert_eq!(s.sources_of(EventIdx(2)), vec![EventIdx(0), EventIdx(1)]);
        // Two appended messages of one 1-character text block each: (1 + 4) + 4 apiece.
        let figure = s.figure.unwrap();
        assert_eq!(figure.surface, 18);
        assert_eq!(
            Some(figure.surface),
            s.tokens_of(EventIdx(0))
                .zip(s.tokens_of(EventIdx(1)))
                .map(|(a, b)| a + b)
        );
        assert_eq!(s.relative_millis(EventIdx(3)), Some(3));
    }

    #[test]
    fn pending_until_the_analysis_lands_then_figures_at_the_cursor() {
        let landed = test_session();
        let source = landed.source.clone();
        let mut s = test_session_pending(&source);
        assert!(s.analysis_pending());
        assert_eq!((s.figure, s.tokens_of(EventIdx(0))), (None, None));
        assert_eq!(s.tokens_text(EventIdx(0)), "…");
        assert_eq!(s.finding_counts(), None);
        assert!(s.finding_marks().is_empty());
        assert_eq!(s.next_finding_event(None), None);
        // Replay works without the meter; the meter that lands answers for the cursor.
        s.seek(2);
        assert_eq!(s.nodes, vec![EventIdx(0), EventIdx(1)]);
        s.land(crate::session::analysis::analyse(&s.log, &s.surface));
        assert!(!s.analysis_pending());
        assert_eq!(s.figure.map(|f| f.surface), Some(18));
        assert_eq!(s.tokens_text(EventIdx(0)), "9");
        assert_eq!(s.finding_counts(), landed.finding_counts());
        assert_eq!(s.next_finding_event(None), Some(EventIdx(3)));
    }

    #[test]
    fn title_names_era_and_format() {
        let s = test_session();
        // The test log has a version-0 header and nothing HEAD refuses: judged as HEAD.
        assert_eq!(s.title(), "t — HEAD (2026-08), JSONL — surface-viewer");
        assert!(
            s.era_hover()
                .contains("surface merge or later (judged as HEAD)")
        );
        assert!(s.era_hover().contains("header version 0"));
    }

    #[test]
    fn times() {
        assert_eq!(format_relative(1234), "+1.234s");
        assert_eq!(format_relative(125_000), "+2m05s");
        assert_eq!(format_absolute(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            format_absolute(1_786_123_401_613),
            "2026-08-07 17:23:21.613 UTC"
        );
    }
}
